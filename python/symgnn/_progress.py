"""Training progress in Python: a tqdm bar when tqdm is installed, plain lines otherwise
(every 10 % of a run), nothing with verbose=False. Fed once per epoch by the C++ trainer
(symgnn._core.fit's on_epoch). A run with train.protocol = retrain has two
phases (choosing the epoch count on validation, then training on all training ratings):
the epoch count starting again opens the second phase's bar."""

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
        self.phase = 0
        self.last_epoch = 0

    def __call__(self, e):
        if not self.verbose or e.get("phase"):  # the short trials before the run: not drawn
            return
        new_run = e["run"] != self.run
        if new_run or e["epoch"] <= self.last_epoch:
            self.close(finished=True)
            self.phase = 1 if new_run else self.phase + 1
            self.run = e["run"]
            self.label = f"run {e['run'] + 1}/{e['runs']}" + (" (retrain)" if self.phase > 1 else "")
            if _tqdm is not None:
                self.bar = _tqdm(total=e["max_epochs"], desc=self.label, leave=True)
        self.last_epoch = e["epoch"]
        # The training figure is the event's one "train_" figure (the rating metric's).
        train = next((v for k, v in e.items() if k.startswith("train_")), float("nan"))
        text = f"train {train:.4f}"
        if e["val"] == e["val"]:  # no validation (a retrain on all training ratings): NaN
            text += f" {e['select']} {e['val']:.4f} best {e['best_val']:.4f}"
        if self.bar is not None:
            self.bar.update(e["epoch"] - self.bar.n)
            self.bar.set_postfix_str(text, refresh=False)
        else:
            step = max(1, e["max_epochs"] // 10)
            if e["epoch"] == 1 or e["epoch"] % step == 0:
                print(f"{self.label} epoch {e['epoch']}/{e['max_epochs']}  {text}", file=sys.stderr, flush=True)

    def close(self, finished=False):
        """Ends the current bar; `finished`: the phase ended (early stopping counts), so the
        bar shows it complete."""
        if self.bar is not None:
            if finished:
                self.bar.total = self.bar.n  # close() draws the final state
            self.bar.close()
            self.bar = None
