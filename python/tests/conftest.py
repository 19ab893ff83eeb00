"""Shared fixtures: the built `symgnn` binary (SYMGNN_BINARY, set by CTest) and a small,
fast training configuration on the embedded synthetic dataset."""

import os
import subprocess

import pytest

import symgnn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def binary():
    path = os.environ.get("SYMGNN_BINARY") or os.path.join(ROOT, "build", "symgnn")
    if not os.path.exists(path):
        pytest.skip(f"the symgnn binary is absent ({path}); run through CTest")
    return path


def run_cli(*args):
    """Runs the binary; returns (exit code, stdout + stderr)."""
    p = subprocess.run([binary(), *map(str, args)], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


# A few epochs of the low-rank G model: seconds, enough to be a real trained model.
FAST = dict(variant="G", train_epochs=8, lowrank_hidden=16, verbose=False, threads=1)


@pytest.fixture(scope="session")
def fitted(tmp_path_factory):
    """A SyMGNN fitted on the synthetic default, saved to a directory."""
    out = tmp_path_factory.mktemp("fit") / "model"
    model = symgnn.SyMGNN(**FAST).fit("synthetic", out=out)
    return model, out
