"""`symgnn export` (docs/export.md) read back with numpy: the exported factors give the
scores of `symgnn recommend`'s lists, and model.pt is a plain archive that torch.load opens
(Debian's python3-torch)."""

import json

import numpy as np
import pytest

from conftest import run_cli

KINDS = {
    "ease": [],
    "elsa": ["--set", "elsa.dims=16", "--set", "elsa.epochs=5", "--set", "elsa.deep_hidden=0,16"],
}


def exported_scores(folder):
    """Every user's scores from the export (rated items -inf), with the ids of rows and columns."""
    record = json.loads((folder / "export.json").read_text())
    users = (folder / "users.txt").read_text().split("\n")[:-1]
    items = (folder / "items.txt").read_text().split("\n")[:-1]
    indptr, indices = np.load(folder / "seen_indptr.npy"), np.load(folder / "seen_indices.npy")
    assert record["factored"], record
    if record["users_are_interactions"]:
        x = np.zeros((len(users), len(items)))
        for u in range(len(users)):
            x[u, indices[indptr[u]:indptr[u + 1]]] = 1
        scores = x @ np.load(folder / "item_weights.npy").astype(np.float64)
    else:
        scores = np.load(folder / "user_factors.npy").astype(np.float64) @ \
            np.load(folder / "item_factors.npy").astype(np.float64).T
    if (folder / "user_bias.npy").exists():
        scores += np.load(folder / "user_bias.npy")[:, None]
    if (folder / "item_bias.npy").exists():
        scores += np.load(folder / "item_bias.npy")[None, :]
    scores += record["offset"]
    for u in range(len(users)):
        scores[u, indices[indptr[u]:indptr[u + 1]]] = -np.inf
    return users, items, scores


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_exported_factors_give_recommends_lists(kind, tmp_path):
    model, export = tmp_path / "model", tmp_path / "export"
    code, text = run_cli("train", "--data", "synthetic", "--model", kind, "--threads", 1, "--quiet", *KINDS[kind],
                         "--out", model)
    assert code == 0, text
    code, text = run_cli("export", "--model", model, "--out", export)
    assert code == 0, text
    assert "scores = the exported factors" in text, text
    users, items, scores = exported_scores(export)
    column = {i: n for n, i in enumerate(items)}
    for row in range(0, len(users), max(1, len(users) // 7)):
        code, text = run_cli("recommend", "--model", model, "--user", users[row], "--k", 10)
        assert code == 0, text
        listed = [column[line.split(",")[1]] for line in text.splitlines()[1:11]]
        # The list's items are the ten best by the exported scores (their scores, in order; equal
        # scores may take either place).
        best = np.sort(scores[row])[::-1][:10]
        assert np.allclose(scores[row, listed], best, rtol=1e-4, atol=1e-5), (scores[row, listed], best)


def test_model_pt_opens_with_torch_load(fitted):
    torch = pytest.importorskip("torch", reason="python3-torch is not installed (scripts/setup.sh installs it)")
    _, out = fitted
    archive = torch.load(str(out / "model.pt"))
    assert archive.format == "symgnn-model-1"
    # Every weight set ("weights", and "weights1", ... for averaged checkpoints), by name.
    buffers = dict(archive.named_buffers())
    assert buffers and all(name.startswith("weights") for name in buffers), list(buffers)[:5]
    assert archive.member_count >= 1 and all(t.numel() >= 0 for t in buffers.values())
