#!/usr/bin/env python3
"""The overhead of Python over the command line on the same training (issue 12): the tuned
ML-100K u1 config (configs/ml100k_lowrank_encoder.conf, one seed) trained by
`symgnn train` and by symgnn.SyMGNN.fit, alternately (CLI, Python, Python, CLI), wall
clock of each, and the overhead of the means. Both write a full model directory (fit()
also loads it back). About 6 minutes on 2 cores.

    PYTHONPATH=build/python python3 bench/bench_python_overhead.py [--repeats 2] [--threads 2]
"""

import argparse
import os
import subprocess
import sys
import time

import symgnn

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--repeats", type=int, default=2)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--out", default=os.path.join(root, "out", "bench_python_overhead"))
ap.add_argument("--binary", default=os.path.join(root, "build", "symgnn"))
args = ap.parse_args()

data = os.path.join(os.environ.get("SYMGNN_DATA_DIR") or os.path.join(root, "..", "shared", "data"), "ml-100k")
if not os.path.isdir(data):
    print(f"skipped: {data} is absent (set SYMGNN_DATA_DIR)")
    sys.exit(0)
config = os.path.join(root, "configs", "ml100k_lowrank_encoder.conf")


def cli(k):
    out = os.path.join(args.out, f"cli{k}")
    t = time.perf_counter()
    subprocess.run([args.binary, "train", "--data", data, "--config", config, "--runs", "1", "--seed", "1",
                    "--threads", str(args.threads), "--quiet", "--overwrite", "--out", out], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t, out


def python(k):
    out = os.path.join(args.out, f"py{k}")
    t = time.perf_counter()
    m = symgnn.SyMGNN(config=config, train_runs=1, seed=1, threads=args.threads, verbose=False)
    m.fit(symgnn.load_dataset(data, split="u1"), out=out, overwrite=True)
    return time.perf_counter() - t, out


os.makedirs(args.out, exist_ok=True)
times = {"cli": [], "python": []}
outs = {}
order = []
for r in range(args.repeats):
    order += ["cli", "python"] if r % 2 == 0 else ["python", "cli"]
for k, kind in enumerate(order):
    secs, out = (cli if kind == "cli" else python)(k)
    times[kind].append(secs)
    outs[kind] = out
    print(f"{kind:6s} run {k}: {secs:.1f} s", flush=True)

import json  # noqa: E402

rmse = {k: json.load(open(os.path.join(v, "metrics.json")))["test_rmse"] for k, v in outs.items()}
mean = {k: sum(v) / len(v) for k, v in times.items()}
print(f"\nML-100K u1, {os.path.basename(config)}, 1 seed, {args.threads} thread(s), {args.repeats} repeat(s)")
print(f"{'':8s}{'mean s':>10s}{'runs':>30s}{'test RMSE':>12s}")
for k in ("cli", "python"):
    print(f"{k:8s}{mean[k]:10.1f}{', '.join(f'{t:.1f}' for t in times[k]):>30s}{rmse[k]:12.4f}")
print(f"overhead of Python: {100 * (mean['python'] / mean['cli'] - 1):+.1f} %")
