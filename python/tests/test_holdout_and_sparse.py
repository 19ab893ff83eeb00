"""Issue 66, item 1: fit(..., holdout=0) trains on every rating given; fit(scipy.sparse
matrix, user_ids, item_ids) reads the stored entries as ratings, as implicit takes its data."""

import numpy as np
import pytest

import symgnn
from conftest import FAST
from test_dataframes_and_arguments import frame


def test_holdout_zero_trains_on_every_rating_and_reports_no_test():
    df = frame()
    model = symgnn.SyMGNN(**FAST).fit(df, holdout=0)
    data = model.metrics_["dataset"]
    assert data["test"] == 0 and data["train"] + data["validation"] == len(df), data
    assert model.metrics_["test_rmse"] is None and model.metrics_["val_rmse"] > 0
    # Every rating is the model's: each (user, item) given is a seen pair.
    rated = set(df.loc[df["user"] == df["user"].iloc[0], "item"])
    unrated = df["item"].nunique() - len(rated)
    listed = model.recommend(df["user"].iloc[0], k=unrated)
    assert len(listed) == unrated and not rated & set(listed["item"])


def test_holdout_fraction_holds_that_share_out():
    df = frame()
    a = symgnn.SyMGNN(**FAST).fit(df, holdout=0.2)
    data = a.metrics_["dataset"]
    assert data["test"] == round(0.2 * len(df)) and data["train"] + data["validation"] + data["test"] == len(df)
    assert a.metrics_["test_rmse"] > 0


def test_holdout_is_refused_where_the_data_give_their_test(tmp_path):
    (tmp_path / "u.data").write_text("")  # a MovieLens-100K folder: its splits are its own
    with pytest.raises(symgnn.ConfigError, match="give their own test"):
        symgnn.SyMGNN(**FAST).fit(symgnn.Dataset(str(tmp_path)), holdout=0)
    df = frame()
    ds = symgnn.Dataset.from_arrays(df["user"], df["item"], df["rating"], test=df.iloc[:5])
    with pytest.raises(symgnn.ConfigError, match="give their own test"):
        symgnn.SyMGNN(**FAST).fit(ds, holdout=0)
    with pytest.raises(symgnn.ConfigError, match="holds out by time"):
        symgnn.SyMGNN(**FAST).fit(symgnn.Dataset(ds.source, split="temporal"), holdout=0)
    for bad in (-0.1, 0.95, "0", True):
        with pytest.raises(symgnn.ConfigError, match="holdout="):
            symgnn.SyMGNN(**FAST).fit(df, holdout=bad)


def test_a_sparse_matrix_fits_as_the_frame_of_its_entries():
    sparse = pytest.importorskip("scipy.sparse")
    df = frame()
    users, items = np.unique(df["user"]), np.unique(df["item"])
    rows, cols = np.searchsorted(users, df["user"]), np.searchsorted(items, df["item"])
    matrix = sparse.csr_matrix((df["rating"].to_numpy(float), (rows, cols)), shape=(len(users), len(items)))
    coo = matrix.tocoo()
    ordered = symgnn.Dataset.from_arrays(users[coo.row], items[coo.col], coo.data)
    a = symgnn.SyMGNN(**FAST).fit(matrix, user_ids=users, item_ids=items)
    b = symgnn.SyMGNN(**FAST).fit(ordered)
    pairs = (list(users[:5]), list(items[:5]))
    np.testing.assert_allclose(a.predict(*pairs), b.predict(*pairs), atol=1e-6)
    # Without ids the rows and columns are named by their index.
    c = symgnn.SyMGNN(**FAST).fit(matrix.tocsc())
    assert set(c.model_.user_ids) == {str(r) for r in range(len(users)) if matrix[r].nnz}


def test_bad_sparse_input_names_the_problem():
    sparse = pytest.importorskip("scipy.sparse")
    m = sparse.csr_matrix(np.array([[5.0, 0, 3], [0, 4, 0]]))
    with pytest.raises(symgnn.DataError, match="user_ids: 3 ids for the matrix's 2 rows"):
        symgnn.SyMGNN(**FAST).fit(m, user_ids=["a", "b", "c"])
    with pytest.raises(symgnn.DataError, match="item_ids: the ids repeat"):
        symgnn.SyMGNN(**FAST).fit(m, item_ids=["x", "x", "y"])
    with pytest.raises(symgnn.DataError, match="stores no entries"):
        symgnn.SyMGNN(**FAST).fit(sparse.csr_matrix((2, 3)))
    with pytest.raises(symgnn.ConfigError, match="scipy.sparse"):
        symgnn.SyMGNN(**FAST).fit(frame(), user_ids=["a"])
