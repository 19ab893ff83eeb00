"""Checks of the arguments every call shares: counts (k) and ids.

A count is refused rather than rounded (k=2.9 is a mistake, not a request for 2), and an
id is one value: a string is an id, never a sequence of one-character ids."""

import numbers

import numpy as np

from ._errors import ConfigError


def count(value, what="k"):
    """`value` as an int >= 1; ConfigError for anything else (floats, bools, text)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigError(f"{what} must be a whole number, got {value!r}")
    if value < 1:
        raise ConfigError(f"{what} must be at least 1, got {value!r}")
    return int(value)


def counts(values, what="k"):
    """One count or a sequence of them, as a list of ints."""
    if isinstance(values, (list, tuple, range, np.ndarray)):
        return [count(v, what) for v in values]
    return [count(values, what)]


def is_id(value):
    """Whether `value` is one id (a string or a number) rather than a collection."""
    return isinstance(value, str) or np.isscalar(value)


def id_list(values):
    """One id or a collection of ids, as a list."""
    return [values] if is_id(values) else list(values)
