"""The exceptions symgnn raises. Every message is the command line's one-line error:
it names the file and line, or the parameter, and what is wrong."""

import re


class Error(Exception):
    """Base class of every symgnn error. The message is kept to one line: a value shown in it
    (the repr of an array, a string with a line break) has its line breaks made spaces."""

    def __init__(self, message="", *args):
        super().__init__(re.sub(r"\s*[\r\n]+\s*", " ", str(message)), *args)


class ConfigError(Error, ValueError):
    """A parameter or argument out of range, unknown or in conflict with another."""


class DataError(Error, ValueError):
    """A data, graph, features or model file that cannot be used (file and line named)."""


class MissingFileError(Error, FileNotFoundError):
    """A file or model directory that does not exist."""
