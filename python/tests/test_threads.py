"""Two models in two threads: fits take turns on LibTorch's process-wide random generator
and each equals the same fit alone; predictions on two models run at the same time; nothing
is silenced process-wide (python/src/module.cpp)."""

import threading

import numpy as np

import symgnn
from conftest import FAST


def _fit(seed, out):
    # The network's own predictions (train.auto off): at 8 epochs train.auto keeps the bias
    # baseline alone, the same for both seeds, and the seeds must give two models here.
    return symgnn.SyMGNN(**FAST, seed=seed, train_auto="off").fit("synthetic", out=out)


def test_two_models_fit_in_two_threads_equal_each_fit_alone(tmp_path):
    data = symgnn.load_dataset("synthetic")
    users, items, _ = data.ratings("test")
    alone = {s: _fit(s, tmp_path / f"alone{s}").predict(users, items) for s in (1, 2)}
    fitted, errors = {}, []

    def work(seed):
        try:
            fitted[seed] = _fit(seed, tmp_path / f"thread{seed}")
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, errors
    assert set(fitted) == {1, 2}
    for s in (1, 2):
        np.testing.assert_allclose(fitted[s].predict(users, items), alone[s], rtol=0, atol=1e-6)
    assert not np.allclose(alone[1], alone[2])  # two seeds, two models

    # Predictions on both models at once, many times over: the same answers as alone.
    answers, errors = {1: [], 2: []}, []

    def predict(seed):
        try:
            for _ in range(20):
                answers[seed].append(fitted[seed].predict(users, items))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=predict, args=(s,)) for s in (1, 2, 1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, errors
    for s in (1, 2):
        assert len(answers[s]) == 40
        for a in answers[s]:
            np.testing.assert_allclose(a, alone[s], rtol=0, atol=1e-6)


def test_a_quiet_fit_prints_nothing_without_any_process_wide_silencing(capfd):
    _fit(3, None)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_importing_sets_the_idle_thread_policies_the_command_sets_unless_given():
    # python/symgnn/__init__.py, as src/cli/main.cpp: OpenMP's passive wait and OpenBLAS's
    # workers' short spin after each product, read when the core loads; a value given is kept.
    import os
    import subprocess
    import sys

    code = "import os, symgnn; print(os.environ['OMP_WAIT_POLICY'], os.environ['OPENBLAS_THREAD_TIMEOUT'])"
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["PASSIVE", "24"]
    env.update(OMP_WAIT_POLICY="ACTIVE", OPENBLAS_THREAD_TIMEOUT="20")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["ACTIVE", "20"]
