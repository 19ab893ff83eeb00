"""A new user's ratings given in memory to a fitted model (the same answers as the
--new-ratings file path, in Python and from the command line), and similar items and users
(TrainedModel::similar) by original id."""

import numpy as np
import pandas as pd
import pytest

import symgnn
from conftest import FAST, run_cli


def alice(model):
    """Six ratings over the model's items, at its rating levels."""
    levels = sorted({float(r) for r in symgnn.load_dataset("synthetic").ratings("train")[2]})
    items = model.model_.item_ids[:6]
    return {item: levels[k % len(levels)] for k, item in enumerate(items)}


def test_a_new_user_in_memory_answers_as_the_file_path(fitted, tmp_path):
    model, out = fitted
    given = alice(model)
    path = tmp_path / "alice.csv"
    path.write_text("user,item,rating\n" + "".join(f"alice,{i},{r}\n" for i, r in given.items()))
    by_file = symgnn.Model(out, new_ratings=path, verbose=False)
    assert by_file.new_nodes()["new_users"] == 1
    expected = by_file.recommend("alice", k=10)
    got = model.recommend_new_user(given, k=10, user="alice")
    pd.testing.assert_frame_equal(got, expected)
    assert not set(got["item"]) & set(given)  # the items she rated are excluded
    # The same ratings as (item, rating) pairs, as a DataFrame, and under a fresh id.
    pd.testing.assert_frame_equal(model.recommend_new_user(list(given.items()), k=10, user="alice"), expected)
    frame = pd.DataFrame({"user": "alice", "item": list(given), "rating": list(given.values())})
    pd.testing.assert_frame_equal(model.recommend_new_user(frame, k=10), expected)
    anonymous = model.recommend_new_user(given, k=10)
    assert set(anonymous["user"]) == {"new-user"}
    assert list(anonymous["item"]) == list(expected["item"])
    np.testing.assert_array_equal(anonymous["prediction"], expected["prediction"])
    # Predictions of other items, and of one item as a float.
    others = model.model_.item_ids[6:40]
    np.testing.assert_array_equal(model.predict_new_user(given, others, user="alice"),
                                  by_file.predict("alice", others))
    assert model.predict_new_user(given, others[0]) == by_file.predict("alice", others[0])
    # Several new users at once, in memory, as the file would give them.
    bob = pd.DataFrame({"user": "bob", "item": list(given)[:3], "rating": list(given.values())[:3]})
    many = model.with_new_ratings(pd.concat([frame, bob]))
    assert many.new_nodes()["new_users"] == 2
    path.write_text(path.read_text() + "".join(f"bob,{i},{r}\n" for i, r in zip(bob["item"], bob["rating"])))
    pd.testing.assert_frame_equal(many.recommend(["alice", "bob"], k=10),
                                  symgnn.Model(out, new_ratings=path, verbose=False).recommend(["alice", "bob"], k=10))
    # And the command line, from the same file (its scores are printed to 6 digits).
    code, text = run_cli("recommend", "--model", out, "--new-ratings", path, "--user", "alice", "--k", "10",
                         "--out", tmp_path / "cli.csv")
    assert code == 0, text
    cli = pd.read_csv(tmp_path / "cli.csv", dtype={"user": str, "item": str})
    assert list(cli["item"]) == list(got["item"])
    np.testing.assert_allclose(cli["prediction"], got["prediction"], rtol=1e-5)


def test_a_new_users_graph_neighbours_in_memory_answer_as_the_files(fitted, tmp_path):
    """edges= (the synthetic set's user graph comes from its file): the same lists as the
    new_user_graph file, no file written; a bad neighbour is one error naming the edges."""
    model, out = fitted
    given = alice(model)
    users = model.model_.user_ids
    (tmp_path / "alice.csv").write_text("user,item,rating\n" + "".join(f"alice,{i},{r}\n" for i, r in given.items()))
    (tmp_path / "edges.csv").write_text(f"alice,{users[2]},1\nalice,{users[5]},0.5\n")
    by_file = symgnn.Model(out, new_ratings=tmp_path / "alice.csv", new_user_graph=tmp_path / "edges.csv",
                           verbose=False)
    assert by_file.new_nodes()["user_edges"] == 2
    expected = by_file.recommend("alice", k=10)
    got = model.recommend_new_user(given, k=10, user="alice", edges=[users[2], (users[5], 0.5)])
    pd.testing.assert_frame_equal(got, expected)
    pd.testing.assert_frame_equal(
        model.recommend_new_user(given, k=10, user="alice", edges={users[2]: 1, users[5]: 0.5}), expected)
    with pytest.raises(symgnn.DataError, match="edges:2: "):
        model.recommend_new_user(given, k=10, edges=[users[2], "nobody"])
    with pytest.raises(symgnn.ConfigError, match=r"edges\[0\]: weight"):
        model.recommend_new_user(given, k=10, edges=[(users[2], "heavy")])


def test_a_new_user_is_answered_from_the_model_in_memory(fitted, tmp_path):
    """docs/reliability.md: the folder moved away after loading changes nothing."""
    import shutil
    estimator, out = fitted
    folder = tmp_path / "model"
    shutil.copytree(out, folder)
    model = symgnn.Model(folder, verbose=False)
    given = alice(estimator)
    before = model.recommend_new_user(given, k=10, user="alice")
    shutil.move(str(folder), str(tmp_path / "moved"))
    pd.testing.assert_frame_equal(model.recommend_new_user(given, k=10, user="alice"), before)


def test_new_user_errors_are_symgnn_errors(fitted):
    model, _ = fitted
    given = alice(model)
    known = model.model_.user_ids[0]
    with pytest.raises(symgnn.ConfigError, match="is in the model's data"):
        model.recommend_new_user(given, user=known)
    item = next(iter(given))
    with pytest.raises(symgnn.DataError, match=r"ratings\[1\]: rating 2.5 is not one of the model's rating levels \(1 2 3 4 5\)"):
        model.recommend_new_user({item: given[item], model.model_.item_ids[7]: 2.5})
    for bad, match in (({}, "no ratings"), ({item: "five"}, "ratings are numbers"), ("5", "expected a dict"),
                       ([(item, 5, 1)], r"row 0 is .*expected a dict"),
                       (pd.DataFrame({"item": [item]}), "no column rating"),
                       (pd.DataFrame({"user": ["a", "b"], "item": [item, item], "rating": [5, 5]}), "2 users")):
        with pytest.raises(symgnn.DataError, match=match) as e:
            model.recommend_new_user(bad)
        assert "\n" not in str(e.value)


def cosine_of_co_ratings(rows, n):
    """Brute force: the cosine of binary rows (index -> the indices it touches), rounded to
    float32 as the C++ answers it, so that equal cosines tie as they do there."""
    m = np.zeros((n, max((max(s) for s in rows if len(s)), default=0) + 1))
    for k, s in enumerate(rows):
        m[k, list(s)] = 1.0
    counts = m.sum(axis=1)
    return ((m @ m.T) / np.sqrt(np.maximum(np.outer(counts, counts), 1))).astype(np.float32)


def top(sim_row, index, k, positive_only):
    order = [j for j in range(len(sim_row)) if j != index and (sim_row[j] > 0 or not positive_only)]
    order.sort(key=lambda j: (-sim_row[j], j))
    return order[:k]


def test_similar_items_and_users_by_co_ratings_match_a_brute_force(tmp_path):
    pop = symgnn.SyMGNN(model="popularity", verbose=False).fit("synthetic", out=tmp_path / "pop")
    m = pop.model_
    assert m.similarity_basis("items") == "co-ratings" and m.similarity_basis("users") == "co-ratings"
    users, items = m.user_ids, m.item_ids
    seen = [m._m.seen_items(u) for u in range(len(users))]  # what the model trained on
    raters = [[] for _ in items]
    for u, s in enumerate(seen):
        for i in s:
            raters[i].append(u)
    for side, rows, ids, call in (("item", raters, items, pop.similar_items), ("user", seen, users, pop.similar_users)):
        sim = cosine_of_co_ratings(rows, len(ids))
        for index in (0, 5, len(ids) - 1):
            got = call(ids[index], k=7)
            assert list(got.columns) == [side, f"similar_{side}", "similarity", "rank"]
            assert set(got[side]) == {ids[index]} and list(got["rank"]) == list(range(1, len(got) + 1))
            want = top(sim[index], index, 7, positive_only=True)
            assert list(got[f"similar_{side}"]) == [ids[j] for j in want]
            np.testing.assert_allclose(got["similarity"], sim[index, want], rtol=1e-5)


def test_similar_by_representations_is_a_symmetric_ranking(fitted):
    model, _ = fitted
    m = model.model_
    assert m.similarity_basis("items") == "representations"
    items = m.item_ids
    first = model.similar_items(items[3], k=len(items))
    assert len(first) == len(items) - 1 and items[3] not in set(first["similar_item"])
    sims = first["similarity"].to_numpy()
    assert np.all(np.diff(sims) <= 0) and np.all(np.abs(sims) <= 1 + 1e-6)
    # The cosine is symmetric: each neighbour sees item 3 at the same similarity.
    for other, s in zip(first["similar_item"][:5], sims[:5]):
        back = model.similar_items(other, k=len(items))
        np.testing.assert_allclose(back.loc[back["similar_item"] == items[3], "similarity"], [s], rtol=1e-5,
                                   atol=1e-6)
    # Several ids at once: each one's list, in order; the loaded class answers the same.
    two = model.similar_users(m.user_ids[:2], k=4)
    assert list(two["user"]) == [m.user_ids[0]] * 4 + [m.user_ids[1]] * 4
    pd.testing.assert_frame_equal(symgnn.Model(model.path_, verbose=False).similar_users(m.user_ids[:2], k=4), two)
    with pytest.raises(symgnn.ConfigError, match="unknown item id 'nothing'"):
        model.similar_items("nothing")
    with pytest.raises(symgnn.ConfigError, match="side must be users or items"):
        m.similarity_basis("things")


def test_edit_graph_answers_as_the_command_line_and_is_journalled(tmp_path):
    """Model.edit_graph gives the lists `symgnn graph edit` leaves in the directory; a bad edit
    changes nothing (docs/graph_edits.md)."""
    import shutil
    out = tmp_path / "model"
    symgnn.SyMGNN(**FAST).fit("synthetic", out=out)
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    m = symgnn.load(out).model_
    before = m.recommend("0", k=5)
    with pytest.raises(symgnn.ConfigError, match="self-loop"):
        m.edit_graph([("user", "add", "0", "0")])
    assert not (out / "graph_journal.jsonl").exists()
    m.edit_graph([{"side": "user", "op": "add", "a": "0", "b": "9", "weight": 2.0}, ("user", "add", "0", "17")])
    assert (out / "graph_journal.jsonl").exists()
    code, text = run_cli("graph", "edit", "--model", copy, "--add-user-edge", "0,9,2", "--add-user-edge", "0,17")
    assert code == 0, text
    code, text = run_cli("recommend", "--model", copy, "--user", "0", "--k", 5)
    assert code == 0, text
    assert [line.split(",")[1] for line in text.splitlines()[1:6]] == list(m.recommend("0", k=5)["item"])
    again = symgnn.load(out).model_  # the journal replayed
    assert list(again.recommend("0", k=5)["item"]) == list(m.recommend("0", k=5)["item"])
    assert len(before) == 5


def test_edit_graph_refuses_while_another_writer_has_journalled_since_the_load(tmp_path):
    """Two writers of one journal (src/infer/graph_journal.h): a batch from a model that has not
    replayed what `symgnn graph edit` journalled since it was loaded is refused, nothing
    written; loaded again, it edits."""
    out = tmp_path / "model"
    symgnn.SyMGNN(**FAST).fit("synthetic", out=out)
    m = symgnn.load(out).model_
    m.edit_graph([("user", "add", "0", "9")])
    code, text = run_cli("graph", "edit", "--model", out, "--remove-user-edge", "0,9")
    assert code == 0, text
    journal = (out / "graph_journal.jsonl").read_text()
    with pytest.raises(symgnn.Error, match="journalled by another writer since this model was loaded"):
        m.edit_graph([("user", "remove", "0", "9")])
    assert (out / "graph_journal.jsonl").read_text() == journal
    again = symgnn.load(out).model_
    with pytest.raises(symgnn.ConfigError, match="no edge"):
        again.edit_graph([("user", "remove", "0", "9")])
    again.edit_graph([("user", "add", "0", "17")])
    assert (out / "graph_journal.jsonl").read_text().count("\n") == 3


def test_edit_graph_creates_no_node_whose_id_the_files_cannot_hold(tmp_path):
    """The one id rule (src/data/id_rule.h) holds for nodes created by edit_graph."""
    out = tmp_path / "model"
    symgnn.SyMGNN(**FAST).fit("synthetic", out=out)
    m = symgnn.load(out).model_
    for bad, why in [("a,b", "holds a comma"), ("a\tb", "holds a tab"), ("a\x00b", "control character"),
                     ("x" * 2000, "bytes long")]:
        with pytest.raises(symgnn.ConfigError, match=why):
            m.edit_graph([{"side": "user", "op": "add", "a": bad, "b": "0", "create": True}])
    assert not (out / "graph_journal.jsonl").exists()


def test_edit_graph_creates_a_user_by_follows_as_the_command_line_does(tmp_path):
    """A user that is no node joins by its follows alone with create=True (the CLI's
    `graph edit --create`), gets a list and similar users, and a load replays it."""
    import shutil
    out = tmp_path / "model"
    symgnn.SyMGNN(**FAST).fit("synthetic", out=out)
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    m = symgnn.load(out).model_
    with pytest.raises(symgnn.ConfigError, match="set create to add it"):
        m.edit_graph([("user", "add", "newcomer", "0")])
    with pytest.raises(symgnn.ConfigError, match="create: must be True or False"):
        m.edit_graph([{"side": "user", "a": "newcomer", "b": "0", "create": "yes"}])
    m.edit_graph([{"side": "user", "a": "newcomer", "b": "0", "create": True},
                  ("user", "add", "newcomer", "9", 1.0, True)])
    ours = list(m.recommend("newcomer", k=5)["item"])
    assert len(ours) == 5
    assert len(m.similar_users("newcomer", k=3)) == 3
    code, text = run_cli("graph", "edit", "--model", copy, "--create", "--add-user-edge", "newcomer,0",
                         "--add-user-edge", "newcomer,9")
    assert code == 0, text
    code, text = run_cli("recommend", "--model", copy, "--user", "newcomer", "--k", 5)
    assert code == 0, text
    assert [line.split(",")[1] for line in text.splitlines()[1:6]] == ours
    assert list(symgnn.load(out).model_.recommend("newcomer", k=5)["item"]) == ours


def test_a_new_user_known_by_follows_alone_is_the_user_a_graph_edit_would_create(tmp_path):
    """recommend_new_user(None, edges=...): no rating, the people they follow; the same list as
    a copy of the model where a graph edit created that user with those links (issue 63)."""
    out = tmp_path / "model"
    model = symgnn.SyMGNN(**FAST).fit("synthetic", out=out)
    users = model.model_.user_ids
    follows = [users[2], users[5], users[11]]
    got = model.recommend_new_user(None, k=5, user="newcomer", edges=follows)
    assert set(got["user"]) == {"newcomer"} and len(got) == 5
    pd.testing.assert_frame_equal(model.recommend_new_user([], k=5, user="newcomer", edges=follows), got)
    edited = symgnn.load(out).model_
    edited.edit_graph([{"side": "user", "a": "newcomer", "b": follows[0], "create": True}] +
                      [("user", "add", "newcomer", v) for v in follows[1:]])
    assert list(got["item"]) == list(edited.recommend("newcomer", k=5)["item"])
    with pytest.raises(symgnn.ConfigError, match="edges= for a user known by whom they follow alone"):
        model.recommend_new_user(None, k=5)
    with pytest.raises(symgnn.ConfigError, match="predict_new_user needs the new user's ratings"):
        model.predict_new_user(None, model.model_.item_ids[:2], edges=follows)


def test_a_user_graph_file_names_a_new_user_known_by_follows_alone(tmp_path):
    """symgnn.Model(path, new_user_graph=FILE): a user the file names first (a,b: a follows b),
    neither trained nor in new_ratings, is a new user known by follows alone, as the command
    line reads them (docs/recommend.md, "New users"): the list recommend_new_user gives."""
    out = tmp_path / "model"
    model = symgnn.SyMGNN(**FAST).fit("synthetic", out=out)
    users = model.model_.user_ids
    follows = [users[2], users[5], users[11]]
    edges = tmp_path / "follows.csv"
    edges.write_text("".join(f"newcomer,{v}\n" for v in follows))
    loaded = symgnn.Model(out, new_user_graph=edges)
    want = model.recommend_new_user(None, k=5, user="newcomer", edges=follows)
    assert list(loaded.recommend("newcomer", k=5)["item"]) == list(want["item"])
    edges.write_text(f"newcomer,{follows[0]}\nnewcomer,nobody\n")
    with pytest.raises(symgnn.DataError, match="follows.csv:2: unknown user id 'nobody'"):
        symgnn.Model(out, new_user_graph=edges)
