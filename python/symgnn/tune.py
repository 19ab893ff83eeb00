"""symgnn.tune: a hyper-parameter study on Optuna (python3-optuna) over the search space
`symgnn tune` reads (docs/tuning.md): TPE proposals, unpromising trials pruned on their
epochs' validation figures, studies resumed from a storage (e.g. "sqlite:///study.db").
The command line's `symgnn tune` keeps its own seeded random search (src/tune/).

    best, study = symgnn.tune.study(data, "configs/spaces/lowrank.space", n_trials=30,
                                    base=symgnn.SyMGNN(config="configs/douban_lowrank.conf"))
    symgnn.SyMGNN(config="configs/douban_lowrank.conf", **symgnn.tune.params(best)).fit(data)

Each trial fits a clone of `base` with the trial's values of the space's config keys, on
the same data and split, and is judged on one validation metric (`metric`: "val_rmse" by
default; "val_mae" lower is better; "val_ndcg@10" and the other ranking figures higher).
Its epochs report that metric to the pruner (optuna's MedianPruner by default: a trial
whose figure at an epoch is worse than the median of the earlier trials' at that epoch
stops there). Decide on validation: the test figures are never read."""

import copy
import math

from . import _core
from ._errors import ConfigError
from ._params import EXPLICIT, FIELDS

LOWER_IS_BETTER = ("val_rmse", "val_mae")


def space(path=None, text=None):
    """The parameters of a search space, read by `symgnn tune`'s reader (one reader for the
    format): a file's `path`, or its `text`. A list of dicts key, kind (choice, uniform,
    loguniform, int), choices, lo, hi."""
    if (path is None) == (text is None):
        raise ConfigError("space: give the path of a space file or its text, one of them")
    return _core.read_space(text or "", str(path or ""))


def params(config):
    """The estimator's parameters for config keys {"train.lr": 0.01, "model": "base"}:
    {"train_lr": 0.01, "model": "base"} (SyMGNN(**params(best)))."""
    out = {}
    for key, value in config.items():
        name = key if key in EXPLICIT else key.replace(".", "_")
        if name not in FIELDS and name not in EXPLICIT:
            raise ConfigError(f"{key}: not a config key a SyMGNN parameter sets")
        out[name] = value
    return out


def _suggest(trial, p):
    if p["kind"] == "choice":
        return trial.suggest_categorical(p["key"], list(p["choices"]))
    if p["kind"] == "int":
        return trial.suggest_int(p["key"], int(math.ceil(p["lo"])), int(math.floor(p["hi"])))
    return trial.suggest_float(p["key"], p["lo"], p["hi"], log=p["kind"] == "loguniform")


def study(data, space_file=None, n_trials=None, timeout=None, base=None, metric="val_rmse", storage=None,
          study_name="symgnn", seed=1, pruner=None, space_text=None):
    """Runs `n_trials` more trials (and/or until `timeout` seconds) of the study `study_name`
    in `storage` (None: in memory; a study already there is resumed, its trials kept) and
    returns (best, study): `best` the best trial's values by config key, `study` optuna's.
    `base`: the SyMGNN every trial starts from (default SyMGNN(verbose=False)); `data` as
    SyMGNN.fit takes it (a Dataset, a source, a DataFrame)."""
    try:
        import optuna
    except ImportError as e:
        raise ConfigError("symgnn.tune needs Optuna: apt-get install python3-optuna (Debian), "
                          "or `symgnn tune` on the command line") from e
    if n_trials is None and timeout is None:
        raise ConfigError("study: give n_trials, timeout or both")
    from .estimator import SyMGNN
    base = base if base is not None else SyMGNN(verbose=False)
    searched = space(space_file, space_text)
    if not searched:
        raise ConfigError("study: the space names no key")
    direction = "minimize" if metric in LOWER_IS_BETTER else "maximize"
    if not metric.startswith("val_"):
        raise ConfigError(f"metric={metric!r}: a validation figure (val_rmse, val_mae, val_ndcg@10, ...); "
                          f"decide on validation, never on test")
    s = optuna.create_study(storage=storage, study_name=study_name, load_if_exists=True, direction=direction,
                            sampler=optuna.samplers.TPESampler(seed=seed),
                            pruner=pruner if pruner is not None else optuna.pruners.MedianPruner(n_warmup_steps=5))

    def objective(trial):
        values = {p["key"]: _suggest(trial, p) for p in searched}
        est = copy.deepcopy(base).set_params(**params(values))
        step = [0]

        def report(e):  # each epoch of the fit's own runs with a validation figure
            if e.get("phase") or e.get("select") != metric or not e["val"] == e["val"]:
                return
            step[0] += 1
            trial.report(e["val"], step[0])
            if trial.should_prune():
                raise optuna.TrialPruned(f"pruned at epoch {e['epoch']}: {metric} {e['val']:.4f}")
        est._epoch_hook = report
        est.fit(data)
        figure = est.metrics_.get(metric)
        if figure is None or not figure == figure:
            raise ConfigError(f"metric={metric!r}: the trial's fit reported no such figure (train.select and "
                              f"the objective decide which validation figures a fit measures)")
        return float(figure)

    s.optimize(objective, n_trials=n_trials, timeout=timeout)
    done = [t for t in s.trials if t.state == optuna.trial.TrialState.COMPLETE]
    if not done:
        raise ConfigError("study: no trial completed (all pruned or failed)")
    return dict(s.best_trial.params), s
