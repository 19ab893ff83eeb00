"""A trained model directory (written by `symgnn train --out` or SyMGNN.fit): prediction,
recommendation, similar nodes and evaluation by original ids, through
symgnn/trained_model.h."""

import json
import os
import tempfile
import warnings

import numpy as np

from . import _args, _core, _frames, _new_ratings, _snapshot
from ._errors import ConfigError, MissingFileError

_NEW_FILES = ("new_user_graph", "new_item_graph", "new_user_features", "new_item_features")


# How predict() rates a pair naming an id the model does not know (infer/unseen_test.h).
UNKNOWN_POLICIES = ("known-mean", "item-mean", "user-mean", "global-mean", "error")

class Model:
    """A model directory loaded for prediction.

    new_ratings: ratings of users or items absent from training (docs/recommend.md, "New
    users"): a file path, or in memory a DataFrame with columns user, item, rating or a
    list of (user, item, rating) triples.
    new_user_graph, new_item_graph, new_user_features, new_item_features: files describing
    those new users or items.
    verbose: False silences the notes of loading the model's data.

    A Model pickles: the copy holds the directory's files and loads them from a temporary
    directory of its own (the data source must still be where the model trained on it).
    A model SyMGNN.fit() kept in memory without writing a directory has path None; it
    pickles as the directory it would write.
    """

    def __init__(self, path, device="cpu", new_ratings=None, new_user_graph=None, new_item_graph=None,
                 new_user_features=None, new_item_features=None, verbose=True):
        path = _args.path(path, "path")
        device = _args.text(device, "device")
        if not os.path.exists(path):
            raise MissingFileError(f"{path}: no such model directory")
        files = dict(zip(_NEW_FILES, (new_user_graph, new_item_graph, new_user_features, new_item_features)))
        files = {k: _args.path(f, k) for k, f in files.items() if f is not None and f != ""}
        in_memory = new_ratings is not None and not isinstance(new_ratings, (str, os.PathLike))
        if new_ratings is not None and not in_memory:
            files["new_ratings"] = _args.path(new_ratings, "new_ratings")
        for f in files.values():
            if not os.path.exists(f):
                raise MissingFileError(f"{f}: no such file")
        self.path, self.device, self.verbose = path, device, bool(verbose)
        self._owner = None  # the temporary directory of an unpickled copy
        self._base = None  # a model fitted in memory (path None): the core model as fitted
        rows = _new_ratings.rows(*_frames.triples(new_ratings, "new_ratings"), "new_ratings") if in_memory else []
        self._load(files, rows, "new_ratings")

    @classmethod
    def _of_core(cls, core_model, path=None, device="cpu", verbose=True):
        """A Model of a core model held in memory (what fit evaluated); `path`: the model
        directory fit wrote (None: none, the model lives in memory only)."""
        model = cls.__new__(cls)
        model.path, model.device, model.verbose, model._owner = path, device, bool(verbose), None
        model._base = core_model if path is None else None
        model._adopt(core_model, {})
        return model

    def _save(self, path, metrics_json=""):
        """Writes this model, as fitted, as a model directory at `path` (include/symgnn/model_dir.h)."""
        (self._base or self._m).save(path, metrics_json)

    def _load(self, files, rows=(), rows_name="new ratings", edges=(), features=()):
        if getattr(self, "_base", None) is not None:  # in memory: grown from the model as fitted
            core = self._base.with_new_ratings(list(rows), rows_name, list(edges), list(features)) \
                if rows else self._base
            self._adopt(core, files, rows, rows_name, edges, features)
            return
        args = [files.get(k, "") for k in ("new_ratings",) + _NEW_FILES]
        # The graph journal's records as this load replayed them (counted before and after,
        # loaded again while another writer appended): edit_graph refuses a batch where the
        # journal has grown since (src/infer/graph_journal.h).
        for _ in range(9):
            before = _core.graph_journal_records(self.path)
            core = _core.TrainedModel(self.path, self.device, *args, list(rows), rows_name, self.verbose,
                                      list(edges), list(features))
            self._journal_records = _core.graph_journal_records(self.path)
            if self._journal_records == before:
                break
        self._adopt(core, files, rows, rows_name, edges, features)

    def _adopt(self, core_model, files, rows=(), rows_name="new ratings", edges=(), features=()):
        self._m = core_model
        # Kept for pickling: the new nodes' files (which may change later) and rows.
        self._new_files = {}
        for key, f in files.items():
            with open(f, "rb") as fh:
                self._new_files[key] = (os.path.basename(f), fh.read())
        self._new_rows = (list(rows), rows_name, list(edges), list(features))
        self._user_ids, self._item_ids = self._m.user_ids(), self._m.item_ids()
        self._users = {u: k for k, u in enumerate(self._user_ids)}
        self._items = {i: k for k, i in enumerate(self._item_ids)}

    def __getstate__(self):
        if self.path is None:  # in memory: the directory it would write
            with tempfile.TemporaryDirectory(prefix="symgnn-") as tmp:
                folder = os.path.join(tmp, "model")
                self._save(folder)
                files = _snapshot.read(folder)
            return {"files": files, "model_file": None, "device": self.device, "verbose": self.verbose,
                    "new_files": self._new_files, "new_rows": self._new_rows}
        folder, name = (self.path, None) if os.path.isdir(self.path) else os.path.split(self.path)
        return {"files": _snapshot.read(folder), "model_file": name, "device": self.device,
                "verbose": self.verbose, "new_files": self._new_files, "new_rows": self._new_rows}

    def __setstate__(self, state):
        owner, folder = _snapshot.write(state["files"])
        self.path = folder if state["model_file"] is None else os.path.join(folder, state["model_file"])
        self.device, self.verbose = state["device"], state["verbose"]
        self._base = None
        files = {}
        for key, (name, data) in state["new_files"].items():
            files[key] = os.path.join(owner.name, f"{key}-{name}")
            with open(files[key], "wb") as f:
                f.write(data)
        self._load(files, *state.get("new_rows", ((), "new ratings")))
        self._owner = owner

    @property
    def name(self):
        return self._m.name

    @property
    def user_ids(self):
        return list(self._user_ids)

    @property
    def item_ids(self):
        return list(self._item_ids)

    @property
    def feedback(self):
        """What the training values were (data.feedback): 'ratings', 'implicit' or 'counts'."""
        # Read once: predict asks on every call, and the config is parsed from its text.
        if self.__dict__.get("_feedback") is None:
            self._feedback = self.config().get("data.feedback", "ratings").replace("auto", "ratings")
        return self._feedback

    def _refuse_interactions(self, what):
        if self.feedback != "ratings":
            raise ConfigError(f"{what}: the model was trained on interactions (data.feedback = {self.feedback}): "
                              "it ranks items and predicts no rating; use recommend() or rank()")

    def config(self):
        """The model's configuration as a dict of 'section.key' -> text value."""
        out = {}
        for line in self._m.config_text().splitlines():
            if "=" in line and not line.lstrip().startswith("#"):
                k, v = line.split("=", 1)
                out[k.strip()] = v.split("#", 1)[0].strip()
        return out

    def _index(self, ids, table, what, missing=None):
        """Indices of `ids` in `table`; an id not there is `missing`, or a ConfigError where
        missing is None."""
        out = np.empty(len(ids), dtype=np.int64)
        for k, v in enumerate(ids):
            key = str(v)
            if key not in table:
                if missing is not None:
                    out[k] = missing
                    continue
                raise ConfigError(f"unknown {what} id {key!r} (not in the model's data; see new_ratings, "
                                  f"or predict(..., unknown='known-mean'))")
            out[k] = table[key]
        return out

    def predict(self, users, items=None, unknown="known-mean"):
        """Predicted ratings, clipped to the rating range, of the pairs (users[k], items[k]).
        `users` may also be a DataFrame with columns user and item, or (user, item) pairs.
        One user id and one item id: that pair's rating, a float. One id against a list: that
        id with each (predict("1", ["50", "172"]) predicts two items for user 1).
        unknown: a pair naming an id not in the model's data is rated as `symgnn evaluate`
        rates such test ratings (data.unknown_test): 'known-mean' (the item's mean training
        rating, else the user's, else the global mean; a warning says how many), 'item-mean',
        'user-mean', 'global-mean'; or 'error' to refuse them (ConfigError)."""
        unknown = _args.text(unknown, "unknown")
        if unknown not in UNKNOWN_POLICIES:
            raise ConfigError(f"unknown={unknown!r}: must be one of {', '.join(UNKNOWN_POLICIES)}")
        self._refuse_interactions("predict")
        users, items, one = _pairs(users, items, "predict")
        if unknown == "error":
            u = self._index(users, self._users, "user")
            i = self._index(items, self._items, "item")
            p = self._m.predict(u, i).astype(np.float64)
            return float(p[0]) if one else p
        u = self._index(users, self._users, "user", missing=-1)
        i = self._index(items, self._items, "item", missing=-1)
        known = (u >= 0) & (i >= 0)
        p = np.empty(len(u), dtype=np.float64)
        if known.any():
            p[known] = self._m.predict(u[known], i[known]).astype(np.float64)
        if not known.all():
            p[~known] = self._m.fallback(u[~known], i[~known], unknown).astype(np.float64)
            warnings.warn(f"predict: {int((~known).sum())} of {len(u)} pairs name a user or item id not in the "
                          f"model's data; rated by {unknown} (unknown='error' refuses them)", stacklevel=2)
        return float(p[0]) if one else p

    def _list_table(self, rows):
        """A list's (user, item, prediction, rank) rows as a table. A model of interactions
        predicts no rating, so its lists have no prediction column, as `symgnn recommend`
        writes none (user, item, rank)."""
        if self.feedback == "ratings":
            return _table(rows, ["user", "item", "prediction", "rank"])
        return _table([(u, i, r) for u, i, _, r in rows], ["user", "item", "rank"])

    def recommend(self, users, k=10, exclude_seen=True, exclude=None, items=None, where=None,
                  item_attributes=None):
        """The k items with the highest predicted rating for each user (one id or several): a
        pandas DataFrame with columns user, item, prediction, rank (a list of tuples without
        pandas; no prediction column for a model of interactions, which predicts no rating).
        Filters (docs/recommend.md, "Filters"; the CLI's --exclude, --items, --where):
        `exclude` item ids never shown (a list), or a dict user -> item ids; `items` the
        candidate ids; `where` a dict key -> value the item's attributes must hold, read from
        `item_attributes` (a file as the CLI's --item-attributes). k items a user, or every
        candidate where fewer are left (a warning says whose list is shorter and why; with
        pandas, the frame's attrs["short_lists"] maps those users to their count); a user
        without any candidate is a symgnn.ConfigError."""
        k = _args.count(k)
        idx = self._index(_args.id_list(users, "recommend: users"), self._users, "user")
        exclude_all, exclude_for = [], []
        if isinstance(exclude, dict):
            exclude_for = [(str(u), str(i)) for u, ids in exclude.items() for i in _args.id_list(ids, "exclude")]
        elif exclude is not None:
            exclude_all = [str(i) for i in _args.id_list(exclude, "exclude")]
        candidates = [] if items is None else [str(i) for i in _args.id_list(items, "items")]
        if where is not None and not isinstance(where, dict):
            raise ConfigError(f"where must be a dict key -> value, got {type(where).__name__}")
        rules = [(str(key), str(value)) for key, value in (where or {}).items()]
        attributes = "" if item_attributes is None else _args.path(item_attributes, "item_attributes")
        rows, short = [], {}
        for u, ranked, scores, note in self._m.recommend(idx, k, not _args.flag(exclude_seen, "exclude_seen"),
                                                         exclude_all, exclude_for, items is not None, candidates,
                                                         rules, attributes):
            rows += [(self._user_ids[u], self._item_ids[i], float(s), r + 1)
                     for r, (i, s) in enumerate(zip(ranked, scores))]
            if note:
                short[self._user_ids[u]] = len(ranked)
                warnings.warn("recommend: " + note, stacklevel=2)
        table = self._list_table(rows)
        if hasattr(table, "attrs"):
            table.attrs["short_lists"] = short
        return table

    def rank(self, user, items):
        """The candidate `items` of one user in the model's order, best first (the second stage
        of a two-stage recommender; the CLI's `symgnn rank`): a DataFrame with columns user,
        item, prediction, rank. Every candidate is ranked, rated ones included."""
        u = self._index([user], self._users, "user")[0]
        idx = self._index(_args.id_list(items, "rank: items"), self._items, "item")
        ranked, scores = self._m.rank(int(u), [int(i) for i in idx])
        rows = [(str(user), self._item_ids[i], float(s), r + 1) for r, (i, s) in enumerate(zip(ranked, scores))]
        return self._list_table(rows)

    def edit_graph(self, edits):
        """Adds or removes user-user or item-item edges without retraining (the CLI's
        `symgnn graph edit`, docs/graph_edits.md): `edits` a list of dicts {"side": "user" or
        "item", "op": "add" or "remove", "a": ID, "b": ID, "weight": 1.0, "create": False} or
        tuples (side, op, a, b[, weight]). With "create": True an end of an added edge that is no
        node of its side becomes a new user or item joining by its edges alone (no ratings; its
        side features "features": [...] where the model has them, for the end a it creates):
        similar_items finds it, and lists where the model ranks it high. Every node's
        representation is recomputed from the trained weights on the edited graphs, and this
        model answers from them at once. Where the model has a
        directory, the batch is journalled there too (graph_journal.jsonl), so every later load
        of it, pickling included, sees the same graphs. The batch is checked whole first: a
        bad edit raises symgnn.ConfigError naming it, and nothing changes."""
        if not isinstance(edits, (list, tuple)):
            raise ConfigError(f"edit_graph: edits must be a list, got {type(edits).__name__}")
        rows = []
        for k, e in enumerate(edits):
            if isinstance(e, dict):
                unknown = set(e) - {"side", "op", "a", "b", "weight", "create", "features"}
                if unknown:
                    raise ConfigError(
                        f"edits[{k}]: unknown key {sorted(unknown)[0]!r} (side, op, a, b, weight, create, features)")
                create = e.get("create", False)
                if not isinstance(create, bool):
                    raise ConfigError(f"edits[{k}].create: must be True or False")
                e = (e.get("side"), e.get("op", "add"), e.get("a"), e.get("b"), e.get("weight", 1.0), create,
                     e.get("features", []))
            if not isinstance(e, (tuple, list)) or len(e) not in (4, 5, 6, 7) or any(x is None for x in e[:4]):
                raise ConfigError(f"edits[{k}]: must be (side, op, a, b[, weight]) or a dict of those")
            weight = _args.number(e[4] if len(e) >= 5 else 1.0, f"edits[{k}].weight")
            features = [_args.number(v, f"edits[{k}].features") for v in (e[6] if len(e) == 7 else [])]
            rows.append((str(e[0]), str(e[1]), str(e[2]), str(e[3]), weight, bool(e[5]) if len(e) >= 6 else False,
                         features))
        if not rows:
            raise ConfigError("edit_graph: no edit given")
        edited = self._m.edit_graph(rows)
        if getattr(self, "_base", None) is not None:  # in memory: what save, pickling and growing start from
            self._base = edited if self._base is self._m else self._base.edit_graph(rows)
        if self.path is not None:
            self._journal_records = _core.append_graph_journal(self.path, rows,
                                                               getattr(self, "_journal_records", -1))
        self._m = edited
        if edited.users != len(self._user_ids) or edited.items != len(self._item_ids):
            # Nodes the batch created: their ids join the indexes.
            self._user_ids, self._item_ids = self._m.user_ids(), self._m.item_ids()
            self._users = {u: k for k, u in enumerate(self._user_ids)}
            self._items = {i: k for k, i in enumerate(self._item_ids)}

    def explain(self, user, item, target="list", top=5, candidates=24):
        """Why the model scores `item` for `user` (the CLI's `symgnn explain`, docs/explain.md):
        a dict with the score, the method and its parts, largest first, each with its source
        ("rated", "neighbour", "path", "user_edge", "item_edge", "constant", "rest"), the
        ids it names, its value, its share of the score and a sentence, and "sentence", the
        exact split in one sentence where linked or similar ratings count ("2 people you
        follow rated it (4.5 on average)"; else ""). `target` "list" (the
        score the lists rank by) or "rating" (the predicted rating). Exact for the kinds
        linear in their inputs (the parts sum to the score); for the learned kinds, occlusion
        over at most `candidates` inputs (one forward pass each)."""
        if target not in ("list", "rating"):
            raise ConfigError(f"explain: target = {target!r}: must be list or rating")
        u = self._index([user], self._users, "user")[0]
        i = self._index([item], self._items, "item")[0]
        return json.loads(self._m.explain(int(u), int(i), target, _args.count(top), _args.count(candidates)))

    def similar_items(self, items, k=10):
        """The k items most similar to each of `items` (one id or several), itself left out:
        a DataFrame with columns item, similar_item, similarity (a cosine), rank (a list of
        tuples without pandas). similarity_basis("items") says what is compared."""
        return self._similar("items", items, k)

    def similar_users(self, users, k=10):
        """The k users most similar to each of `users`; as similar_items."""
        return self._similar("users", users, k)

    def similarity_basis(self, side="items"):
        """What similar_items / similar_users compare (side 'items' or 'users'):
        'representations', the cosine of the model's own node representations, or
        'co-ratings', the cosine of the training interactions, for kinds without them
        (then nodes that share no rating are left out and fewer than k may come back)."""
        return self._m.similarity_basis(_side(side))

    def _similar(self, side, ids, k):
        k = _args.count(k)
        noun = side[:-1]
        ids = _args.id_list(ids, f"similar_{side}: {side}")
        names, table = (self._item_ids, self._items) if side == "items" else (self._user_ids, self._users)
        rows = []
        for x in self._index(ids, table, noun):
            rows += [(names[x], names[j], float(s), r + 1)
                     for r, (j, s) in enumerate(self._m.similar(side, int(x), k))]
        return _table(rows, [noun, f"similar_{noun}", "similarity", "rank"])

    def with_new_ratings(self, ratings):
        """This model's directory loaded again with `ratings` of users (or items) absent from
        training, given in memory: a DataFrame with columns user, item, rating, or a list of
        (user, item, rating) triples (for a model of interactions, data.feedback implicit or
        counts: user and item alone, each row a click). The new ids then predict, recommend and compare like
        any other (the new_* files this model was loaded with are not carried over). Ratings
        of users the model knows are fresh ratings joining theirs (a refresh: their lists from
        all their ratings, the items just rated left out)."""
        return self._with_arrays(*_frames.triples(ratings, "new_ratings", interactions=self.feedback != "ratings"),
                                 "new_ratings")

    def recommend_new_user(self, ratings, k=10, exclude_seen=True, user=None, edges=None, features=None):
        """The top k items of one user absent from training, from their ratings in memory: a
        dict item -> rating, a list of (item, rating) pairs, or a DataFrame with columns item
        and rating (for a model of interactions: also a list of the item ids they clicked). `user` names them in the result (default: a fresh id). `edges`: their
        user-graph neighbours (ids, (id, weight) pairs or a dict id -> weight) and `features`
        their side features (numbers), where the model's user graph comes from a file and its
        users have features, all in memory. The same as Model(path, new_ratings=FILE,
        new_user_graph=..., new_user_features=...).recommend(user, k) with those in files.
        `ratings` None (or empty) with `edges`: a user known by whom they follow alone, listed
        as the user a graph edit creating them with those links would be (by the people they
        follow, shrunk toward popularity, where the model lists users without ratings so;
        docs/recommend.md, "Users without ratings")."""
        k = _args.count(k)  # checked before the model changes
        rows, edges, features, user = self._user_rows(ratings, user, edges, features)
        # The door serve's new users go through (include/symgnn/update.h): folded into this model
        # where its members can, else the model grown by them.
        items, scores, note = self._m.recommend_new_user(rows, "ratings", edges, features, k,
                                                         not _args.flag(exclude_seen, "exclude_seen"))
        if note:
            warnings.warn("recommend: " + note, stacklevel=2)
        table = self._list_table([(user, i, float(s), r + 1) for r, (i, s) in enumerate(zip(items, scores))])
        if hasattr(table, "attrs"):
            table.attrs["short_lists"] = {user: len(items)} if note else {}
        return table

    def predict_new_user(self, ratings, items, user=None, edges=None, features=None):
        """Predicted ratings of `items` (one id: a float) by one user absent from training,
        from their ratings, edges and features in memory (as recommend_new_user takes them)."""
        model, user = self._with_user(ratings, user, edges, features)
        return model.predict(user, items)

    def _with_user(self, ratings, user, edges=None, features=None):
        rows, edges, features, user = self._user_rows(ratings, user, edges, features)
        if not rows:
            raise ConfigError("ratings: predict_new_user needs the new user's ratings (a user known by follows "
                              "alone is listed by recommend_new_user)")
        users, items, values = zip(*rows)
        return self._with_arrays(users, items, values, "ratings", edges, features), user

    def _user_rows(self, ratings, user, edges=None, features=None):
        """(rating rows, edge rows, feature rows, id) of one user absent from training."""
        no_ratings = ratings is None or (not isinstance(ratings, str) and hasattr(ratings, "__len__") and
                                         len(ratings) == 0)
        if no_ratings and edges is not None and len(edges) > 0:
            items, values, frame_user = [], [], None  # follows alone (include/symgnn/update.h)
        elif ratings is None:
            raise ConfigError("ratings: give the new user's ratings, or edges= for a user known by whom they "
                              "follow alone")
        else:
            items, values, frame_user = _frames.one_user(ratings, "ratings", interactions=self.feedback != "ratings")
        user = frame_user if user is None else str(user)
        if user is None:  # a fresh id: the first of new-user, new-user-1, ... the model lacks
            user, n = "new-user", 0
            while user in self._users:
                n += 1
                user = f"new-user-{n}"
        elif user in self._users:
            raise ConfigError(f"user {user!r} is in the model's data; recommend_new_user and predict_new_user "
                              f"take users absent from training (recommend({user!r}) ranks for them)")
        users = np.full(len(items), user, dtype=object)
        return (_new_ratings.rows(users, items, values, "ratings"), _new_ratings.edges(user, edges),
                _new_ratings.features(user, features), user)

    def _with_arrays(self, users, items, ratings, what, edges=(), features=()):
        """This model grown by new ratings from three checked arrays: from the weights and data
        in memory (whatever its directory holds now), or, where this model was itself loaded
        with new_* files (which are not carried over), its directory loaded again."""
        model = Model.__new__(Model)
        model.path, model.device, model.verbose, model._owner = self.path, self.device, self.verbose, None
        model._base = getattr(self, "_base", None)
        model._journal_records = getattr(self, "_journal_records", -1)
        rows = _new_ratings.rows(users, items, ratings, what)
        if self._new_files or self._new_rows[0]:
            model._load({}, rows, what, edges, features)
        else:
            model._adopt(self._m.with_new_ratings(rows, what, list(edges), list(features)), {}, rows, what, edges,
                         features)
        return model

    def evaluate(self, k=(5, 10, 20), relevant_min=None, popularity=False):
        """RMSE, MAE and the ranking metrics at each k on the model's test ratings
        (docs/recommend.md states the rules), as a dict."""
        ks = _args.counts(k)
        rel = float("nan") if relevant_min is None else _args.number(relevant_min, "relevant_min")
        return json.loads(self._m.evaluate(ks, rel, _args.flag(popularity, "popularity")))

    def new_nodes(self):
        """What the new_* files added: ratings, new users and items, graph entries, feature rows."""
        return self._m.new_nodes()


def _side(side):
    if not isinstance(side, str) or side not in ("items", "users"):
        raise ConfigError(f"side must be users or items, got {side!r}")
    return side


def _pairs(users, items, what):
    """(user ids, item ids, whether one pair was asked) of predict's arguments."""
    if items is None:
        if _args.is_id(users):
            raise ConfigError(f"{what}: user {users!r} without items; call predict(user, item), "
                              f"predict(users, items) or predict(pairs)")
        if hasattr(users, "columns"):
            u, i = _frames.frame_columns(users, what, ("user", "item"), min_rows=0)
            return list(u), list(i), False
        pairs = _args.id_list(users, f"{what}: users")
        for k, p in enumerate(pairs):
            if _args.is_id(p) or not hasattr(p, "__len__") or len(p) != 2:
                raise ConfigError(f"{what}: pair {k} is {p!r}; expected (user, item) pairs")
        return [p[0] for p in pairs], [p[1] for p in pairs], False
    one_user, one_item = _args.is_id(users), _args.is_id(items)
    users, items = _args.id_list(users, f"{what}: users"), _args.id_list(items, f"{what}: items")
    # One id against several: that id with each of them.
    if one_user and not one_item:
        users = users * len(items)
    elif one_item and not one_user:
        items = items * len(users)
    if len(users) != len(items):
        raise ConfigError(f"users and items differ in length ({len(users)} and {len(items)})")
    return users, items, one_user and one_item


def _table(rows, columns):
    """A pandas DataFrame of `rows`, or the rows themselves without pandas."""
    try:
        import pandas as pd
    except ImportError:
        return rows
    return pd.DataFrame(rows, columns=columns)
