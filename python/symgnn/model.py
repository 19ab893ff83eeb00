"""A trained model directory (written by `symgnn train --out` or SyMGNN.fit): prediction,
recommendation and evaluation by original ids, through symgnn/trained_model.h."""

import json
import os

import numpy as np

from . import _core
from ._errors import ConfigError, MissingFileError


class Model:
    """A model directory loaded for prediction.

    new_ratings, new_user_graph, new_item_graph, new_user_features, new_item_features:
    files describing users or items absent from training (docs/recommend.md, "New users").
    verbose: False silences the notes of loading the model's data.
    """

    def __init__(self, path, device="cpu", new_ratings=None, new_user_graph=None, new_item_graph=None,
                 new_user_features=None, new_item_features=None, verbose=True):
        path = os.fspath(path)
        if not os.path.exists(path):
            raise MissingFileError(f"{path}: no such model directory")
        files = [new_ratings, new_user_graph, new_item_graph, new_user_features, new_item_features]
        for f in files:
            if f and not os.path.exists(f):
                raise MissingFileError(f"{f}: no such file")
        self.path = path
        self._m = _core.TrainedModel(path, device, *[os.fspath(f) if f else "" for f in files], bool(verbose))
        self._users = {u: k for k, u in enumerate(self._m.user_ids())}
        self._items = {i: k for k, i in enumerate(self._m.item_ids())}

    @property
    def name(self):
        return self._m.name

    @property
    def user_ids(self):
        return self._m.user_ids()

    @property
    def item_ids(self):
        return self._m.item_ids()

    def config(self):
        """The model's configuration as a dict of 'section.key' -> text value."""
        out = {}
        for line in self._m.config_text().splitlines():
            if "=" in line and not line.lstrip().startswith("#"):
                k, v = line.split("=", 1)
                out[k.strip()] = v.split("#", 1)[0].strip()
        return out

    def _index(self, ids, table, what):
        out = np.empty(len(ids), dtype=np.int64)
        for k, v in enumerate(ids):
            key = str(v)
            if key not in table:
                raise ConfigError(f"unknown {what} id {key!r} (not in the model's data; see new_ratings)")
            out[k] = table[key]
        return out

    def predict(self, users, items=None):
        """Predicted ratings, clipped to the rating range, of the pairs (users[k], items[k]).
        `users` may also be a DataFrame with columns user and item, or (user, item) pairs."""
        users, items = _pairs(users, items)
        u = self._index(users, self._users, "user")
        i = self._index(items, self._items, "item")
        return self._m.predict(u, i).astype(np.float64)

    def recommend(self, users, k=10, exclude_seen=True):
        """The k items with the highest predicted rating for each user: a pandas DataFrame with
        columns user, item, prediction, rank (a list of tuples without pandas)."""
        if np.isscalar(users) or isinstance(users, str):
            users = [users]
        if k is None or int(k) < 1:
            raise ConfigError(f"k must be at least 1, got {k!r}")
        idx = self._index(list(users), self._users, "user")
        rows = []
        uid, iid = self._m.user_ids(), self._m.item_ids()
        for u, items, scores in self._m.recommend(idx, int(k), not exclude_seen):
            rows += [(uid[u], iid[i], float(s), r + 1) for r, (i, s) in enumerate(zip(items, scores))]
        try:
            import pandas as pd
        except ImportError:
            return rows
        return pd.DataFrame(rows, columns=["user", "item", "prediction", "rank"])

    def evaluate(self, k=(5, 10, 20), relevant_min=None, popularity=False):
        """RMSE, MAE and the ranking metrics at each k on the model's test ratings
        (docs/recommend.md states the rules), as a dict."""
        ks = [int(x) for x in (k if isinstance(k, (list, tuple)) else [k])]
        if any(x < 1 for x in ks):
            raise ConfigError(f"k must be at least 1, got {ks}")
        rel = float("nan") if relevant_min is None else float(relevant_min)
        return json.loads(self._m.evaluate(ks, rel, popularity))

    def new_nodes(self):
        """What the new_* files added: ratings, new users and items, graph entries, feature rows."""
        return self._m.new_nodes()


def _pairs(users, items):
    if items is None:
        if hasattr(users, "columns"):
            return list(users["user"]), list(users["item"])
        pairs = list(users)
        return [p[0] for p in pairs], [p[1] for p in pairs]
    users, items = list(users), list(items)
    if len(users) != len(items):
        raise ConfigError(f"users and items differ in length ({len(users)} and {len(items)})")
    return users, items
