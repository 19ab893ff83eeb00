"""A model directory as bytes and back: what a pickled model holds.

A loaded model is C++ state over a directory of files (model.pt, config.txt,
checksums.sha256, ...), so pickling keeps those files, byte for byte, and unpickling writes
them to a fresh temporary directory and loads it there: the copy predicts exactly as the
original. The directory pins the data it trained on (dataset.bin), so the copy needs none
of the training files; a directory written by an older symgnn has no dataset.bin and reads
its data source again from the path config.txt records (docs/python.md, "Pickling")."""

import os
import re
import tempfile

from ._errors import DataError

# Not model content: a run's lock file (src/util/output_lock.cpp) and a killed write's
# temporaries (NAME.tmp.PID), which the next run removes.
_SKIP = re.compile(r"\.symgnn\.lock|.*\.tmp\.[0-9]+")


def read(folder):
    """{path relative to `folder`, '/'-separated: bytes} of every file under `folder`."""
    files = {}
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            full = os.path.join(root, name)
            if os.path.isfile(full) and not _SKIP.fullmatch(name):
                rel = os.path.relpath(full, folder).replace(os.sep, "/")
                with open(full, "rb") as f:
                    files[rel] = f.read()
    return files


def write(files):
    """A new temporary directory holding `files` (read()'s dict): (TemporaryDirectory, path).
    The directory lives as long as the TemporaryDirectory object."""
    owner = tempfile.TemporaryDirectory(prefix="symgnn-")
    folder = os.path.join(owner.name, "model")
    for rel, data in files.items():
        parts = rel.split("/")
        if rel.startswith("/") or ".." in parts:
            raise DataError(f"a pickled model holds a file outside its directory: {rel!r}")
        path = os.path.join(folder, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    os.makedirs(folder, exist_ok=True)
    return owner, folder
