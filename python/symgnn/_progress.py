"""Training progress in Python: a tqdm bar when tqdm is installed, plain lines otherwise
(every 10 % of a run), nothing with verbose=False. Fed once per epoch by the C++ trainer
(symgnn._core.run_command's on_epoch)."""

import sys

try:
    from tqdm import tqdm as _tqdm
except ImportError:  # optional
    _tqdm = None


class Progress:
    def __init__(self, verbose):
        self.verbose = verbose
        self.bar = None
        self.run = None

    def __call__(self, e):
        if not self.verbose:
            return
        if e["run"] != self.run:
            self.close()
            self.run = e["run"]
            if _tqdm is not None:
                self.bar = _tqdm(total=e["max_epochs"], desc=f"run {e['run'] + 1}/{e['runs']}", leave=True)
        text = f"train {e['train_rmse']:.4f}"
        if e["val_rmse"] == e["val_rmse"]:  # no validation (a retrain on all training ratings): NaN
            text += f" val {e['val_rmse']:.4f} best {e['best_val']:.4f}"
        if self.bar is not None:
            self.bar.update(e["epoch"] - self.bar.n)
            self.bar.set_postfix_str(text, refresh=False)
        else:
            step = max(1, e["max_epochs"] // 10)
            if e["epoch"] == 1 or e["epoch"] % step == 0:
                print(f"run {e['run'] + 1}/{e['runs']} epoch {e['epoch']}/{e['max_epochs']}  {text}",
                      file=sys.stderr, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
