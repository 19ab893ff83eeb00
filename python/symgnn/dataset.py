"""Datasets: every source the command line reads, and arrays from Python.

A Dataset is what `symgnn train --data SOURCE --set data.KEY=VALUE ...` would read: a
source plus data keys (docs/config.md, section data). Arrays become files in the formats
the loaders read (ratings, edge lists, features; docs/data.md), so that a model trained
on them is a model directory like any other and loads again from the command line."""

import hashlib
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

    def settings(self):
        """The data section as `data.key=value` assignments."""
        sets = [f"data.source={self.source}"]
        sets += [f"data.{k}={to_text(v)}" for k, v in self.data_keys.items()]
        return sets

    @property
    def info(self):
        if self._info is None:
            self._info = _core.load_dataset(self.settings())
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

    def __repr__(self):
        keys = "".join(f", {k}={v!r}" for k, v in self.data_keys.items())
        return f"Dataset({self.source!r}{keys})"

    @staticmethod
    def from_arrays(users, items, ratings, test=None, user_graph=None, item_graph=None, user_features=None,
                    item_features=None, path=None, val_fraction=None):
        """A dataset from arrays (numpy, pandas columns, lists) with arbitrary ids.

        users, items, ratings: the training ratings, one per position; ids may be strings
        or integers (integers are read as their decimal text). Missing values, float ids
        and ratings that are not finite numbers raise DataError naming the row.
        test: (users, items, ratings) of the test ratings, or a DataFrame with columns
        user, item, rating; their ids must appear in training. None: a random tenth of the
        ratings (data.test_fraction).
        user_graph, item_graph: a scipy.sparse matrix or a dense array over the ids in
        sorted order (numpy.unique of the ids), or an (m, 2) / (m, 3) array of
        (id, id[, weight]) edges. Symmetric.
        user_features, item_features: a pandas DataFrame indexed by id, or an array with one
        row per id in sorted order.
        path: folder for the files (default: a folder named by their content under
        $SYMGNN_CACHE, else ~/.cache/symgnn).
        """
        users, items = _ids(_frames.ids(users, "users"), "users"), _ids(_frames.ids(items, "items"), "items")
        ratings = _frames.ratings(ratings, "ratings")
        if not (len(users) == len(items) == len(ratings)):
            raise ConfigError(f"users, items and ratings differ in length ({len(users)}, {len(items)}, "
                              f"{len(ratings)})")
        files = {"ratings.tsv": _ratings_text(users, items, ratings)}
        keys = {}
        if test is not None:
            if hasattr(test, "columns"):
                tu, ti, tr = _frames.frame_columns(test, "test")
            else:
                try:
                    tu, ti, tr = test
                except (TypeError, ValueError):
                    raise ConfigError(f"test must be (users, items, ratings) or a DataFrame with columns user, item, "
                                      f"rating, got {type(test).__name__}") from None
                tu, ti = _frames.ids(tu, "test users"), _frames.ids(ti, "test items")
                tr = _frames.ratings(tr, "test ratings")
            files["test.tsv"] = _ratings_text(_ids(tu, "test users"), _ids(ti, "test items"), tr)
            keys["test_file"] = "test.tsv"
        for side, graph, ids in (("user", user_graph, users), ("item", item_graph, items)):
            if graph is not None:
                files[f"{side}_graph.tsv"] = _edges_text(graph, np.unique(ids), f"{side}_graph")
                keys[f"{side}_graph_file"] = f"{side}_graph.tsv"
        for side, feats, ids in (("user", user_features, users), ("item", item_features, items)):
            if feats is not None:
                files[f"{side}_features.tsv"] = _features_text(feats, np.unique(ids), f"{side}_features")
                keys[f"{side}_features_file"] = f"{side}_features.tsv"
        folder = _write_files(files, path)
        data_keys = {k: os.path.join(folder, v) for k, v in keys.items()}
        if val_fraction is not None:
            data_keys["val_fraction"] = val_fraction
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
    if not np.all(np.isfinite(ratings)):
        raise ConfigError("ratings: every rating must be a finite number")
    lines = ["user\titem\trating"]
    lines += [f"{u}\t{i}\t{r!r}" for u, i, r in zip(users, items, ratings.tolist())]
    return "\n".join(lines) + "\n"


def _edges_text(graph, ids, what):
    lines = []
    if hasattr(graph, "tocoo"):  # scipy.sparse
        coo = graph.tocoo()
        if coo.shape != (len(ids), len(ids)):
            raise ConfigError(f"{what}: a {coo.shape[0]} x {coo.shape[1]} matrix for {len(ids)} ids")
        for a, b, w in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()):
            if w != 0:
                lines.append(f"{ids[a]}\t{ids[b]}\t{float(w)!r}")
    else:
        arr = _array(graph.to_numpy() if hasattr(graph, "to_numpy") else graph, object, what)
        if arr.ndim == 2 and arr.shape == (len(ids), len(ids)) and arr.shape[1] not in (2, 3):
            arr = _array(arr, float, what)
            for a, b in zip(*np.nonzero(arr)):
                lines.append(f"{ids[a]}\t{ids[b]}\t{arr[a, b]!r}")
        elif arr.ndim == 2 and arr.shape[1] in (2, 3):
            weights = _array(arr[:, 2], float, f"{what} weights") if arr.shape[1] == 3 else np.ones(len(arr))
            for row, w in zip(arr, weights.tolist()):
                lines.append(f"{row[0]}\t{row[1]}\t{w!r}")
        else:
            raise ConfigError(f"{what}: expected a scipy.sparse or dense {len(ids)} x {len(ids)} matrix, or "
                              f"(m, 2) / (m, 3) edges, got shape {arr.shape}")
    if not lines:
        raise ConfigError(f"{what}: the graph has no edges")
    return "\n".join(lines) + "\n"


def _features_text(feats, ids, what):
    if hasattr(feats, "index") and hasattr(feats, "to_numpy"):  # a DataFrame indexed by id
        rows = [(str(i), r) for i, r in zip(feats.index, _array(feats.to_numpy(), float, what))]
    else:
        arr = _array(feats, float, what)
        if arr.ndim != 2 or arr.shape[0] != len(ids):
            raise ConfigError(f"{what}: expected one row per id ({len(ids)}), got shape {arr.shape}")
        rows = list(zip(ids, arr))
    return "".join(f"{i}\t" + "\t".join(repr(float(x)) for x in r) + "\n" for i, r in rows)


def _array(values, dtype, what):
    """np.asarray(values, dtype): ConfigError naming `what` for text, None or ragged rows."""
    try:
        return np.asarray(values, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{what}: expected numbers in a rectangular array ({e})") from None


def _write_files(files, path):
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name].encode() + b"\0")
    if path is None:
        root = os.environ.get("SYMGNN_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "symgnn")
        path = os.path.join(root, "arrays", digest.hexdigest()[:20])
        if os.path.isdir(path):
            return path  # the same content, written before
    path = os.path.abspath(_args.path(path, "path"))
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=".symgnn-")
    for name, text in files.items():
        with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
            f.write(text)
    if os.path.isdir(path):  # an explicit folder: replace its files
        for name in files:
            os.replace(os.path.join(tmp, name), os.path.join(path, name))
        os.rmdir(tmp)
    else:
        try:
            os.rename(tmp, path)
        except OSError:  # another process wrote the same content first
            for name in files:
                os.remove(os.path.join(tmp, name))
            os.rmdir(tmp)
    return path
