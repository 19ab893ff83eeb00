"""Datasets: every source the command line reads, and arrays from Python.

A Dataset is what `symgnn train --data SOURCE --set data.KEY=VALUE ...` would read: a
source plus data keys (docs/config.md, section data). Arrays stay in memory: they pass to
the C++ loader as rows (include/symgnn/data_rows.h), which reads them as it reads files
holding them (ratings, edge lists, features; docs/data.md), so a fit on arrays equals the
fit on those files, and no file is written. Dataset.from_arrays(..., path=DIR) writes the
files instead, for the command line."""

import os
import tempfile

import numpy as np

from . import _args, _core, _frames
from ._errors import ConfigError, MissingFileError
from ._params import to_text


class Dataset:
    """A source and its data keys. Use load_dataset() or Dataset.from_arrays()."""

    def __init__(self, source, **data_keys):
        self.source = str(source)
        self.data_keys = {k: v for k, v in data_keys.items() if v is not None}
        self._info = None
        self._rows = None  # arrays in memory (from_arrays): the rows symgnn/data_rows.h reads

    def _holding_out(self, fraction):
        """This dataset with data.test_fraction = fraction (fit's holdout=); refused where the
        data give their own test ratings."""
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 <= fraction < 0.9:
            raise ConfigError(f"holdout={fraction!r}: a fraction in [0, 0.9) of the ratings held out as test "
                              f"(0: train on all)")
        given = (self._rows is not None and self._rows["has_test"]) or self.data_keys.get("test_file") or \
            self.source.endswith(".mat") or os.path.exists(os.path.join(self.source, "u.data"))
        if given:
            raise ConfigError(f"holdout={fraction!r}: the data give their own test ratings (test=, test_file, "
                              f"MovieLens-100K's splits, a .mat file's test mask); holdout draws a test set only "
                              f"where none is given")
        if self.data_keys.get("split") in ("temporal", "leave_last_out"):
            raise ConfigError(f"holdout={fraction!r}: data.split = {self.data_keys['split']} holds out by time; "
                              f"holdout draws at random (use data.test_fraction or split_time there)")
        out = Dataset(self.source, **{**self.data_keys, "test_fraction": float(fraction)})
        out._rows = self._rows
        return out

    def settings(self):
        """The data section as `data.key=value` assignments."""
        sets = [f"data.source={self.source}"]
        sets += [f"data.{k}={to_text(v)}" for k, v in self.data_keys.items()]
        return sets

    @property
    def info(self):
        if self._info is None:
            self._info = _core.load_dataset(self.settings(), self._rows)
        return self._info

    @property
    def name(self):
        return self.info["name"]

    @property
    def user_ids(self):
        """Original ids of the users, in index order."""
        return self.info["user_ids"]

    @property
    def item_ids(self):
        return self.info["item_ids"]

    def ratings(self, part="train"):
        """(users, items, ratings) of part 'train', 'validation' or 'test': original ids."""
        u, i, r = self.info[part]
        uid, iid = np.asarray(self.user_ids, dtype=object), np.asarray(self.item_ids, dtype=object)
        return uid[u], iid[i], r

    @property
    def in_memory(self):
        """Whether the data are arrays held in memory (from_arrays without `path`), not files."""
        return self._rows is not None

    def __repr__(self):
        keys = "".join(f", {k}={v!r}" for k, v in self.data_keys.items())
        if self._rows is not None:
            return f"Dataset(arrays in memory: {len(self._rows['ratings'])} ratings{keys})"
        return f"Dataset({self.source!r}{keys})"

    @staticmethod
    def from_arrays(users, items, ratings=None, test=None, user_graph=None, item_graph=None, user_features=None,
                    item_features=None, path=None, val_fraction=None, feedback=None):
        """A dataset from arrays (numpy, pandas columns, lists) with arbitrary ids, held in memory.

        users, items, ratings: the training ratings, one per position; ids may be strings
        or integers (integers are read as their decimal text). Missing values, float ids
        and ratings that are not finite numbers raise DataError naming the row.
        ratings=None: the pairs are interactions (feedback 'implicit').
        feedback: what the values are (data.feedback): 'ratings' (the default where ratings
        are given), 'implicit' (every pair an interaction; the values are ignored) or
        'counts' (each value a count, weighted log(1 + count)); docs/your_data.md.
        test: (users, items, ratings) of the test ratings, or a DataFrame with columns
        user, item, rating; their ids must appear in training. None: a random tenth of the
        ratings (data.test_fraction; fit(..., holdout=) sets it, 0 holds none out).
        user_graph, item_graph: a scipy.sparse matrix or a dense array over the ids in
        sorted order (numpy.unique of the ids), or an (m, 2) / (m, 3) array of
        (id, id[, weight]) edges. Symmetric.
        user_features, item_features: a pandas DataFrame indexed by id, or an array with one
        row per id in sorted order.
        path: None (the default) keeps the arrays in memory: fit() passes them to the C++
        loader as rows, and no file is written. A folder writes them there as files in the
        loaders' formats (ratings.tsv, test.tsv, user_graph.tsv, ...), which the dataset then
        names, as the command line's --data and --set data.*_file=... would: the same data,
        the same splits, the same fit.
        """
        users, items = _ids(_frames.ids(users, "users"), "users"), _ids(_frames.ids(items, "items"), "items")
        if ratings is None:
            if feedback not in (None, "implicit"):
                raise ConfigError(f"feedback={feedback!r} reads the values of ratings=, and none are given")
            feedback = "implicit"
            ratings = np.ones(len(users))
        ratings = _frames.ratings(ratings, "ratings")
        if not (len(users) == len(items) == len(ratings)):
            raise ConfigError(f"users, items and ratings differ in length ({len(users)}, {len(items)}, "
                              f"{len(ratings)})")
        if not np.all(np.isfinite(ratings)):
            raise ConfigError("ratings: every rating must be a finite number")
        rows = {"name": "arrays", "users": list(users), "items": list(items),
                "ratings": np.asarray(ratings, dtype=np.float64), "has_test": False, "test_users": [],
                "test_items": [], "test_ratings": np.zeros(0)}
        if test is not None:
            if hasattr(test, "columns") and feedback == "implicit" and "rating" not in list(test.columns):
                tu, ti = _frames.frame_columns(test, "test", ("user", "item"))
                tr = np.ones(len(tu))
            elif hasattr(test, "columns"):
                tu, ti, tr = _frames.frame_columns(test, "test")
            elif feedback == "implicit" and isinstance(test, (tuple, list)) and len(test) == 2:
                tu, ti = _frames.ids(test[0], "test users"), _frames.ids(test[1], "test items")
                tr = np.ones(len(tu))
            else:
                try:
                    tu, ti, tr = test
                except (TypeError, ValueError):
                    raise ConfigError(f"test must be (users, items, ratings) or a DataFrame with columns user, item, "
                                      f"rating, got {type(test).__name__}") from None
                tu, ti = _frames.ids(tu, "test users"), _frames.ids(ti, "test items")
                tr = _frames.ratings(tr, "test ratings")
            tu, ti = _ids(tu, "test users"), _ids(ti, "test items")
            if not (len(tu) == len(ti) == len(tr)):
                raise ConfigError(f"test: users, items and ratings differ in length ({len(tu)}, {len(ti)}, "
                                  f"{len(tr)})")
            if not np.all(np.isfinite(tr)):
                raise ConfigError("test ratings: every rating must be a finite number")
            rows.update(has_test=True, test_users=list(tu), test_items=list(ti),
                        test_ratings=np.asarray(tr, dtype=np.float64))
        for side, graph, ids in (("user", user_graph, users), ("item", item_graph, items)):
            a, b, w = _edges(graph, np.unique(ids), f"{side}_graph") if graph is not None else ([], [], [])
            rows.update({f"has_{side}_graph": graph is not None, f"{side}_edge_a": a, f"{side}_edge_b": b,
                         f"{side}_edge_w": np.asarray(w, dtype=np.float64)})
        for side, feats, ids in (("user", user_features, users), ("item", item_features, items)):
            fids, values = _features(feats, np.unique(ids), f"{side}_features") if feats is not None else \
                ([], np.zeros((0, 0)))
            rows.update({f"{side}_feature_ids": fids, f"{side}_features": values})
        data_keys = {} if val_fraction is None else {"val_fraction": val_fraction}
        if feedback is not None:
            data_keys["feedback"] = feedback
        if path is None:
            ds = Dataset(rows["name"], **data_keys)
            ds._rows = rows
            return ds
        files, keys = _files_of(rows)
        folder = _write_files(files, path)
        data_keys.update({k: os.path.join(folder, v) for k, v in keys.items()})
        return Dataset(os.path.join(folder, "ratings.tsv"), **data_keys)


def load_dataset(source, split=None, **data_keys):
    """A dataset from any source the command line reads: 'synthetic', a MovieLens-100K or
    -1M directory, a Monti .mat file or a ratings CSV/TSV; data_keys are the config's data
    keys (docs/config.md), e.g. user_graph_file=..., val_fraction=0.05. Loaded once here so
    that errors show at once (symgnn.DataError naming the file and line)."""
    source = _args.path(source, "source")
    if source != "synthetic" and not os.path.exists(source):
        raise MissingFileError(f"{source}: no such file or directory")
    if source != "synthetic":
        source = os.path.abspath(source)
    for key, value in data_keys.items():
        if key.endswith("_file") and value:
            value = _args.path(value, key)
            if not os.path.exists(value):
                raise MissingFileError(f"{value}: no such file (data key {key})")
            data_keys[key] = os.path.abspath(value)
    if split is not None:
        data_keys["split"] = split
    ds = Dataset(source, **data_keys)
    ds.info  # noqa: B018 (load now: errors here, not at fit)
    return ds


def _ids(values, what):
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    out = np.asarray([str(v) for v in np.asarray(values, dtype=object).ravel()], dtype=object)
    for v in out:
        if v == "" or any(c in v for c in "\t\n\r") or v.strip() != v:
            raise ConfigError(f"{what}: id {v!r} is empty, has surrounding spaces or holds a tab or newline")
    return out


def _ratings_text(users, items, ratings):
    lines = ["user\titem\trating"]
    lines += [f"{u}\t{i}\t{r!r}" for u, i, r in zip(users, items, np.asarray(ratings, dtype=np.float64).tolist())]
    return "\n".join(lines) + "\n"


def _edges(graph, ids, what):
    """(first ends, second ends, weights) of a graph argument over `ids` (sorted): a
    scipy.sparse or dense matrix (its nonzero entries), or (m, 2) / (m, 3) edges."""
    a, b, w = [], [], []
    if hasattr(graph, "tocoo"):  # scipy.sparse
        coo = graph.tocoo()
        if coo.shape != (len(ids), len(ids)):
            raise ConfigError(f"{what}: a {coo.shape[0]} x {coo.shape[1]} matrix for {len(ids)} ids")
        for r, c, x in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()):
            if x != 0:
                a.append(str(ids[r]))
                b.append(str(ids[c]))
                w.append(float(x))
    else:
        arr = _array(graph.to_numpy() if hasattr(graph, "to_numpy") else graph, object, what)
        if arr.ndim == 2 and arr.shape == (len(ids), len(ids)) and arr.shape[1] not in (2, 3):
            arr = _array(arr, float, what)
            for r, c in zip(*np.nonzero(arr)):
                a.append(str(ids[r]))
                b.append(str(ids[c]))
                w.append(float(arr[r, c]))
        elif arr.ndim == 2 and arr.shape[1] in (2, 3):
            weights = _array(arr[:, 2], float, f"{what} weights") if arr.shape[1] == 3 else np.ones(len(arr))
            for row, x in zip(arr, weights.tolist()):
                a.append(f"{row[0]}")
                b.append(f"{row[1]}")
                w.append(float(x))
        else:
            raise ConfigError(f"{what}: expected a scipy.sparse or dense {len(ids)} x {len(ids)} matrix, or "
                              f"(m, 2) / (m, 3) edges, got shape {arr.shape}")
    if not w:
        raise ConfigError(f"{what}: the graph has no edges")
    return a, b, w


def _features(feats, ids, what):
    """(ids, an n x p float matrix) of a features argument over `ids` (sorted)."""
    if hasattr(feats, "index") and hasattr(feats, "to_numpy"):  # a DataFrame indexed by id
        values = _array(feats.to_numpy(), float, what)
        if values.ndim != 2:
            raise ConfigError(f"{what}: expected a table of numbers, got shape {values.shape}")
        return [str(i) for i in feats.index], values
    arr = _array(feats, float, what)
    if arr.ndim != 2 or arr.shape[0] != len(ids):
        raise ConfigError(f"{what}: expected one row per id ({len(ids)}), got shape {arr.shape}")
    return [str(i) for i in ids], arr


def _files_of(rows):
    """The files (name -> text) holding `rows` in the loaders' formats, and the data keys naming them."""
    files = {"ratings.tsv": _ratings_text(rows["users"], rows["items"], rows["ratings"])}
    keys = {}
    if rows["has_test"]:
        files["test.tsv"] = _ratings_text(rows["test_users"], rows["test_items"], rows["test_ratings"])
        keys["test_file"] = "test.tsv"
    for side in ("user", "item"):
        if rows[f"has_{side}_graph"]:
            files[f"{side}_graph.tsv"] = "".join(
                f"{a}\t{b}\t{w!r}\n" for a, b, w in
                zip(rows[f"{side}_edge_a"], rows[f"{side}_edge_b"], rows[f"{side}_edge_w"].tolist()))
            keys[f"{side}_graph_file"] = f"{side}_graph.tsv"
        if len(rows[f"{side}_feature_ids"]):
            files[f"{side}_features.tsv"] = "".join(
                f"{i}\t" + "\t".join(repr(float(x)) for x in r) + "\n"
                for i, r in zip(rows[f"{side}_feature_ids"], rows[f"{side}_features"]))
            keys[f"{side}_features_file"] = f"{side}_features.tsv"
    return files, keys


def _array(values, dtype, what):
    """np.asarray(values, dtype): ConfigError naming `what` for text, None or ragged rows."""
    try:
        return np.asarray(values, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{what}: expected numbers in a rectangular array ({e})") from None


def _write_files(files, path):
    """Writes `files` into the folder `path` (created; files of the same names replaced), each
    complete before it appears under its name."""
    path = os.path.abspath(_args.path(path, "path"))
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=".symgnn-")
    for name, text in files.items():
        with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
            f.write(text)
    if os.path.isdir(path):  # an existing folder: replace its files
        for name in files:
            os.replace(os.path.join(tmp, name), os.path.join(path, name))
        os.rmdir(tmp)
    else:
        try:
            os.rename(tmp, path)
        except OSError:  # another process made the folder first
            os.makedirs(path, exist_ok=True)
            for name in files:
                os.replace(os.path.join(tmp, name), os.path.join(path, name))
            os.rmdir(tmp)
    return path
