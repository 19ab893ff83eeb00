"""The run's lines (what `symgnn train` prints: choices, the verdict, the summary) through
Python's logging, on the `symgnn` logger at INFO, so that an application can route, filter
or silence them (logging.getLogger("symgnn").setLevel(logging.WARNING)). Where nothing in
the program has configured logging (no handler on the logger or its ancestors), the lines go
to standard error as plain text, as the command line prints them."""

import logging
import sys

LOGGER = logging.getLogger("symgnn")


def line_logger():
    """A function logging one line at INFO on the `symgnn` logger, given a handler to
    standard error where the program has configured none."""
    if not LOGGER.hasHandlers():
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        LOGGER.addHandler(handler)
        if LOGGER.level == logging.NOTSET:
            LOGGER.setLevel(logging.INFO)
    return lambda line: LOGGER.info(line)
