// Graph edits (symgnn/graph_edit.h) and their journal (infer/graph_journal.h): an edited
// model scores as the model rebuilt by hand on the edited graph, the journal replays on
// load to the same scores, bad edits and damaged records are one line each.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "infer/graph_journal.h"
#include "infer/model_parts.h"
#include "infer_test_util.h"
#include "symgnn/error.h"
#include "symgnn/graph_edit.h"
#include "symgnn/trained_model.h"
#include "train/checkpoint.h"

using namespace symgnn;
namespace fs = std::filesystem;

namespace {

/// A low-rank model (variant G: the CGE layers read the user graph) fitted on 24 users with a
/// follow graph from a file; its directory.
std::string followed_model(const std::string& tag) {
  const std::string d = symgnn::testing::scratch_dir("infer_graph_edit_" + tag);
  symgnn::testing::write_file(d, "ratings.csv", symgnn::testing::two_taste_csv(24, 18, 0.4, 3));
  std::string follows;
  for (int u = 0; u + 1 < 24; u += 2)
    follows += "u" + std::to_string(u) + ",u" + std::to_string(u + 1) + "\n";
  symgnn::testing::write_file(d, "follows.csv", follows);
  RunConfig cfg = start_config("", "");
  cfg.data.source = d + "/ratings.csv";
  cfg.data.user_graph_file = d + "/follows.csv";
  cfg.data.test_fraction = 0.2;
  for (const char* s :
       {"model=lowrank", "lowrank.variant=G", "graph.user_graph=file", "graph.item_graph=identity",
        "train.epochs=5", "lowrank.hidden=8", "train.ranker=none"})
    apply_override(cfg, s);
  FitOptions o;
  o.out_dir = d + "/run";
  o.overwrite = true;
  fit(cfg, o);
  return o.out_dir;
}

}  // namespace

TEST(GraphEdit, AnEditedModelScoresAsTheModelRebuiltOnTheEditedGraph) {
  const std::string dir = followed_model("equal");
  const TrainedModel m = TrainedModel::load(dir);
  const std::vector<Delta::Edge> edits = {graph_edit("user", "add", "u0", "u5", 1.0),
                                          graph_edit("user", "remove", "u2", "u3", 1.0),
                                          graph_edit("user", "add", "u7", "u20", 2.5)};
  const TrainedModel edited = apply_graph_edits(m, edits);
  // By hand: the same data with those entries changed, members from the same weights.
  Dataset ds = m.dataset();
  auto index = [&](const std::string& id) {
    for (int64_t u = 0; u < ds.users.count; ++u)
      if (ds.users.id_of(u) == id) return u;
    return int64_t{-1};
  };
  EdgeList& g = ds.users.graph;
  EdgeList kept;
  for (size_t e = 0; e < g.src.size(); ++e) {
    const bool cut = (g.src[e] == index("u2") && g.dst[e] == index("u3")) ||
                     (g.src[e] == index("u3") && g.dst[e] == index("u2"));
    if (!cut) kept.add(g.src[e], g.dst[e], g.weight[e]);
  }
  kept.add(index("u0"), index("u5"), 1), kept.add(index("u5"), index("u0"), 1);
  kept.add(index("u7"), index("u20"), 2.5f), kept.add(index("u20"), index("u7"), 2.5f);
  ds.users.graph = kept;
  std::vector<train::ModuleState> states;
  for (const auto& member : m.parts().members) states.push_back(train::module_state(*member));
  infer::ModelParts by_hand = infer::model_parts(m.config(), ds, states);
  const TrainedModel want(std::move(by_hand));
  EXPECT_LT(symgnn::testing::largest_difference(symgnn::testing::every_users_scores(edited),
                                                symgnn::testing::every_users_scores(want)),
            1e-5);
  // The edit reached the scores: u0's list changed, the graph's own entries are as asked.
  EXPECT_GT(symgnn::testing::largest_difference(m.score_all_items({index("u0")}),
                                                edited.score_all_items({index("u0")})),
            1e-6);
  EXPECT_EQ(edited.dataset().users.graph.src.size(), kept.src.size());
  // The edited members carried the representations over (their receptive field recomputed,
  // not a forward pass), and a chain of edits, each from the last one's, ends where the batch
  // does.
  infer::ModelParts again = infer::rebuilt_parts(m.parts(), edited.dataset());
  for (size_t k = 0; k < again.members.size(); ++k)
    EXPECT_TRUE(again.members[k]->take_graph_edit(*m.parts().members[k]));
  const TrainedModel chained =
      apply_graph_edits(apply_graph_edits(apply_graph_edits(m, {edits[0]}), {edits[1]}), {edits[2]});
  EXPECT_LT(symgnn::testing::largest_difference(symgnn::testing::every_users_scores(chained),
                                                symgnn::testing::every_users_scores(want)),
            1e-5);

  // A new user folded into the edited model (from its carried trace) as the grown model places them.
  symgnn::testing::expect_fold_equals_growth(chained, {{"someone", "i0", 5}, {"someone", "i3", 2}});

  // Journalled and loaded again: the same scores, and the directory loads as edited everywhere.
  EXPECT_EQ(infer::append_graph_journal(dir, {edits[0]}), 1);
  EXPECT_EQ(infer::append_graph_journal(dir, {edits[1], edits[2]}), 2);
  EXPECT_LT(symgnn::testing::largest_difference(symgnn::testing::every_users_scores(TrainedModel::load(dir)),
                                                symgnn::testing::every_users_scores(edited)),
            1e-5);
}

TEST(GraphEdit, BadEditsAreOneLineNamingTheEdit) {
  const std::string dir = followed_model("bad");
  const TrainedModel m = TrainedModel::load(dir);
  // (side, op, a, b, weight) as words, as serve, Python and the journal give them (graph_edit).
  struct Words {
    std::string side, op, a, b;
    double weight;
  };
  const std::vector<std::pair<Words, std::string>> cases = {
      {{"user", "add", "u0", "u0", 1}, "edits[0]: ('u0', 'u0') is a self-loop"},
      {{"user", "add", "u0", "nobody", 1}, "edits[0]: 'nobody' is no user of the model"},
      {{"user", "add", "u0", "u4", std::nan("")}, "must be finite and above 0"},
      {{"user", "add", "u0", "u4", -1}, "must be finite and above 0"},
      {{"user", "add", "u0", "u4", 1e-300}, "weight 1e-300: must be finite and above 0 (as a 32-bit float"},
      {{"user", "remove", "u0", "u4", 1}, "no edge ('u0', 'u4') in the user graph to remove"},
      {{"item", "add", "i0", "i1", 1}, "the model uses no item graph"},
      {{"users", "add", "u0", "u4", 1}, "side 'users': must be user or item"},
      {{"user", "link", "u0", "u4", 1}, "op 'link': must be add or remove"},
  };
  for (const auto& [w, needle] : cases) {
    try {
      apply_graph_edits(m, {graph_edit(w.side, w.op, w.a, w.b, w.weight)});
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  // A kind that reads no user graph says so: EASE under train.cold_lists = model (whose users
  // without ratings are not listed by the people linked to them), while by default its cold
  // lists read the user graph, and this data has none.
  const auto refusal = [](const std::string& tag, const std::vector<std::string>& sets) {
    const TrainedModel ease = TrainedModel::load(
        symgnn::testing::fit_csv(tag, symgnn::testing::two_taste_csv(20, 12, 0.4, 3), sets));
    try {
      apply_graph_edits(ease, {graph_edit("user", "add", "u0", "u1", 1)});
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("infer_graph_edit_ease", {"model=ease", "train.cold_lists=model"})
                .find("model = ease reads no user graph"),
            std::string::npos);
  EXPECT_NE(refusal("infer_graph_edit_ease_cold", {"model=ease"}).find("the model uses no user graph"),
            std::string::npos);
}

TEST(GraphJournal, ADamagedRecordIsRefusedNamingIt) {
  const std::string d = symgnn::testing::scratch_dir("infer_graph_journal");
  fs::remove(d + "/" + infer::kGraphJournalFile);
  EXPECT_TRUE(infer::read_graph_journal(d).empty());
  EXPECT_EQ(infer::append_graph_journal(d, {graph_edit("user", "add", "a", "b", 2.0)}), 1);
  EXPECT_EQ(infer::append_graph_journal(
                d, {graph_edit("item", "remove", "x", "y", 1.0), graph_edit("user", "add", "c", "d", 1.0)}),
            2);
  const auto batches = infer::read_graph_journal(d);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0][0].weight, 2.0);
  EXPECT_EQ(batches[1][0].op, EdgeOp::remove);
  EXPECT_EQ(batches[1][0].side, NodeSide::items);
  EXPECT_EQ(batches[1][1].b, "d");
  const std::string path = d + "/" + infer::kGraphJournalFile;
  std::string text = symgnn::testing::read_file(path);
  auto refused = [&](const std::string& contents, const std::string& needle) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
    try {
      infer::read_graph_journal(d);
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  std::string flipped = text;
  flipped[flipped.find("\"x\"") + 1] = 'z';  // record 2's item id changed under its checksum
  refused(flipped, "graph_journal.jsonl:2: damaged graph journal record (its checksum does not match)");
  refused(text.substr(0, text.size() - 5),
          "graph_journal.jsonl:2: damaged graph journal record (the last line is cut short");
  const size_t second = text.find('\n') + 1;
  refused(text.substr(second) + text.substr(0, second),
          "graph_journal.jsonl:1: damaged graph journal record (not record 1)");
  refused(text + "\n", "graph_journal.jsonl:3: damaged graph journal (a blank line");
}

TEST(GraphJournal, AppendingChecksTheJournalAsItIsUnderItsLock) {
  const std::string d = symgnn::testing::scratch_dir("infer_graph_journal_append");
  const std::string path = d + "/" + infer::kGraphJournalFile;
  fs::remove_all(path);
  ASSERT_EQ(infer::append_graph_journal(d, {graph_edit("user", "add", "a", "b", 2.0)}), 1);
  // A writer that read 1 record sees what another appended since, and refuses by throwing:
  // nothing is written.
  ASSERT_EQ(infer::append_graph_journal(d, {graph_edit("user", "remove", "a", "b", 1.0)}), 2);
  std::vector<Delta::Edge> seen;
  EXPECT_THROW(infer::append_graph_journal(d, {graph_edit("user", "remove", "a", "b", 1.0)}, 1,
                                           [&](const std::vector<Delta::Edge>& unseen) {
                                             seen = unseen;
                                             throw ConfigError("no edge (a, b) to remove");
                                           }),
               ConfigError);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].op, EdgeOp::remove);
  EXPECT_EQ(infer::graph_journal_records(d), 2);
  // One that read every record sees nothing unseen, and appends.
  EXPECT_EQ(infer::append_graph_journal(
                d, {graph_edit("user", "add", "a", "b", 1.0)}, 2,
                [](const std::vector<Delta::Edge>& unseen) { EXPECT_TRUE(unseen.empty()); }),
            3);
  // One that read more records than the journal holds (replaced since) is refused.
  try {
    infer::append_graph_journal(d, {graph_edit("user", "add", "a", "b", 1.0)}, 5, nullptr);
    ADD_FAILURE() << "a model newer than its journal appended";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("fewer than the 5 the model replayed"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(infer::graph_journal_records(d), 3);

  // A record cut short by a writer stopped mid-write: appending refuses, saying how to drop
  // it; the file is unchanged; after the truncate it names, the journal takes edits again.
  const std::string whole = symgnn::testing::read_file(path);
  const std::string cut = whole + "{\"seq\":4,\"edits\":[{\"side\":\"us";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << cut;
  try {
    infer::append_graph_journal(d, {graph_edit("user", "add", "a", "c", 1.0)});
    ADD_FAILURE() << "appended after a cut record";
  } catch (const DataError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("graph_journal.jsonl:4: damaged graph journal record (the last line is cut short"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("truncate -s " + std::to_string(whole.size()) + " " + path), std::string::npos)
        << what;
  }
  EXPECT_EQ(symgnn::testing::read_file(path), cut);
  fs::resize_file(path, whole.size());
  EXPECT_EQ(infer::append_graph_journal(d, {graph_edit("user", "add", "a", "c", 1.0)}), 4);
}

TEST(GraphJournal, AJournalThatIsNoRegularFileIsRefusedNotIgnored) {
  const std::string d = symgnn::testing::scratch_dir("infer_graph_journal_kinds");
  const std::string path = d + "/" + infer::kGraphJournalFile;
  auto refused = [&](const std::string& kind) {
    SCOPED_TRACE(kind);
    for (int append = 0; append < 2; ++append) {
      try {
        if (append)
          infer::append_graph_journal(d, {graph_edit("user", "add", "a", "b", 1.0)});
        else
          infer::read_graph_journal(d);
        ADD_FAILURE() << (append ? "appended" : "read");
      } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("damaged graph journal (" + kind + ")"), std::string::npos)
            << e.what();
      }
    }
  };
  fs::remove_all(path);
  fs::create_directory(path);
  refused("a folder");
  fs::remove_all(path);
  fs::create_symlink(d + "/nowhere", path);
  refused("a link to nothing");
  EXPECT_FALSE(fs::exists(d + "/nowhere"));  // not created through the link
  fs::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  refused("a FIFO");
  fs::remove(path);
  // A link to a journal reads as the journal.
  const std::string real = d + "/elsewhere.jsonl";
  fs::remove(real);
  std::ofstream(real).close();
  fs::create_symlink(real, path);
  EXPECT_EQ(infer::append_graph_journal(d, {graph_edit("user", "add", "a", "b", 1.0)}), 1);
  EXPECT_EQ(infer::graph_journal_records(d), 1);
}

TEST(GraphEdit, AJournalThatDoesNotReplayNamesItsRecordAndEdit) {
  // Two journals of records valid in turn; the first two lines of one and the third of the
  // other (each line checked by its own checksum and number, so all three read) remove an
  // edge that only the other's second record added.
  const auto lines_of = [](const std::string& dir) {
    std::ifstream in(infer::graph_journal_path(dir));
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  const std::string a = followed_model("journal_a");
  EXPECT_EQ(infer::append_graph_journal(a, {graph_edit("user", "add", "u1", "u5", 1)}), 1);
  EXPECT_EQ(infer::append_graph_journal(
                a, {graph_edit("user", "add", "u2", "u6", 1), graph_edit("user", "add", "u0", "u4", 1)}),
            2);
  EXPECT_EQ(infer::append_graph_journal(a, {graph_edit("user", "remove", "u0", "u4", 1)}), 3);
  const std::string b = followed_model("journal_b");
  EXPECT_EQ(infer::append_graph_journal(b, {graph_edit("user", "add", "u1", "u5", 1)}), 1);
  EXPECT_EQ(infer::append_graph_journal(
                b, {graph_edit("user", "add", "u2", "u6", 1), graph_edit("user", "add", "u3", "u7", 1)}),
            2);
  const std::vector<std::string> from_a = lines_of(a), from_b = lines_of(b);
  ASSERT_EQ(from_a.size(), 3u);
  ASSERT_EQ(from_b.size(), 2u);
  std::ofstream(infer::graph_journal_path(b)) << from_b[0] << "\n" << from_b[1] << "\n" << from_a[2] << "\n";
  try {
    TrainedModel::load(b);
    ADD_FAILURE() << "a journal that does not replay was loaded";
  } catch (const DataError& e) {
    // Line 3, its first edit; not "edits[3]" of the records run together, not line 0.
    const std::string want = infer::graph_journal_path(b) + ":3: edits[0]: no edge ('u0', 'u4')";
    EXPECT_EQ(std::string(e.what()).rfind(want, 0), 0u) << e.what();
  }
}
