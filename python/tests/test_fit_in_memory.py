"""fit from arrays in memory (issue 44): the arrays pass to the C++ loader as rows
(include/symgnn/data_rows.h) and the fitted model stays in memory, so no file is written
anywhere; the fit equals the fit on files holding the same arrays, seed for seed; the model
kept in memory saves, pickles and grows by new users like one read from a directory."""

import os
import pickle
import tempfile

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import symgnn
from conftest import FAST


def arrays(seed=3):
    """Two tastes over string ids, a user graph over the sorted user ids, item features, and
    an explicit test set."""
    rng = np.random.default_rng(seed)
    rows = [(f"user {u}", f"item-{i}", 5.0 if u % 2 == i % 2 else 1.0)
            for u in range(40) for i in range(30) if rng.random() < 0.5]
    df = pd.DataFrame(rows, columns=["user", "item", "rating"])
    test = df.sample(frac=0.1, random_state=1)
    train = df.drop(test.index)
    users = np.unique(train["user"].astype(str))
    parity = np.array([int(u.split()[1]) % 2 for u in users])
    r, c = [], []
    for a in range(len(users)):
        for b in range(len(users)):
            if a != b and parity[a] == parity[b] and abs(a - b) <= 4:
                r.append(a)
                c.append(b)
    graph = sp.csr_matrix((np.full(len(r), 0.5), (r, c)), shape=(len(users), len(users)))
    items = np.unique(train["item"].astype(str))
    feats = pd.DataFrame({"even": [int(i.split("-")[1]) % 2 == 0 for i in items], "x": np.linspace(0, 1, len(items))},
                         index=items).astype(float)
    return dict(users=train["user"], items=train["item"], ratings=train["rating"], test=test, user_graph=graph,
                item_features=feats)


def files_under(*folders):
    """Every file under `folders` (relative paths), for the before / after comparison."""
    out = set()
    for folder in folders:
        for root, _, names in os.walk(folder):
            out.update(os.path.relpath(os.path.join(root, n), folder) for n in names)
    return out


def test_fit_from_arrays_writes_no_file_and_equals_the_fit_on_their_files(tmp_path, monkeypatch):
    watched = [tmp_path / "tmp", tmp_path / "home", tmp_path / "cache", tmp_path / "cwd"]
    for w in watched:
        w.mkdir()
    # Every place a file could go: the temporary folder (for Python and C++), the cache and
    # home the package used for arrays before, the working directory.
    monkeypatch.setenv("TMPDIR", str(watched[0]))
    monkeypatch.setattr(tempfile, "tempdir", str(watched[0]))
    monkeypatch.setenv("HOME", str(watched[1]))
    monkeypatch.setenv("SYMGNN_CACHE", str(watched[2]))
    monkeypatch.chdir(watched[3])

    def no_temporary(*args, **kwargs):
        raise AssertionError("fit from arrays made a temporary file or folder")

    for name in ("mkdtemp", "mkstemp", "TemporaryDirectory", "NamedTemporaryFile", "TemporaryFile"):
        monkeypatch.setattr(tempfile, name, no_temporary)

    a = arrays()
    data = symgnn.Dataset.from_arrays(**a)
    assert data.in_memory and data.info["user_graph_edges"] > 0 and data.info["item_feature_columns"] == 2
    model = symgnn.SyMGNN(**dict(FAST, train_epochs=12)).fit(data)
    assert model.path_ is None and model.model_.path is None
    assert model.metrics_["test_rmse"] > 0
    users, items, ratings = data.ratings("test")
    in_memory = model.predict(users, items)
    assert model.rmse(data) < 2.0  # ratings are 1 or 5: the mean alone scores 2
    frame_model = symgnn.SyMGNN(**FAST).fit(pd.DataFrame({"user": a["users"], "item": a["items"],
                                                          "rating": a["ratings"]}))
    assert frame_model.model_.config()["data.source"] == "arrays"
    assert files_under(*watched) == set()
    monkeypatch.undo()

    # The same arrays as files (from_arrays with a path): the same data, splits and fit.
    on_files = symgnn.Dataset.from_arrays(**a, path=tmp_path / "files")
    assert not on_files.in_memory and os.path.exists(tmp_path / "files" / "ratings.tsv")
    assert on_files.user_ids == data.user_ids and on_files.item_ids == data.item_ids
    for part in ("train", "validation", "test"):
        for x, y in zip(on_files.ratings(part), data.ratings(part)):
            np.testing.assert_array_equal(x, y)
    again = symgnn.SyMGNN(**dict(FAST, train_epochs=12)).fit(on_files)
    np.testing.assert_allclose(again.predict(users, items), in_memory, atol=1e-6)
    assert abs(again.metrics_["test_rmse"] - model.metrics_["test_rmse"]) < 1e-6
    pd.testing.assert_frame_equal(again.recommend(users[:3], k=5), model.recommend(users[:3], k=5))
    # A DataFrame is from_arrays of its columns: held in memory, split as its files would be.
    frame_files = symgnn.Dataset.from_arrays(a["users"], a["items"], a["ratings"], path=tmp_path / "frame")
    fu, fi, _ = frame_files.ratings("test")
    np.testing.assert_allclose(symgnn.SyMGNN(**FAST).fit(frame_files).predict(fu, fi), frame_model.predict(fu, fi),
                               atol=1e-6)


def test_a_model_kept_in_memory_saves_pickles_and_takes_new_users(tmp_path):
    data = symgnn.Dataset.from_arrays(**arrays())
    model = symgnn.SyMGNN(**FAST).fit(data)
    users, items, _ = data.ratings("test")
    before = model.predict(users, items)
    # save() writes the model in memory as a model directory, which loads to the same model
    # and which the command line reads.
    saved = model.save(tmp_path / "saved")
    assert {"model.pt", "dataset.bin", "config.txt", "metrics.json"} <= set(os.listdir(saved))
    loaded = symgnn.load(saved, verbose=False)
    np.testing.assert_array_equal(loaded.predict(users, items), before)
    assert loaded.metrics_ == model.metrics_
    with pytest.raises(symgnn.ConfigError, match="exists"):
        model.save(saved)
    # Pickled as the directory it would write; the copy answers the same.
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.predict(users, items), before)
    pd.testing.assert_frame_equal(copy.recommend(users[:2], k=4), model.recommend(users[:2], k=4))
    # New users in memory, grown from the model as fitted, as from its directory.
    mine = {items[0]: 5.0, items[1]: 1.0}
    pd.testing.assert_frame_equal(model.recommend_new_user(mine, k=5, user="me"),
                                  loaded.recommend_new_user(mine, k=5, user="me"))
    grown = model.with_new_ratings([("ann", items[0], 5.0), ("ann", items[2], 1.0)])
    twice = grown.with_new_ratings([("bob", items[3], 5.0)])  # from the model as fitted again
    assert "ann" not in twice.user_ids and "bob" in twice.user_ids
    pd.testing.assert_frame_equal(pickle.loads(pickle.dumps(grown)).recommend("ann", k=3), grown.recommend("ann", k=3))
    # With `out`, fit writes the directory and keeps the same model in memory.
    written = symgnn.SyMGNN(**FAST).fit(data, out=tmp_path / "out")
    assert written.path_ == str(tmp_path / "out") and os.path.exists(tmp_path / "out" / "metrics.json")
    np.testing.assert_array_equal(written.predict(users, items), before)
    np.testing.assert_array_equal(symgnn.load(tmp_path / "out", verbose=False).predict(users, items), before)
