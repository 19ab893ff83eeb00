"""The estimator: parameters generated from the config's field list, fit / predict /
save / load, and model directories shared with the command line (to 1e-6)."""

import os
import shutil

import numpy as np
import pytest

import symgnn
from symgnn import _params
from conftest import FAST, ROOT, run_cli


def test_every_config_key_is_a_parameter_with_its_doc():
    code, out = run_cli("config", "--defaults")
    assert code == 0, out
    keys = set()
    for line in out.splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            keys.add(line.split("=", 1)[0].strip())
    section_keys = {k for k in keys if "." in k and not k.startswith("data.")}
    assert section_keys, out
    generated = {f["key"] for f in _params.FIELDS.values()} | {"train.seed", "train.device", "train.threads"}
    assert section_keys == generated
    doc = symgnn.SyMGNN.__doc__
    for name, f in _params.FIELDS.items():
        assert f"{name} : {f['type']}" in doc
        assert f["doc"] in doc


def test_get_and_set_params_round_trip():
    m = symgnn.SyMGNN(lowrank_hidden=32, train_epochs=10)
    p = m.get_params()
    assert p["lowrank_hidden"] == 32 and p["train_epochs"] == 10 and p["model"] is None  # the config's
    assert p["lowrank_layers"] is None  # from the preset
    m2 = symgnn.SyMGNN(**p)
    assert m2.get_params() == p
    assert m.set_params(lowrank_hidden=8) is m and m.lowrank_hidden == 8
    with pytest.raises(symgnn.ConfigError, match="lowrank_hiden"):
        symgnn.SyMGNN(lowrank_hiden=3)
    with pytest.raises(ValueError):
        m.set_params(no_such_key=1)


def test_bad_values_name_the_key_before_any_work():
    with pytest.raises(symgnn.ConfigError, match="lowrank.hidden"):
        symgnn.SyMGNN(lowrank_hidden=0, verbose=False).fit("synthetic")
    with pytest.raises(symgnn.ConfigError, match="graph.user_graph"):
        symgnn.SyMGNN(graph_user_graph="nope", verbose=False).config_text()
    with pytest.raises(symgnn.MissingFileError):
        symgnn.SyMGNN(config="/nonexistent.conf").config_text()


def test_fit_predict_save_load_round_trip(fitted, tmp_path):
    model, out = fitted
    assert os.path.exists(out / "model.pt") and os.path.exists(out / "metrics.json")
    data = symgnn.load_dataset("synthetic")
    users, items, ratings = data.ratings("test")
    p = model.predict(users, items)
    assert p.shape == (len(ratings),) and np.all(np.isfinite(p))
    rmse = model.rmse(data)
    assert abs(rmse - model.metrics_["test_rmse"]) < 1e-4
    assert model.score(data) == -rmse  # higher is better, as scikit-learn's scorers
    saved = model.save(tmp_path / "copy")
    again = symgnn.load(saved)
    np.testing.assert_allclose(again.predict(users, items), p, atol=1e-6)
    assert again.lowrank_hidden == 16 and again.train_epochs == 8
    top = again.recommend(users[0], k=5)
    assert list(top["rank"]) == [1, 2, 3, 4, 5]
    assert set(top["user"]) == {users[0]}
    ev = again.evaluate(k=[5, 10])
    assert abs(ev["rmse"] - rmse) < 1e-4 and "precision@10" in ev["ranking"]
    with pytest.raises(symgnn.ConfigError, match="exists"):
        model.save(saved)


def test_a_cli_model_loads_in_python_with_the_same_predictions(tmp_path):
    out = tmp_path / "cli"
    code, text = run_cli("train", "--quiet", "--no-compare", "--variant", "G", "--epochs", "6", "--threads", "1",
                         "--set", "lowrank.hidden=16", "--out", out)
    assert code == 0, text
    data = symgnn.load_dataset("synthetic")
    users, items, _ = data.ratings("test")
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in zip(users, items)))
    code, text = run_cli("predict", "--model", out, "--pairs", pairs, "--out", tmp_path / "cli.csv")
    assert code == 0, text
    cli = np.loadtxt(tmp_path / "cli.csv", delimiter=",", skiprows=1, usecols=2)
    py = symgnn.load(out).predict(users, items)
    np.testing.assert_allclose(py, cli, atol=1e-6)
    exact = symgnn.Model(out).predict(users, items)
    np.testing.assert_allclose(py, exact, atol=1e-6)


def test_a_python_model_predicts_the_same_from_the_cli(fitted, tmp_path):
    model, out = fitted
    data = symgnn.load_dataset("synthetic")
    users, items, _ = data.ratings("test")
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in zip(users[:200], items[:200])))
    code, text = run_cli("predict", "--model", out, "--pairs", pairs, "--out", tmp_path / "p.csv")
    assert code == 0, text
    cli = np.loadtxt(tmp_path / "p.csv", delimiter=",", skiprows=1, usecols=2)
    np.testing.assert_allclose(model.predict(users[:200], items[:200]), cli, atol=1e-6)


def test_verbose_false_is_silent(capfd):
    symgnn.SyMGNN(**dict(FAST, train_epochs=2)).fit("synthetic")
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""


def test_an_existing_run_is_replaced_only_when_asked(tmp_path):
    out = tmp_path / "run"
    symgnn.SyMGNN(**FAST).fit("synthetic", out=out)
    with pytest.raises(symgnn.Error, match="already holds a run"):
        symgnn.SyMGNN(**FAST).fit("synthetic", out=out)
    again = symgnn.SyMGNN(**FAST).fit("synthetic", out=out, overwrite=True)
    assert again.metrics_["test_rmse"] > 0


def test_damaged_files_are_refused_naming_them(fitted, tmp_path):
    _, out = fitted
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    with open(copy / "metrics.json", "a") as f:
        f.write(" ")
    with pytest.raises(symgnn.DataError, match="metrics.json: checksum differs"):
        symgnn.load(copy)
    model = copy / "model.pt"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 1
    model.write_bytes(bytes(data))
    (copy / "metrics.json").unlink()
    # model.pt is the plain archive, its hash in the folder's checksums.sha256 (docs/export.md).
    with pytest.raises(symgnn.DataError, match="model.pt: checksum differs"):
        symgnn.load(copy)


def test_a_config_file_trains_the_model_kind_it_names(tmp_path):
    # configs/douban_base.conf says `model = base`: fit() trains a base model (it trained the
    # estimator's former default, lowrank, whatever the file said).
    conf = os.path.join(ROOT, "configs", "douban_base.conf")
    m = symgnn.SyMGNN(config=conf, train_epochs=2, train_runs=1, base_hidden=8, verbose=False, threads=1)
    m.fit("synthetic", out=tmp_path / "base")
    assert m.model_.config()["model"] == "base"
    assert m.metrics_["model"] == "base-full"
    # A named kind wins over the file's, and the variant goes to that kind's section.
    m = symgnn.SyMGNN(config=conf, model="lowrank", variant="G", train_epochs=2, train_runs=1,
                      lowrank_hidden=8, verbose=False, threads=1)
    assert "lowrank.variant = G" in m.config_text()
    # Kinds fitted in closed form go through the same call.
    pop = symgnn.SyMGNN(model="popularity", verbose=False).fit("synthetic", out=tmp_path / "pop")
    assert pop.metrics_["model"] == "popularity" and pop.metrics_["runs"][0]["run"] == 0
    with pytest.raises(symgnn.ConfigError, match="no variants"):
        symgnn.SyMGNN(model="popularity", variant="G").config_text()
    assert [k["name"] for k in symgnn._core.model_kinds()] == [
        "lowrank", "base", "sylvester", "baseline", "popularity", "itemknn", "ease", "elsa", "sylvester_binary"]


def test_the_bias_baseline_and_the_offset_from_python(tmp_path):
    # The baseline kind: a closed-form fit whose figures metrics_ holds, predicting the same
    # ratings as its saved directory; the offset is a parameter like any config key.
    b = symgnn.SyMGNN(model="baseline", baseline_folds=5, verbose=False).fit("synthetic", out=tmp_path / "b")
    assert b.metrics_["model"] == "baseline"
    figures = b.metrics_
    assert figures["user_shrinkage"] >= 0 and "cross-validation" in figures["chosen_by"]
    users, items, ratings = symgnn.load_dataset("synthetic").ratings("test")
    np.testing.assert_allclose(symgnn.load(str(tmp_path / "b")).predict(users, items), b.predict(users, items),
                               atol=1e-6)
    rmse = float(np.sqrt(np.mean((b.predict(users, items) - ratings) ** 2)))
    assert abs(rmse - b.metrics_["test_rmse"]) < 1e-4
    m = symgnn.SyMGNN(model="lowrank", lowrank_offset="baseline", lowrank_hidden=8, train_epochs=2,
                      train_runs=1, verbose=False, threads=1).fit("synthetic", out=tmp_path / "o")
    assert m.metrics_["model"].endswith("+offset")
    assert m.metrics_["baseline"]["test_rmse"] > 0


def test_scikit_learn_clone_grid_search_and_partial_fit_users():
    # Issue 66: where scikit-learn is installed (python3-sklearn), the estimator clones and
    # GridSearchCV maximises score (the negative RMSE) over fit(X, y).
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV, KFold
    import pandas as pd
    from test_dataframes_and_arguments import frame
    from conftest import FAST
    est = symgnn.SyMGNN(**dict(FAST, lowrank_hidden=12))
    copy = clone(est)
    assert copy is not est and copy.get_params() == est.get_params()
    df = frame()
    folds = KFold(2, shuffle=True, random_state=0)  # every user on both sides of each fold
    search = GridSearchCV(symgnn.SyMGNN(**FAST), {"lowrank_hidden": [8, 12]}, cv=folds, refit=False)
    search.fit(df[["user", "item"]], df["rating"])
    assert set(search.cv_results_["param_lowrank_hidden"]) == {8, 12}
    assert all(s < 0 for s in search.cv_results_["mean_test_score"])  # -RMSE
    # partial_fit_users keeps a new user's ratings: they then have lists and predictions.
    model = symgnn.SyMGNN(**FAST).fit(df)
    new = pd.DataFrame({"user": ["fresh"] * 3, "item": [0, 2, 4], "rating": [5.0, 5.0, 5.0]})
    assert model.partial_fit_users(new) is model
    assert "fresh" in model.model_.user_ids
    assert len(model.recommend("fresh", k=3)) == 3
    assert np.isfinite(model.predict("fresh", 1))
