"""New users' ratings given in memory, as the rows TrainedModel::load takes them
(include/symgnn/trained_model.h, NewNodes::rating_rows; docs/recommend.md, "New users"):
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
