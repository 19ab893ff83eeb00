"""The Sylvester baseline's equation (Eq. 1 of the paper), X = a At1 X At2^T + (1-a) H,
solved by the C++ solvers (src/models/sylvester/) on scipy.sparse graphs."""

import numpy as np

from . import _args, _core
from ._errors import ConfigError


def _dense(value, what):
    """`value` as a float numpy array: ConfigError naming `what` for text, None or ragged rows."""
    try:
        return np.asarray(value.toarray() if hasattr(value, "toarray") else value, dtype=float)
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{what}: expected a matrix of numbers ({e})") from None


def _coo(graph, n, what):
    if hasattr(graph, "tocoo"):
        coo = graph.tocoo()
        rows, cols, vals = coo.row, coo.col, coo.data
        shape = coo.shape
    else:
        arr = _dense(graph, what)
        if arr.ndim != 2:
            raise ConfigError(f"{what}: expected a square matrix, got shape {arr.shape}")
        shape = arr.shape
        rows, cols = np.nonzero(arr)
        vals = arr[rows, cols]
    if shape != (n, n):
        raise ConfigError(f"{what}: a {shape[0]} x {shape[1]} matrix where {n} x {n} is needed")
    return n, rows.astype(np.int64).tolist(), cols.astype(np.int64).tolist(), vals.astype(float).tolist()


def solve(user_graph, item_graph, prior, alpha, solver="cg", tol=1e-8, max_iter=10000, normalize=True):
    """X (users x items, numpy float64) solving X = a At1 X At2^T + (1-a) H, and the solver's
    report (dict: solver, iterations, relative_residual, converged, seconds,
    operator_applications).

    user_graph, item_graph: adjacency matrices A1 (n1 x n1), A2 (n2 x n2), scipy.sparse or
    dense, symmetric, non-negative; At = D^-1/2 A D^-1/2 when normalize (as
    `symgnn sylvester` does), else used as given. prior: H (n1 x n2). alpha: a in [0, 1).
    solver: fixed_point, cg, cr or exact."""
    alpha, tol = _args.number(alpha, "alpha"), _args.number(tol, "tol")
    max_iter, solver = _args.count(max_iter, "max_iter"), _args.text(solver, "solver")
    h = np.ascontiguousarray(_dense(prior, "prior"))
    if h.ndim != 2:
        raise ConfigError(f"prior: expected a users x items matrix, got shape {h.shape}")
    n1, n2 = h.shape
    g1 = _coo(user_graph, n1, "user_graph")
    g2 = _coo(item_graph, n2, "item_graph")
    return _core.sylvester_solve(*g1, *g2, h, alpha, solver, tol, max_iter, _args.flag(normalize, "normalize"))
