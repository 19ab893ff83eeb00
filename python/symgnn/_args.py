"""Checks of the arguments every call shares: counts (k), numbers, text, paths and ids.

A count is refused rather than rounded (k=2.9 is a mistake, not a request for 2), and an
id is one value: a string is an id, never a sequence of one-character ids. Each check
raises ConfigError naming the argument, never the TypeError or ValueError that int(),
float(), os.fspath() or iteration would raise."""

import numbers
import os

import numpy as np

from ._errors import ConfigError


def count(value, what="k"):
    """`value` as an int >= 1; ConfigError for anything else (floats, bools, text)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigError(f"{what} must be a whole number, got {value!r}")
    if value < 1:
        raise ConfigError(f"{what} must be at least 1, got {value!r}")
    if value > 2**31 - 1:  # what the C++ side holds; no list is that long
        raise ConfigError(f"{what} must be at most 2147483647, got {value!r}")
    return int(value)


def flag(value, what):
    """`value` as a bool: True, False (numpy's too), 0 or 1; ConfigError for anything else
    (an array's truth is ambiguous, a string's is not what was meant)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise ConfigError(f"{what} must be True or False, got {value!r}")


def integer(value, what):
    """`value` as an int (any sign, within 64 bits); ConfigError for floats, bools and text."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigError(f"{what} must be a whole number, got {value!r}")
    if not -2**63 <= value < 2**63:
        raise ConfigError(f"{what} must fit in 64 bits, got {value!r}")
    return int(value)


def number(value, what):
    """`value` as a float; ConfigError for bools, text and anything else not a real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError(f"{what} must be a number, got {value!r}")
    return float(value)


def text(value, what):
    """`value`, a str; ConfigError for anything else."""
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a str, got {value!r}")
    return value


def path(value, what):
    """`value` as a path (os.fspath); ConfigError for what is neither str nor os.PathLike."""
    if not isinstance(value, (str, os.PathLike)):
        raise ConfigError(f"{what} must be a str or os.PathLike path, got {value!r}")
    return os.fspath(value)


def counts(values, what="k"):
    """One count or a sequence of them, as a list of ints."""
    if isinstance(values, (list, tuple, range, np.ndarray)):
        if len(values) == 0:
            raise ConfigError(f"{what} must name at least one cut-off, got an empty {type(values).__name__}")
        return [count(v, what) for v in values]
    return [count(values, what)]


def is_id(value):
    """Whether `value` is one id (a string or a number) rather than a collection."""
    return isinstance(value, str) or np.isscalar(value)


def id_list(values, what="ids"):
    """One id or a collection of ids, as a list; ConfigError naming `what` for None and
    other values that are neither."""
    if is_id(values):
        return [values]
    if values is None or not hasattr(values, "__iter__"):
        raise ConfigError(f"{what} must be an id (a string or a number) or a list of ids, got {values!r}")
    return list(values)
