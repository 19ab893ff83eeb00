"""New users' ratings given in memory, as the file TrainedModel::load reads
(include/symgnn/trained_model.h, NewNodes; docs/recommend.md, "New users").

The C++ path reads new ratings from a file only, so they are written to a temporary file
for the length of the load. Its errors name that file and a line; they are reworded to
name the row of what was given, since the file is gone by the time the user reads them."""

import contextlib
import os
import re
import tempfile

from ._errors import Error
from .dataset import _ids, _ratings_text

_FILE = "new_ratings.tsv"


@contextlib.contextmanager
def ratings_file(users, items, ratings, what="new ratings"):
    """Yields the path of a temporary ratings file (header, then one rating a line, in
    order); symgnn errors raised inside that name it are reworded to name `what`'s row."""
    text = _ratings_text(_ids(users, f"{what}, users"), _ids(items, f"{what}, items"), ratings)
    with tempfile.TemporaryDirectory(prefix="symgnn-new-") as folder:
        path = os.path.join(folder, _FILE)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            yield path
        except Error as e:
            message = _reword(str(e), path, what)
            if message == str(e):
                raise
            raise type(e)(message) from None


def _reword(message, path, what):
    # Line 1 is the header: line n holds row n - 2 of what was given.
    message = re.sub(re.escape(path) + r":(\d+)", lambda m: f"{what}, row {int(m.group(1)) - 2}", message)
    return message.replace(path, what)
