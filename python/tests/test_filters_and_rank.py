"""Filters of lists and re-ranking a candidate list (docs/recommend.md, "Filters" and "Re-ranking
a candidate list"): Python's keyword arguments give the answers of the CLI's --exclude,
--items, --where and `symgnn rank`; a filter leaving fewer than k items gives the shorter list,
one leaving none is one error."""

import json

import pandas as pd
import pytest

import symgnn
from conftest import run_cli


def test_filters_and_rank_answer_as_the_command_line(fitted, tmp_path):
    model, out = fitted
    m = model.model_
    user, items = m.user_ids[3], m.item_ids
    attributes = tmp_path / "attributes.txt"
    attributes.write_text("".join(f"{i},shelf={'a' if n % 2 == 0 else 'b'}\n" for n, i in enumerate(items)))
    exclude = tmp_path / "exclude.csv"
    exclude.write_text(f"{items[0]}\n{user},{items[2]}\n")
    candidates = tmp_path / "items.txt"
    candidates.write_text("".join(f"{i}\n" for i in items[:40]))
    got = m.recommend(user, k=5, exclude={user: [items[2]]}, items=items[:40], where={"shelf": "a"},
                      item_attributes=attributes)
    # The global exclusion through the file, the per-user one as a dict: both must hold.
    both = m.recommend(user, k=5, exclude=[items[0]], items=items[:40], where={"shelf": "a"},
                       item_attributes=attributes)
    code, text = run_cli("recommend", "--model", out, "--user", user, "--k", 5, "--exclude", exclude, "--items",
                         candidates, "--item-attributes", attributes, "--where", "shelf=a")
    assert code == 0, text
    cli = [line.split(",")[1] for line in text.splitlines()[1:6]]
    shown = set(cli)
    assert items[0] not in shown and items[2] not in shown
    assert all(items.index(i) % 2 == 0 and items.index(i) < 40 for i in cli)
    assert set(got["item"]) <= set(items[:40]) and items[2] not in set(got["item"])
    assert items[0] not in set(both["item"])
    assert len(got) == 5
    # rank: the CLI's order and predictions.
    chosen = [items[7], items[1], items[-1], items[4]]
    ranked = m.rank(user, chosen)
    assert sorted(ranked["item"]) == sorted(chosen)
    code, text = run_cli("rank", "--model", out, "--user", user, *sum([["--item", i] for i in chosen], []))
    assert code == 0, text
    assert [line.split(",")[1] for line in text.splitlines()[1:5]] == list(ranked["item"])
    assert list(ranked["rank"]) == [1, 2, 3, 4]


def test_a_filter_leaving_fewer_than_k_gives_the_shorter_list_and_none_is_one_error(fitted):
    model, _ = fitted
    m = model.model_
    user, items = m.user_ids[0], m.item_ids
    rated = set(m.recommend(user, k=len(items), exclude_seen=False)["item"]) - set(
        m.recommend(user, k=len(items))["item"])
    unrated = [i for i in items if i not in rated][:3]
    with pytest.warns(UserWarning, match=r"has 3 candidate items after the filters \(items\), fewer than k = 10"):
        shorter = m.recommend(user, k=10, items=unrated + sorted(rated)[:2])
    assert sorted(shorter["item"]) == sorted(unrated)
    assert shorter.attrs["short_lists"] == {user: 3}
    with pytest.raises(symgnn.ConfigError, match=r"has no candidate item after the filters \(items\)") as e:
        m.recommend(user, k=10, items=sorted(rated)[:2])
    assert "\n" not in str(e.value)
    with pytest.raises(symgnn.DataError, match=r"items: 'no-such-item' is no item of the model"):
        m.recommend(user, k=1, items=["no-such-item"])
    with pytest.raises(symgnn.ConfigError, match=r"where needs item attributes \(item_attributes=, a file"):
        m.recommend(user, k=1, where={"shelf": "a"})
    with pytest.raises(symgnn.ConfigError, match="unknown item id"):
        m.rank(user, ["no-such-item"])


def test_a_trained_users_fresh_ratings_refresh_their_list(fitted, tmp_path):
    """with_new_ratings takes ratings of users the model knows (a refresh): their list is the
    CLI's with the same ratings in --new-ratings, without the items just rated."""
    model, out = fitted
    m = model.model_
    user = m.user_ids[2]
    top = list(m.recommend(user, k=2)["item"])
    levels = sorted({float(r) for r in symgnn.load_dataset("synthetic").ratings("train")[2]})
    frame = pd.DataFrame({"user": user, "item": top, "rating": levels[-1]})
    refreshed = m.with_new_ratings(frame).recommend(user, k=5)
    assert not set(refreshed["item"]) & set(top)
    path = tmp_path / "fresh.csv"
    path.write_text("user,item,rating\n" + "".join(f"{user},{i},{levels[-1]}\n" for i in top))
    code, text = run_cli("recommend", "--model", out, "--user", user, "--k", 5, "--new-ratings", path)
    assert code == 0, text
    assert [line.split(",")[1] for line in text.splitlines()[1:6]] == list(refreshed["item"])


def test_explain_answers_as_the_command_line(fitted):
    """Model.explain gives the parts `symgnn explain --format json` prints (docs/explain.md)."""
    model, out = fitted
    m = model.model_
    user = m.user_ids[2]
    item = m.recommend(user, k=1)["item"].iloc[0]
    got = m.explain(user, item, top=3, candidates=4)
    assert got["user"] == user and got["item"] == item and got["target"] == "list"
    assert 1 <= len(got["parts"]) <= 4
    code, text = run_cli("explain", "--model", out, "--user", user, "--item", item, "--top", 3, "--candidates", 4,
                         "--format", "json")
    assert code == 0, text
    cli = json.loads(next(line for line in text.splitlines() if line.startswith("{")))
    assert cli["parts"] == got["parts"] and cli["score"] == pytest.approx(got["score"], rel=1e-6)
    if got["exact"]:
        assert sum(p["value"] for p in got["parts"]) == pytest.approx(got["score"], abs=1e-6)
    with pytest.raises(symgnn.ConfigError, match="must be list or rating"):
        m.explain(user, item, target="sideways")
    with pytest.raises(symgnn.ConfigError, match="unknown item id"):
        m.explain(user, "no-such-item")
