"""New users' ratings given in memory, as the rows TrainedModel::load takes them
(include/symgnn/trained_model.h, NewNodes::rows, a Delta of include/symgnn/delta.h; docs/recommend.md, "New users"):
no file is written. Errors name a row as `what`[k]."""

import numpy as np

from ._errors import ConfigError
from .dataset import _ids


def rows(users, items, ratings, what="new ratings"):
    """(user, item, rating) triples of three checked arrays, ids as text."""
    ratings = np.asarray(ratings, dtype=float)
    if not np.all(np.isfinite(ratings)):
        raise ConfigError(f"{what}: every rating must be a finite number")
    return list(zip(_ids(users, f"{what}, users").tolist(), _ids(items, f"{what}, items").tolist(),
                    ratings.tolist()))


def edges(user, neighbours, what="edges"):
    """(user, neighbour, weight) rows of a new user's graph neighbours: ids, (id, weight)
    pairs, or a dict id -> weight (None: none)."""
    if neighbours is None:
        return []
    pairs = list(neighbours.items()) if isinstance(neighbours, dict) else \
        [tuple(n) if isinstance(n, (tuple, list)) else (n, 1.0) for n in neighbours]
    out = []
    for k, pair in enumerate(pairs):
        if len(pair) != 2:
            raise ConfigError(f"{what}[{k}]: expected a user id or an (id, weight) pair")
        try:
            weight = float(pair[1])
        except (TypeError, ValueError):
            raise ConfigError(f"{what}[{k}]: weight {pair[1]!r} is not a number") from None
        if not np.isfinite(weight):
            raise ConfigError(f"{what}[{k}]: weight must be a finite number")
        out.append((str(user), str(pair[0]), weight))
    return out


def features(user, values, what="features"):
    """The (user, values) row of a new user's side features (None: none)."""
    if values is None:
        return []
    try:
        row = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ConfigError(f"{what}: expected numbers (the new user's side features)") from None
    if row.size == 0:
        raise ConfigError(f"{what}: expected numbers (the new user's side features)")
    return [(str(user), row.tolist())]
