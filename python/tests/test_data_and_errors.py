"""Datasets from every source and from arrays (string ids, scipy graphs, pandas), and
errors: Python exceptions carrying the command line's one-line message."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import symgnn
from conftest import FAST


def tastes(n_users=40, n_items=30, seed=3):
    """Two tastes: users 'u<k>' rate the items of their parity high."""
    rng = np.random.default_rng(seed)
    rows = [(f"user {u}", f"item-{i}", 5.0 if u % 2 == i % 2 else 1.0)
            for u in range(n_users) for i in range(n_items) if rng.random() < 0.5]
    return pd.DataFrame(rows, columns=["user", "item", "rating"])


def test_from_arrays_with_string_ids_and_scipy_graphs(tmp_path):
    df = tastes()
    test = df.sample(frac=0.1, random_state=1)
    train = df.drop(test.index)
    users = np.unique(train["user"].astype(str))
    n = len(users)
    # Same-taste ring over the sorted user ids.
    parity = np.array([int(u.split()[1]) % 2 for u in users])
    rows, cols = [], []
    for a in range(n):
        for b in range(n):
            if a != b and parity[a] == parity[b] and abs(a - b) <= 4:
                rows.append(a)
                cols.append(b)
    graph = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    feats = pd.DataFrame({"even": (parity == 0) * 1.0, "odd": (parity == 1) * 1.0}, index=users)
    ds = symgnn.Dataset.from_arrays(train["user"], train["item"], train["rating"], test=test,
                                    user_graph=graph, user_features=feats, path=tmp_path / "arrays")
    assert sorted(ds.user_ids) == sorted(users)
    assert ds.info["user_graph_edges"] == graph.nnz
    assert ds.info["user_feature_columns"] == 2
    tu, ti, tr = ds.ratings("test")
    assert len(tr) == len(test)
    model = symgnn.SyMGNN(**dict(FAST, train_epochs=30)).fit(ds)
    assert model.rmse(ds) < 2.0  # ratings are 1 or 5: the mean alone scores 2
    p = model.predict(["user 0", "user 1"], ["item-0", "item-0"])
    assert p.shape == (2,)
    # Without a path the arrays stay in memory; the same data and splits as their files.
    a = symgnn.Dataset.from_arrays(train["user"], train["item"], train["rating"], test=test,
                                   user_graph=graph, user_features=feats)
    assert a.in_memory and not ds.in_memory
    assert a.user_ids == ds.user_ids and a.info["user_graph_edges"] == graph.nnz
    for part in ("train", "validation", "test"):
        for x, y in zip(a.ratings(part), ds.ratings(part)):
            np.testing.assert_array_equal(x, y)


def test_every_source_the_cli_reads(tmp_path):
    assert len(symgnn.load_dataset("synthetic").user_ids) > 0
    csv = tmp_path / "r.csv"
    csv.write_text("user,item,rating\na,x,1\nb,y,2\na,y,3\nb,x,4\nc,x,5\nc,y,1\n")
    ds = symgnn.load_dataset(csv, val_fraction=0, test_fraction=0.2)
    assert set(ds.user_ids) == {"a", "b", "c"}


def test_bad_inputs_raise_the_right_exception_naming_the_file_or_argument(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.csv"):
        symgnn.load_dataset(tmp_path / "nowhere.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("user,item,rating\na,x,1\nb,y,oops\n")
    with pytest.raises(symgnn.DataError, match="bad.csv:3") as e:
        symgnn.load_dataset(bad)
    assert isinstance(e.value, ValueError) and isinstance(e.value, symgnn.Error)
    assert "\n" not in str(e.value)
    with pytest.raises(symgnn.ConfigError, match="differ in length"):
        symgnn.Dataset.from_arrays(["a", "b"], ["x"], [1.0, 2.0])
    with pytest.raises(symgnn.DataError, match="test.tsv"):
        ds = symgnn.Dataset.from_arrays(["a", "b"], ["x", "y"], [1.0, 2.0], test=(["zz"], ["x"], [1.0]),
                                        path=tmp_path / "unknown_test")
        ds.info  # noqa: B018
    with pytest.raises(symgnn.ConfigError, match="user_graph"):
        symgnn.Dataset.from_arrays(["a", "b"], ["x", "y"], [1.0, 2.0], user_graph=sp.eye(5))
    with pytest.raises(symgnn.ConfigError, match="split"):
        symgnn.SyMGNN(verbose=False).fit(symgnn.Dataset("synthetic", split="u9"))
    with pytest.raises(symgnn.MissingFileError):
        symgnn.load(tmp_path / "no_model")


def test_prediction_errors_name_the_id(fitted):
    model, _ = fitted
    with pytest.raises(symgnn.ConfigError, match="'nobody'"):
        model.predict(["nobody"], ["0"], unknown="error")
    with pytest.raises(ValueError, match="k must be at least 1"):
        model.recommend("0", k=0)
    # Fewer candidates than k: every candidate, and a warning saying so (not an error).
    with pytest.warns(UserWarning, match="fewer than k = 100000: the list holds"):
        everything = model.recommend("0", k=100000)
    assert len(everything) == everything.attrs["short_lists"]["0"] > 0
    with pytest.raises(symgnn.ConfigError, match="not fitted"):
        symgnn.SyMGNN().predict(["0"], ["0"])


def test_the_benchmark_sources_when_present():
    import os

    root = os.environ.get("SYMGNN_DATA_DIR") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "..", "shared", "data")
    ml100k, douban = os.path.join(root, "ml-100k"), os.path.join(root, "monti", "douban.mat")
    if not (os.path.isdir(ml100k) and os.path.exists(douban)):
        pytest.skip(f"benchmark data absent under {root} (set SYMGNN_DATA_DIR)")
    ml = symgnn.load_dataset(ml100k, split="u2", val_fraction=0)
    assert len(ml.user_ids) == 943 and len(ml.ratings("test")[2]) == 20000
    assert ml.info["user_feature_columns"] > 0
    d = symgnn.load_dataset(douban)
    assert len(d.user_ids) == 3000 and d.info["user_graph_edges"] > 0
