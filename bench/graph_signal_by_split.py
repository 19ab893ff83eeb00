#!/usr/bin/env python3
"""Does a benchmark's item graph say as much about its test ratings as about its training ones?

For Monti's .mat sets (M, Otraining, Otest, W_movies / W_users): carve a seeded share of the
training ratings as validation, as `symgnn train` does, fit the bias baseline
(mu + b_u + b_i, ridge-shrunk) on the rest, and measure, for each held-out rating (u, i) and
each graph neighbour j of i that u rated in the rest, the correlation of u's residual on i
with u's residual on j. That correlation is what the combination's item-graph member
(fit/graph_worth.h's neighbour term) feeds on. Where it is clearly larger for the carve than
for the test split, validation overrates that member and nothing decided on validation sees
it (docs/experiments.md, "Flixster's item graph: validation and test disagree").

Needs Debian's python3-numpy and python3-h5py (the .mat files are HDF5):

    python3 bench/graph_signal_by_split.py ../shared/data/monti/flixster.mat [--side item|user] [--carves 3]
"""
import argparse
import sys

import numpy as np

try:
    import h5py
except ImportError:
    sys.exit("graph_signal_by_split.py: needs h5py (apt-get install python3-h5py)")


def read_mat(path, side):
    """M, Otraining, Otest (users x items) and the side's graph as 0/1 links, as the file holds them."""
    f = h5py.File(path, "r")
    key = {"item": ("W_movies", "W_tracks"), "user": ("W_users",)}[side]
    names = [k for k in key if k in f]
    if not names:
        sys.exit(f"{path}: no {side} graph ({' or '.join(key)})")
    m, o_train, o_test = (np.array(f[k]).T for k in ("M", "Otraining", "Otest"))
    return m, o_train, o_test, (np.array(f[names[0]]).T > 0).astype(float)


def load(path, side):
    m, o_train, o_test, w = read_mat(path, side)
    if side == "user":  # users' neighbours: transpose so that the graph runs along columns
        m, o_train, o_test = m.T, o_train.T, o_test.T
    return m, o_train, o_test, w


def residuals(m, observed, shrinkage=10.0, sweeps=15):
    """m - (mu + b_u + b_i), the biases fitted to the observed entries by alternating ridge."""
    r = m * observed
    mu = r.sum() / observed.sum()
    bu = np.zeros(m.shape[0])
    bi = np.zeros(m.shape[1])
    for _ in range(sweeps):
        bi = ((r - mu - bu[:, None]) * observed).sum(0) / (observed.sum(0) + shrinkage)
        bu = ((r - mu - bi[None, :]) * observed).sum(1) / (observed.sum(1) + shrinkage)
    return m - mu - bu[:, None] - bi[None, :]


def neighbour_correlation(held_out, known, e, w):
    """Correlation of e(u, i) with e(u, j), over held-out (u, i) and graph neighbours j of i in `known`."""
    xs, ys = [], []
    for u, i in zip(*np.nonzero(held_out)):
        for j in np.nonzero(w[i] * known[u])[0]:
            if j != i:
                xs.append(e[u, i])
                ys.append(e[u, j])
    return len(xs), float(np.corrcoef(xs, ys)[0, 1]) if len(xs) > 2 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mat")
    ap.add_argument("--side", choices=("item", "user"), default="item")
    ap.add_argument("--carves", type=int, default=3)
    ap.add_argument("--fraction", type=float, default=0.1)
    args = ap.parse_args()
    m, o_train, o_test, w = load(args.mat, args.side)
    users, items = np.nonzero(o_train)
    rng = np.random.default_rng(0)
    print(f"{args.mat}: {int(o_train.sum())} training, {int(o_test.sum())} test ratings; "
          f"{args.side} graph {int(w.sum())} links")
    print("carve  pairs  corr(carve)  pairs  corr(test)")
    for c in range(args.carves):
        pick = rng.random(len(users)) < args.fraction
        carve = np.zeros_like(o_train)
        carve[users[pick], items[pick]] = 1
        rest = o_train - carve
        e = residuals(m, rest)
        nc, cc = neighbour_correlation(carve, rest, e, w)
        nt, ct = neighbour_correlation(o_test, rest, e, w)
        print(f"{c:5d}  {nc:5d}  {cc:11.4f}  {nt:5d}  {ct:10.4f}")


if __name__ == "__main__":
    main()
