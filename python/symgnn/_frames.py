"""Ratings held in memory (pandas DataFrames, arrays, lists, dicts), checked before they
become the files the C++ readers read.

Every problem is a symgnn.DataError with a one-line message naming the column and the row
(the DataFrame's index label where there is one): pandas and numpy would otherwise raise
their own TypeError or ValueError, or, worse, write "nan" or "1.0" as an id."""

import numbers

import numpy as np

from ._errors import DataError

COLUMNS = ("user", "item", "rating")


def _where(k, labels):
    return f"row {k}" if labels is None else f"row {k} (index {labels[k]!r})"


def _is(v):
    """`v` for a message: 'missing' for None, NaN, pandas.NA, else its repr and type."""
    if isinstance(v, np.generic):  # numpy 2 writes np.float64(1.0): the value as Python's
        v = v.item()
    if v is None or type(v).__name__ in ("NAType", "NaTType") or (isinstance(v, float) and v != v):
        return "missing"
    return f"{v!r} ({type(v).__name__})"


def _values(column):
    """(values as a numpy array, index labels or None): the labels name rows in messages."""
    if hasattr(column, "to_numpy"):
        return column.to_numpy(), getattr(column, "index", None)
    return np.asarray(column, dtype=object).ravel(), None


def ids(column, what):
    """The ids of `column` (pandas column, array or list): strings or integers, no missing
    values, as an object array. Floats are refused: a float id column is what pandas makes of
    integer ids with a missing value, and "1.0" would match no id."""
    values, labels = _values(column)
    if values.dtype.kind in "iuU" or len(values) == 0:
        return values.astype(object)
    if values.dtype.kind == "f":  # a missing value, if any, is what made the column float
        missing = np.flatnonzero(np.isnan(values))
        k = int(missing[0]) if len(missing) else 0
        raise DataError(f"{what}: {_where(k, labels)} is {_is(values[k].item())}; ids are strings or integers")
    for k, v in enumerate(values):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (str, numbers.Integral)):
            raise DataError(f"{what}: {_where(k, labels)} is {_is(v)}; ids are strings or integers")
    return values.astype(object)


def ratings(column, what):
    """The ratings of `column` as finite floats."""
    values, labels = _values(column)
    if values.dtype.kind not in "iuf":
        for k, v in enumerate(values):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
                raise DataError(f"{what}: {_where(k, labels)} is {_is(v)}; ratings are numbers")
    out = values.astype(float)
    bad = np.flatnonzero(~np.isfinite(out))
    if len(bad):
        raise DataError(f"{what}: {_where(int(bad[0]), labels)} is {float(out[bad[0]])!r}; ratings are finite numbers "
                        f"({len(bad)} row(s) like it)")
    return out


def frame_columns(frame, what, columns=COLUMNS, min_rows=1, names=None):
    """The columns of a DataFrame for the roles `columns` (user, item, rating), checked: ids
    for all but 'rating'. `names`: role -> the frame's column (the user_col, item_col and
    rating_col keywords); a role not there is read from the column of its own name."""
    names = names or {}
    wanted = [names.get(c) or c for c in columns]
    have = list(frame.columns)
    missing = [w for w in wanted if w not in have]
    if missing:
        keywords = ", ".join(f"{c}_col=" for c in columns)
        raise DataError(f"{what}: the DataFrame has no column {', '.join(map(str, missing))} (its columns: "
                        f"{', '.join(map(str, have))}); expected {', '.join(map(str, wanted))} "
                        f"(name yours with {keywords})")
    twice = [w for w in wanted if have.count(w) > 1]
    if twice:
        raise DataError(f"{what}: the DataFrame has column {twice[0]} twice")
    if len(set(wanted)) < len(wanted):
        raise DataError(f"{what}: one column named for two roles ({', '.join(map(str, wanted))})")
    if len(frame) < min_rows:
        raise DataError(f"{what}: the DataFrame has no rows")
    return tuple(ratings(frame[w], f"{what}, column {w}") if c == "rating" else ids(frame[w], f"{what}, column {w}")
                 for c, w in zip(columns, wanted))


def triples(data, what, interactions=False):
    """(users, items, ratings) of a DataFrame with columns user, item, rating or of a list of
    (user, item, rating) triples. `interactions` (a model of clicks or plays): a DataFrame
    without a rating column, or (user, item) pairs, are one interaction each (value 1)."""
    if interactions and hasattr(data, "columns") and "rating" not in data.columns:
        data = data.assign(rating=1.0)
    if interactions and not hasattr(data, "columns") and not isinstance(data, (dict, str, bytes)) \
            and hasattr(data, "__iter__"):
        data = [tuple(r) + (1.0,) if not isinstance(r, (str, bytes)) and hasattr(r, "__len__") and len(r) == 2
                else r for r in data]
    if hasattr(data, "columns"):
        return frame_columns(data, what)
    rows = _rows(data, 3, what, "(user, item, rating) triples")
    return (ids([r[0] for r in rows], f"{what} (users)"), ids([r[1] for r in rows], f"{what} (items)"),
            ratings([r[2] for r in rows], f"{what} (ratings)"))


def one_user(data, what, interactions=False):
    """(items, ratings, user or None) of one user's ratings: a dict item -> rating, a list of
    (item, rating) pairs, or a DataFrame with columns item and rating (and, optionally, a
    user column holding one id, returned third). `interactions` (a model of clicks or plays,
    data.feedback implicit or counts): a list of item ids, or a DataFrame without a rating
    column, is one interaction with each item (value 1)."""
    if interactions and hasattr(data, "columns") and "rating" not in data.columns:
        data = data.assign(rating=1.0)
    if interactions and not hasattr(data, "columns") and not isinstance(data, (dict, str, bytes)) \
            and hasattr(data, "__iter__"):
        data = list(data)
        if all(isinstance(r, (str, bytes, int, np.integer)) for r in data):
            data = [(r, 1.0) for r in data]
    if hasattr(data, "columns"):
        items, values = frame_columns(data, what, ("item", "rating"))
        user = None
        if "user" in data.columns:
            (users,) = frame_columns(data, what, ("user",))
            distinct = sorted({str(u) for u in users})
            if len(distinct) > 1:
                raise DataError(f"{what}: the user column holds {len(distinct)} users ({', '.join(distinct[:3])}"
                                f"{', ...' if len(distinct) > 3 else ''}); one user's ratings are expected "
                                f"(with_new_ratings takes several users)")
            user = distinct[0]
        return items, values, user
    if isinstance(data, dict):
        data = list(data.items())
    rows = _rows(data, 2, what, "a dict item -> rating or (item, rating) pairs")
    return ids([r[0] for r in rows], f"{what} (items)"), ratings([r[1] for r in rows], f"{what} (values)"), None


def _rows(data, width, what, expected):
    if isinstance(data, (str, bytes)) or not hasattr(data, "__iter__"):
        raise DataError(f"{what}: expected {expected}, got {type(data).__name__}")
    rows = list(data)
    if not rows:
        raise DataError(f"{what}: no ratings")
    for k, r in enumerate(rows):
        if isinstance(r, (str, bytes)) or not hasattr(r, "__len__") or len(r) != width:
            raise DataError(f"{what}: row {k} is {r!r}; expected {expected}")
    return rows


def matrix_entries(matrix, user_ids=None, item_ids=None):
    """(users, items, ratings) of a scipy.sparse users x items matrix's stored entries, as
    implicit takes its data: row r is user user_ids[r] (else the id r), column c item
    item_ids[c] (else c). Entries repeated in a COO matrix are summed, as scipy sums them; the
    ratings come in row-major order (user by user, items ascending), which fixes the random
    test split and validation carve that follow."""
    csr = matrix.tocsr(copy=True)
    csr.sum_duplicates()
    csr.sort_indices()
    coo = csr.tocoo()
    names = []
    for what, given, n in (("user_ids", user_ids, coo.shape[0]), ("item_ids", item_ids, coo.shape[1])):
        if given is None:
            names.append(np.arange(n, dtype=np.int64).astype(object))
            continue
        named = ids(given, what)
        if len(named) != n:
            raise DataError(f"{what}: {len(named)} ids for the matrix's {n} "
                            f"{'rows' if what == 'user_ids' else 'columns'}")
        if len(set(named.tolist())) != n:
            raise DataError(f"{what}: the ids repeat; each {'row' if what == 'user_ids' else 'column'} "
                            f"needs its own")
        names.append(named)
    if coo.nnz == 0:
        raise DataError("the matrix stores no entries: no ratings to train on")
    values = np.asarray(coo.data, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        k = int(np.flatnonzero(~np.isfinite(values))[0])
        raise DataError(f"the matrix's entry at row {int(coo.row[k])}, column {int(coo.col[k])} is "
                        f"{values[k]}; ratings are finite numbers")
    return names[0][coo.row], names[1][coo.col], values
