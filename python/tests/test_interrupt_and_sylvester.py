"""Ctrl-C during fit: KeyboardInterrupt, no crash, and the next fit works; and the
Sylvester solver on scipy.sparse graphs against a dense direct solve."""

import os
import signal
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

import symgnn
from conftest import FAST


def test_keyboard_interrupt_stops_a_fit_cleanly(tmp_path):
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.time()
    with pytest.raises(KeyboardInterrupt):
        symgnn.SyMGNN(**dict(FAST, train_epochs=100000, train_lr_patience=1000000,
                             train_patience=1000000)).fit("synthetic", out=tmp_path / "run")
    timer.cancel()
    assert time.time() - started < 60
    # The process is fine and the next fit runs to the end.
    m = symgnn.SyMGNN(**dict(FAST, train_epochs=2)).fit("synthetic")
    assert np.isfinite(m.metrics_["test_rmse"])


def test_progress_lines_without_tqdm(capfd):
    symgnn.SyMGNN(**dict(FAST, train_epochs=3, verbose=True)).fit("synthetic")
    err = capfd.readouterr().err
    assert "run 1/1" in err


def test_sylvester_solve_matches_a_dense_direct_solve():
    rng = np.random.default_rng(0)
    n1, n2, a = 7, 5, 0.7
    a1 = sp.random(n1, n1, density=0.5, random_state=1)
    a1 = a1 + a1.T
    a2 = sp.random(n2, n2, density=0.6, random_state=2)
    a2 = a2 + a2.T
    h = rng.normal(size=(n1, n2))
    x, report = symgnn.sylvester.solve(a1, a2, h, a, solver="cg", tol=1e-12)
    assert report["converged"] and report["solver"] == "cg"

    def normalized(m):
        d = np.asarray(m.sum(axis=1)).ravel()
        inv = np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0)
        return inv[:, None] * m.toarray() * inv[None, :]

    t1, t2 = normalized(a1), normalized(a2)
    # vec(At1 X At2^T) = (At2 kron At1) vec(X) for column-major vec.
    lhs = np.eye(n1 * n2) - a * np.kron(t2, t1)
    expected = np.linalg.solve(lhs, (1 - a) * h.flatten(order="F")).reshape((n1, n2), order="F")
    np.testing.assert_allclose(x, expected, atol=1e-8)
    x2, _ = symgnn.sylvester.solve(a1.toarray(), a2, h, a, solver="exact")
    np.testing.assert_allclose(x2, expected, atol=1e-8)
    with pytest.raises(symgnn.ConfigError):
        symgnn.sylvester.solve(a1, a2, h, 1.5)
    with pytest.raises(symgnn.ConfigError, match="item_graph"):
        symgnn.sylvester.solve(a1, sp.eye(3), h, 0.5)


def test_threads_share_a_model_and_fit_side_by_side(fitted):
    """The GIL is released in C++; calls from several threads are serialised there, so a
    model predicting from four threads gives the serial answer, and two fits at once both
    finish."""
    model, _ = fitted
    data = symgnn.load_dataset("synthetic")
    users, items, _ = data.ratings("test")
    expected = model.predict(users, items)
    results, errors = [], []

    def predict():
        try:
            results.append(model.predict(users, items))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    fits = []

    def fit():
        try:
            fits.append(symgnn.SyMGNN(**dict(FAST, train_epochs=3)).fit("synthetic").metrics_["test_rmse"])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=predict) for _ in range(4)] + [threading.Thread(target=fit) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for r in results:
        np.testing.assert_array_equal(r, expected)
    assert len(fits) == 2 and fits[0] == fits[1]
