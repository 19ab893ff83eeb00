"""Issue 63, item 3: interactions as people have them. A frame of user and item columns (or
rating_col=None) is implicit feedback, a scipy.sparse matrix of counts takes
feedback='counts'; the kinds that rank are trained, no rating is predicted."""

import numpy as np
import pandas as pd
import pytest

import symgnn
from conftest import FAST
from test_dataframes_and_arguments import frame


def clicks():
    """The two tastes' liked pairs (rating 5) as a click log: user, item columns only."""
    df = frame(n_users=40, n_items=30)
    return df.loc[df["rating"] == 5, ["user", "item"]].reset_index(drop=True)


def test_a_frame_of_pairs_is_implicit_and_ranks_without_ratings():
    log = clicks()
    model = symgnn.SyMGNN(**FAST).fit(log)
    assert model.model_.feedback == "implicit"
    assert model.metrics_["test_ndcg@10"] > 0
    assert model.metrics_.get("test_rmse") is None
    user = log["user"].iloc[0]
    listed = model.recommend(user, k=5)
    assert len(listed) == 5 and not set(log.loc[log["user"] == user, "item"]) & set(listed["item"])
    # No rating is predicted from clicks: the lists carry none, as symgnn recommend writes none.
    assert list(listed.columns) == ["user", "item", "rank"]
    assert list(model.model_.rank(user, list(listed["item"]))["rank"]) == [1, 2, 3, 4, 5]
    for call in (lambda: model.predict(user, log["item"].iloc[0]), lambda: model.score(frame())):
        with pytest.raises(symgnn.ConfigError, match="predicts no rating"):
            call()
    # Repeated clicks are one interaction; rating_col=None reads a frame with more columns so.
    doubled = pd.concat([log, log.iloc[:10]]).assign(when=1)
    again = symgnn.SyMGNN(**FAST).fit(doubled, rating_col=None)
    data = again.metrics_["dataset"]
    assert data["train"] + data["validation"] + data["test"] == len(log)


def test_a_sparse_matrix_of_counts_weights_its_entries():
    sparse = pytest.importorskip("scipy.sparse")
    log = clicks()
    users, items = np.unique(log["user"]), np.unique(log["item"])
    rows, cols = np.searchsorted(users, log["user"]), np.searchsorted(items, log["item"])
    counts = sparse.csr_matrix((np.arange(1, len(log) + 1, dtype=float), (rows, cols)), shape=(len(users), len(items)))
    model = symgnn.SyMGNN(model="popularity", train_ranker="none", verbose=False, threads=1).fit(
        counts, user_ids=users, item_ids=items, feedback="counts", holdout=0)
    assert model.model_.feedback == "counts"
    # Popularity sums log(1 + count) over each item's users.
    coo = counts.tocoo()
    weight = np.zeros(len(items))
    np.add.at(weight, coo.col, np.log1p(coo.data))
    newcomer_top = model.recommend(users[0], k=len(items) - int((rows == 0).sum()))["item"].tolist()
    expected = [str(items[j]) for j in np.argsort(-weight, kind="stable") if j not in set(cols[rows == 0])]
    assert newcomer_top[:3] == expected[:3]
    with pytest.raises(symgnn.ConfigError, match="feedback="):
        symgnn.SyMGNN(**FAST).fit(counts, feedback="clicks")


def test_a_new_users_clicks_are_item_ids_and_rank_as_a_trained_users():
    log = clicks()
    model = symgnn.SyMGNN(**FAST, train_ranker="ease", ease_lambdas="50").fit(log, holdout=0)
    user = log["user"].iloc[0]
    theirs = model.recommend(user, k=5)["item"].tolist()
    clicked = log.loc[log["user"] == user, "item"].tolist()
    # A list of item ids (a click each), as implicit's recalculate_user takes a user's row.
    assert model.recommend_new_user(clicked, k=5)["item"].tolist() == theirs
    # Several newcomers at once: (user, item) pairs or a frame without a rating column.
    grown = model.model_.with_new_ratings([("a", i) for i in clicked])
    assert grown.recommend("a", k=5)["item"].tolist() == theirs
    model.partial_fit_users(pd.DataFrame({"user": "b", "item": clicked}))
    assert model.recommend("b", k=5)["item"].tolist() == theirs
