"""symgnn.tune on Optuna (issue 66): the space `symgnn tune` reads, the best trial's config
keys, a study resumed from its storage, and trials pruned on their epochs. Skipped where
Optuna is not installed (python3-optuna; scripts/setup.sh installs it)."""

import pytest

import symgnn
from conftest import FAST
from test_dataframes_and_arguments import frame

optuna = pytest.importorskip("optuna")
optuna.logging.set_verbosity(optuna.logging.WARNING)

SPACE = "lowrank.hidden = choice 8|16\ntrain.lr = loguniform 0.001 0.03  # as in configs/spaces\n"


def test_the_space_is_read_as_symgnn_tune_reads_it(tmp_path):
    got = symgnn.tune.space(text=SPACE)
    assert [p["key"] for p in got] == ["lowrank.hidden", "train.lr"]
    assert got[0]["kind"] == "choice" and list(got[0]["choices"]) == ["8", "16"]
    assert got[1]["kind"] == "loguniform" and got[1]["lo"] == pytest.approx(0.001)
    with pytest.raises(symgnn.DataError, match="space:1"):
        symgnn.tune.space(text="lowrank.hidden = uniform 1 2\n")  # an integer key
    path = tmp_path / "my.space"
    path.write_text(SPACE)
    assert symgnn.tune.space(path) == got
    assert symgnn.tune.params({"train.lr": 0.01, "model": "base"}) == {"train_lr": 0.01, "model": "base"}


def test_a_study_finds_its_best_trial_and_resumes_from_its_storage(tmp_path):
    df = frame()
    storage = f"sqlite:///{tmp_path / 'study.db'}"
    best, study = symgnn.tune.study(df, space_text=SPACE, n_trials=3, base=symgnn.SyMGNN(**FAST), storage=storage)
    assert set(best) == {"lowrank.hidden", "train.lr"}
    values = [t.value for t in study.trials if t.value is not None]
    assert len(study.trials) == 3 and study.best_value == min(values)
    # The best config fits as the best trial did: the same validation RMSE.
    again = symgnn.SyMGNN(**dict(FAST, **symgnn.tune.params(best))).fit(df)
    assert again.metrics_["val_rmse"] == pytest.approx(study.best_value, abs=1e-9)
    # Resumed: the same study in the same storage holds the earlier trials and the new one.
    _, resumed = symgnn.tune.study(df, space_text=SPACE, n_trials=1, base=symgnn.SyMGNN(**FAST), storage=storage)
    assert len(resumed.trials) == 4


def test_trials_are_pruned_on_their_epochs(tmp_path):
    # A pruner that stops every trial at its second reported epoch: the fit stops there
    # (the exception raised in the epoch callback ends the C++ trainer, as Ctrl-C does) and
    # the trial is PRUNED, with the two epochs it reported.
    class Always(optuna.pruners.BasePruner):
        def prune(self, study, trial):
            return len(trial.intermediate_values) >= 2

    storage = f"sqlite:///{tmp_path / 'pruned.db'}"
    with pytest.raises(symgnn.ConfigError, match="no trial completed"):
        symgnn.tune.study(frame(), space_text=SPACE, n_trials=2, base=symgnn.SyMGNN(**FAST), pruner=Always(),
                          storage=storage)
    study = optuna.load_study(study_name="symgnn", storage=storage)
    assert [t.state for t in study.trials] == [optuna.trial.TrialState.PRUNED] * 2
    assert all(sorted(t.intermediate_values) == [1, 2] for t in study.trials)  # of 8 epochs
