"""Python habits (issue 29): fit on a pandas DataFrame, bad frames as symgnn errors with a
one-line message, a pair of string ids predicting one pair, and counts refused rather than
truncated."""

import os

import numpy as np
import pandas as pd
import pytest

import symgnn
from conftest import FAST


def frame(n_users=30, n_items=20, seed=5):
    """Two tastes over string user ids and integer item ids."""
    rng = np.random.default_rng(seed)
    rows = [(f"u{u}", i, 5 if u % 2 == i % 2 else 1)
            for u in range(n_users) for i in range(n_items) if rng.random() < 0.6]
    return pd.DataFrame(rows, columns=["user", "item", "rating"])


def raises_one_line(cls, match, call, *args, **kwargs):
    with pytest.raises(cls, match=match) as e:
        call(*args, **kwargs)
    assert isinstance(e.value, symgnn.Error)
    assert "\n" not in str(e.value)
    return e.value


def test_fit_takes_a_dataframe_of_ratings(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMGNN_CACHE", str(tmp_path / "cache"))
    df = frame()
    model = symgnn.SyMGNN(**dict(FAST, train_epochs=30)).fit(df)
    # The frame is Dataset.from_arrays of its columns, held in memory: no file is written.
    same = symgnn.Dataset.from_arrays(df["user"], df["item"], df["rating"])
    assert same.in_memory and model.model_.config()["data.source"] == same.source == "arrays"
    assert not os.path.exists(tmp_path / "cache")
    assert sorted(model.model_.item_ids, key=int) == [str(i) for i in range(20)]
    # Integer ids answer as integers or as their text; the two tastes are learned.
    assert model.predict("u0", 0) == model.predict("u0", "0")
    assert model.predict("u0", 0) > model.predict("u0", 1)
    assert model.rmse(df) < 2.0  # ratings are 1 or 5: the mean alone scores 2


@pytest.mark.parametrize("bad, match", [
    # (two columns user, item are interactions: test_implicit_feedback.py)
    (pd.DataFrame({"user": ["a"], "item": ["x"], "stars": [4]}), "no column rating"),
    (pd.DataFrame({"user": ["a", "b", "c"], "item": ["x", "y", "x"], "rating": [1.0, 2.0, np.nan]}),
     r"column rating: row 2 \(index 2\) is nan"),
    (pd.DataFrame({"user": ["a", "b"], "item": ["x", "y"], "rating": [1, "oops"]}),
     r"row 1 \(index 1\) is 'oops' \(str\); ratings are numbers"),
    (pd.DataFrame({"user": [1, None], "item": ["x", "y"], "rating": [1, 2]}),
     r"column user: row 1 \(index 1\) is missing"),
    (pd.DataFrame({"user": [1.0, 2.0], "item": ["x", "y"], "rating": [1, 2]}),
     r"column user: row 0 \(index 0\) is 1.0 \(float\)"),
    (pd.DataFrame({"user": ["a"], "item": [[1, 2]], "rating": [1]}), r"column item: row 0 \(index 0\) is \[1, 2\]"),
    (pd.DataFrame({"user": [True], "item": ["x"], "rating": [1]}), "column user: row 0"),
    (pd.DataFrame({"user": ["a"], "item": ["x"], "rating": [True]}), "ratings are numbers"),
    (pd.DataFrame(columns=["user", "item", "rating"]), "no rows"),
    (pd.DataFrame([["a", "x", 1, 2]], columns=["user", "item", "rating", "rating"]), "column rating twice"),
])
def test_bad_frames_raise_data_errors_naming_the_row(bad, match):
    raises_one_line(symgnn.DataError, match, symgnn.SyMGNN(**FAST).fit, bad)


def test_other_data_and_arrays_are_refused_with_symgnn_errors():
    raises_one_line(symgnn.ConfigError, "expected a Dataset, a DataFrame", symgnn.SyMGNN(**FAST).fit, 42)
    raises_one_line(symgnn.DataError, "ratings: row 1 is 'x'", symgnn.Dataset.from_arrays,
                    ["a", "b"], ["x", "y"], [1.0, "x"])
    raises_one_line(symgnn.DataError, "users: row 0 is missing", symgnn.Dataset.from_arrays,
                    [np.nan], ["x"], [1.0])


def test_a_pair_of_string_ids_predicts_one_pair(fitted):
    model, _ = fitted
    users, items = model.model_.user_ids, model.model_.item_ids
    u, i = users[12], items[34]
    assert len(u) > 1 and len(i) > 1  # strings of several characters: never iterated
    one = model.predict(u, i)
    assert isinstance(one, float)
    assert one == model.predict([u], [i])[0]
    # One id against several: that id with each.
    np.testing.assert_array_equal(model.predict(u, items[:3]), model.predict([u] * 3, items[:3]))
    np.testing.assert_array_equal(model.predict(users[:3], i), model.predict(users[:3], [i] * 3))
    np.testing.assert_array_equal(model.predict([(u, i), (users[1], items[2])]),
                                  model.predict([u, users[1]], [i, items[2]]))
    raises_one_line(symgnn.ConfigError, "without items", model.predict, u)
    raises_one_line(symgnn.ConfigError, "pair 0 is", model.predict, [u])
    raises_one_line(symgnn.ConfigError, "differ in length", model.predict, [u, u], [i])
    assert len(model.predict(pd.DataFrame({"user": [], "item": []}))) == 0


def test_counts_are_refused_not_truncated(fitted):
    model, _ = fitted
    u, i = model.model_.user_ids[0], model.model_.item_ids[0]
    for bad in (2.9, 3.0, "3", True, None):
        raises_one_line(symgnn.ConfigError, "k must be a whole number", model.recommend, u, k=bad)
        raises_one_line(symgnn.ConfigError, "k must be a whole number", model.similar_items, i, k=bad)
    raises_one_line(symgnn.ConfigError, "k must be a whole number", model.evaluate, k=[5, 2.5])
    raises_one_line(symgnn.ConfigError, "k must be a whole number", model.recommend_new_user, {i: 5}, k=1.5)
    raises_one_line(symgnn.ConfigError, "k must be at least 1", model.similar_users, u, k=0)
    assert len(model.recommend(u, k=np.int64(3))) == 3


def test_columns_named_by_keyword_and_ids_the_model_never_saw(recwarn):
    # Issue 66: a frame's own column names (user_col, item_col, rating_col), score higher is
    # better, and pairs naming an id the model never saw rated as `symgnn evaluate` rates them.
    df = frame().rename(columns={"user": "uid", "item": "iid", "rating": "stars"})
    e = raises_one_line(symgnn.DataError, "no column user", symgnn.SyMGNN(**FAST).fit, df)
    assert "user_col=" in str(e)
    model = symgnn.SyMGNN(**FAST).fit(df, user_col="uid", item_col="iid", rating_col="stars")
    rmse = model.rmse(df, user_col="uid", item_col="iid", rating_col="stars")
    assert 0 < rmse < 2.0 and model.score(df, user_col="uid", item_col="iid", rating_col="stars") == -rmse
    p = model.predict(df[["uid", "iid"]], user_col="uid", item_col="iid")
    np.testing.assert_allclose(p, model.predict(list(df["uid"]), list(df["iid"])))
    raises_one_line(symgnn.DataError, "one column named for two roles", symgnn.SyMGNN(**FAST).fit, df,
                    user_col="uid", item_col="uid", rating_col="stars")
    raises_one_line(symgnn.ConfigError, "user_col=", symgnn.SyMGNN(**FAST).fit, df, user_col=1.5)
    # Unknown ids: known-mean by default, with a warning; 'error' refuses; one known pair unchanged.
    known = model.predict("u0", 0)
    with pytest.warns(UserWarning, match="2 of 3 pairs name a user or item id not in the model's data"):
        got = model.predict(["u0", "u0", "nobody"], [0, 999, 999])
    assert got[0] == pytest.approx(known, abs=1e-6)
    with pytest.warns(UserWarning):  # known-mean: the item's mean, else the user's (u0's here)
        assert got[1] == pytest.approx(model.predict(["u0"], [999], unknown="user-mean")[0])
        assert 1.0 <= got[1] <= 5.0
    with pytest.warns(UserWarning):
        glob = model.predict(["nobody"], [999], unknown="global-mean")
        assert model.predict(["nobody"], [999])[0] == pytest.approx(glob[0])  # no side known: the global mean
    raises_one_line(symgnn.ConfigError, "unknown item id '999'", model.predict, "u0", 999, unknown="error")
    raises_one_line(symgnn.ConfigError, "unknown='sideways'", model.predict, "u0", 0, unknown="sideways")
    with pytest.warns(UserWarning):
        assert np.isfinite(model.rmse(["u0", "nobody"], [0, 999], [5.0, 3.0]))


def test_verbose_lines_go_to_the_symgnn_logger(caplog):
    # Issue 66: the run's lines and summary through Python's logging, where an application
    # can route or silence them.
    import logging
    caplog.set_level(logging.INFO, logger="symgnn")
    symgnn.SyMGNN(**dict(FAST, verbose=True)).fit(frame())
    lines = [r.getMessage() for r in caplog.records if r.name == "symgnn" and r.levelno == logging.INFO]
    assert any("test RMSE" in line for line in lines), lines
    caplog.clear()
    logging.getLogger("symgnn").setLevel(logging.WARNING)
    try:
        symgnn.SyMGNN(**dict(FAST, verbose=True)).fit(frame())
    finally:
        logging.getLogger("symgnn").setLevel(logging.NOTSET)
    assert not [r for r in caplog.records if r.name == "symgnn"]


def test_fit_writes_the_run_for_mlflow(tmp_path):
    # Issue 66: fit(..., mlflow_dir=DIR) writes the run in MLflow's file-store layout
    # (docs/mlflow.md), as `symgnn train --mlflow-dir` does.
    store = tmp_path / "mlruns"
    model = symgnn.SyMGNN(**FAST).fit(frame(), mlflow_dir=store)
    runs = [p for p in (store / "0").iterdir() if p.is_dir()]
    assert len(runs) == 1 and len(runs[0].name) == 32
    assert "name: Default" in (store / "0" / "meta.yaml").read_text()
    assert (runs[0] / "params" / "train.epochs").read_text() == "8"
    last = (runs[0] / "metrics" / "test_rmse").read_text().splitlines()[-1].split()
    assert len(last) == 3 and float(last[1]) == pytest.approx(model.metrics_["test_rmse"], abs=1e-9)
    try:  # read back by MLflow itself where it is installed
        import mlflow
    except ImportError:
        return
    client = mlflow.tracking.MlflowClient(tracking_uri=f"file://{store}")
    run = client.get_run(runs[0].name)
    assert run.data.params["train.epochs"] == "8"
    assert run.data.metrics["test_rmse"] == pytest.approx(model.metrics_["test_rmse"], abs=1e-9)
