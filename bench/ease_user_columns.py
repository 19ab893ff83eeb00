#!/usr/bin/python3
"""EASE with the user graph as extra input columns: a measuring reference for issue 63.

EASE (src/models/closed_form/ease_model.h) regresses the binary interactions X (users x
items) on themselves. Here each user's row is widened by their links in the user graph,
weighted a: A = [X, a S] (S users x users, 1 where u links to v), and the item outputs are
regressed on A with diag held at zero:

    B = argmin |X - A B|^2 + lambda |B_items|^2 + lambda_links |B_links|^2,  score(u) = A_u B

so the model learns, for every linked person v, which items the people linked to v take:
the user graph's term learned, where src/infer/ranker_graph_term.h fixes its form.

Protocol as docs/recommend.md's: relevant = rating >= 4; a user's candidates are the items
they did not rate in the fitted matrix; NDCG@10 over users with a relevant item. Validation
is a seeded 10 % carve of the training ratings (fit on the rest); test refits on all
training ratings at the same setting.

A second form, --residual R1,R2,...: EASE as it is, then its in-sample residual X - X B
regressed on the links alone, C = argmin |X - X B - S C|^2 + r |C|^2, score(u) = X_u B + S_u C.
EASE's B is then untouched, so the links' term could be added after any fitted EASE.

Usage: bench/ease_user_columns.py DATA.mat [--lambdas 20,50,100] [--weights 0.1,0.3] [--residual 300,1000]
Each lambda prints EASE alone, then each weight of the links (or each ridge penalty r of the
second form) with its gain per judged user (mean +- standard error, paired by user) on
validation and on test.
Needs python3-h5py (the .mat files are HDF5), numpy and scipy.
"""
import argparse

import numpy as np
import scipy.sparse as sp

from graph_signal_by_split import read_mat  # the .mat reader of this folder (needs h5py)


def ndcg_at(scores, seen, relevant, k=10):
    """Each judged user's NDCG@k, in the order of `relevant` (so two models pair by user)."""
    per_user = []
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    for u, rel in relevant.items():
        s = scores[u].copy()
        s[seen.indices[seen.indptr[u]:seen.indptr[u + 1]]] = -np.inf
        top = np.argpartition(-s, k)[:k]
        top = top[np.argsort(-s[top], kind="stable")]
        hits = np.array([i in rel for i in top], dtype=float)
        per_user.append((hits * discount).sum() / discount[:min(k, len(rel))].sum())
    return np.array(per_user)


def gain_text(with_links, alone):
    """Mean per-user gain over the model without links, with its standard error."""
    d = with_links - alone
    return f"gain {d.mean():+.4f} +- {d.std(ddof=1) / np.sqrt(len(d)):.4f}"


def ease_scores(x, links, lam, lam_links):
    a = sp.hstack([x, links]).tocsr() if links is not None else x
    g = (a.T @ a).toarray().astype(np.float64)
    penalty = np.full(g.shape[0], float(lam))
    penalty[x.shape[1]:] = lam_links
    g[np.diag_indices_from(g)] += penalty
    p = np.linalg.inv(g)
    b = -p[:, :x.shape[1]] / np.diag(p)[:x.shape[1]]
    b[np.arange(x.shape[1]), np.arange(x.shape[1])] = 0.0
    return np.asarray(a @ b)


def residual_scores(x, links, lam, ridges):
    """Two-stage form: EASE's scores X B, plus S C where C = argmin |X - X B - S C|^2 + r |C|^2
    (the links learn what EASE leaves out), for each ridge penalty r."""
    g = (x.T @ x).toarray().astype(np.float64)
    g[np.diag_indices_from(g)] += lam
    p = np.linalg.inv(g)
    b = -p / np.diag(p)
    b[np.diag_indices_from(b)] = 0.0
    base = np.asarray(x @ b)
    resid = x.toarray() - base
    used = np.flatnonzero(np.asarray(links.sum(0)).ravel() > 0)
    s = links[:, used]
    sts = (s.T @ s).toarray().astype(np.float64)
    str_ = np.asarray(s.T @ resid)
    out = []
    for r in ridges:
        c = np.linalg.solve(sts + r * np.eye(len(used)), str_)
        out.append(base + np.asarray(s @ c))
    return base, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--lambdas", default="20,50,100")
    ap.add_argument("--weights", default="0.1,0.3")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--residual", default="",
                    help="ridge penalties of the two-stage form: EASE as it is, then its in-sample "
                         "residual X - X B regressed on the links alone (comma list; empty: off)")
    args = ap.parse_args()
    m, train, test_mask, links = read_mat(args.data, "user")
    links = sp.csr_matrix(links)
    n1, n2 = m.shape
    tu, ti = np.nonzero(train)
    keep = np.random.default_rng(args.seed).random(len(tu)) < 0.9

    def interactions(u, i):
        return sp.csr_matrix((np.ones(len(u)), (u, i)), shape=(n1, n2))

    def relevant_of(pairs):
        out = {}
        for u, i in pairs:
            if m[u, i] >= 4:
                out.setdefault(u, set()).add(i)
        return out

    fit_part, everything = interactions(tu[keep], ti[keep]), interactions(tu, ti)
    validation = relevant_of(zip(tu[~keep], ti[~keep]))
    test = relevant_of(zip(*np.nonzero(test_mask)))
    print(f"{n1} users x {n2} items, {links.nnz} links; validation users {len(validation)}, test users {len(test)}")
    if args.residual:
        ridges = [float(v) for v in args.residual.split(",")]
        for lam in (float(v) for v in args.lambdas.split(",")):
            vb, vr = residual_scores(fit_part, links, lam, ridges)
            tb, tr = residual_scores(everything, links, lam, ridges)
            base_val, base_test = ndcg_at(vb, fit_part, validation), ndcg_at(tb, everything, test)
            print(f"lambda {lam:6g}  EASE alone  validation {base_val.mean():.4f}  test {base_test.mean():.4f}", flush=True)
            for r, v, t in zip(ridges, vr, tr):
                val, tst = ndcg_at(v, fit_part, validation), ndcg_at(t, everything, test)
                print(f"lambda {lam:6g}  residual ridge {r:6g}  validation {val.mean():.4f} ({gain_text(val, base_val)})"
                      f"  test {tst.mean():.4f} ({gain_text(tst, base_test)})", flush=True)
        return
    for lam in (float(v) for v in args.lambdas.split(",")):
        base_val = ndcg_at(ease_scores(fit_part, None, lam, lam), fit_part, validation)
        base_test = ndcg_at(ease_scores(everything, None, lam, lam), everything, test)
        print(f"lambda {lam:6g}  EASE alone         validation NDCG@10 {base_val.mean():.4f}  test {base_test.mean():.4f}",
              flush=True)
        for w in (float(v) for v in args.weights.split(",")):
            if w <= 0:
                continue
            val = ndcg_at(ease_scores(fit_part, w * links, lam, lam), fit_part, validation)
            tst = ndcg_at(ease_scores(everything, w * links, lam, lam), everything, test)
            print(f"lambda {lam:6g}  links' weight {w:4g}  validation NDCG@10 {val.mean():.4f} ({gain_text(val, base_val)})"
                  f"  test {tst.mean():.4f} ({gain_text(tst, base_test)})", flush=True)


if __name__ == "__main__":
    main()
