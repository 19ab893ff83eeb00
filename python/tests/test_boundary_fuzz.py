"""The Python boundary under hostile arguments and injected faults (issue 30).

A seeded, bounded random search calls every read-only entry point of a fitted model with
values drawn from a pool of wrong, odd and extreme ones: each call either answers or raises
a symgnn.Error subclass with a one-line message, never another exception or a crash. Faults
injected through SYMGNN_FAULT_INJECT (src/util/fault_injection.h) into a fit from Python
end in one symgnn.Error line and leave no temporary file; a killed fit leaves a folder that
a new fit with overwrite=True replaces."""

import glob
import inspect
import math
import os
import random
import subprocess
import sys

import numpy as np
import pytest

import symgnn
from conftest import FAST

POOL = [
    None, True, 0, 1, -1, 3, 2**70, -2**63, 2.9, math.nan, math.inf, -math.inf, "", "0", "1", "zz",
    "0\x00", "ü", b"0", [], [None], ["0"], ["0", "1"], [0, 1], [[0, 1]], (), {}, {"0": 1}, object(),
    np.array([0, 1]), np.array([[0, 1], [2, 3]]), np.array(["0"]), np.float32("nan"), np.int64(-5),
    np.array([], dtype=float), range(3), "items", "users",
]

# (name, number of positional arguments, keyword names) of each read-only entry point.
METHODS = [
    ("predict", 2, ()), ("predict", 1, ()), ("recommend", 1, ("k", "exclude_seen")),
    ("similar_items", 1, ("k",)), ("similar_users", 1, ("k",)), ("similarity_basis", 1, ()),
    ("evaluate", 0, ("k", "relevant_min", "popularity")), ("recommend_new_user", 1, ("k", "user")),
    ("predict_new_user", 2, ("user",)), ("with_new_ratings", 1, ()), ("score", 3, ()),
]


def one_line_error(call):
    """Runs `call`; a raised exception must be a symgnn.Error with a one-line message."""
    try:
        call()
    except symgnn.Error as e:
        assert "\n" not in str(e), repr(str(e))
        assert str(e), "an empty message"
    except Exception as e:  # noqa: BLE001 -- what this test exists to catch
        pytest.fail(f"{type(e).__name__} (not a symgnn.Error): {e}")


def test_random_arguments_raise_only_symgnn_errors(fitted):
    est, _ = fitted
    rng = random.Random(30)
    calls = 0
    for target in (est.model_, est):
        for name, positional, keywords in METHODS:
            method = getattr(target, name, None)
            if method is None:
                continue
            for _ in range(12):
                args = [rng.choice(POOL) for _ in range(positional)]
                accepted = inspect.signature(method).parameters
                kwargs = {k: rng.choice(POOL) for k in keywords if k in accepted and rng.random() < 0.5}
                one_line_error(lambda: method(*args, **kwargs))
                calls += 1
    for _ in range(20):
        value = rng.choice(POOL)
        one_line_error(lambda: symgnn.Model(value))
        one_line_error(lambda: symgnn.load_dataset(value))
        calls += 2
    assert calls > 200


def fit_in_child(out, fault):
    """A fit from Python in a fresh interpreter with SYMGNN_FAULT_INJECT=`fault`."""
    env = dict(os.environ, SYMGNN_FAULT_INJECT=fault)
    code = (
        "import sys, symgnn\n"
        f"params = {FAST!r}\n"
        "try:\n"
        f"    symgnn.SyMGNN(**params).fit('synthetic', out={str(out)!r}, overwrite=True)\n"
        "except symgnn.Error as e:\n"
        "    print(type(e).__name__ + ': ' + str(e)); sys.exit(2)\n"
    )
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def temporaries(folder):
    return glob.glob(os.path.join(folder, "**", "*.tmp.*"), recursive=True)


@pytest.mark.parametrize("fault, file", [
    ("write:ENOSPC:metrics.json", "metrics.json"),
    ("write:EACCES:dataset.bin", "dataset.bin"),
    ("write:EIO:/model.pt", "model.pt"),
])
def test_write_faults_in_a_fit_from_python_are_one_symgnn_error(tmp_path, fault, file):
    out = tmp_path / "model"
    p = fit_in_child(out, fault)
    assert p.returncode == 2, p.stdout + p.stderr
    last = p.stdout.strip().splitlines()[-1]
    assert "Error: " in last and "cannot write" in last and file in last, p.stdout
    assert temporaries(str(tmp_path)) == []


def test_a_fit_killed_from_python_leaves_a_folder_a_new_fit_replaces(tmp_path):
    out = tmp_path / "model"
    for point in (3, 9):
        p = fit_in_child(out, f"kill:{point}")
        assert p.returncode != 0, p.stdout + p.stderr
    # A killed writer cannot remove its temporary file; the next fit into the folder does.
    p = fit_in_child(out, "")
    assert p.returncode == 0, p.stdout + p.stderr
    assert temporaries(str(tmp_path)) == []
    model = symgnn.Model(out)
    assert len(model.recommend([model.user_ids[0]], k=3)) == 3
