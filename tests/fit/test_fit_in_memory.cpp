// Data in memory and models in memory: load_rows (symgnn/data_rows.h) gives the Dataset
// load_dataset gives for files holding the same rows, so symgnn::fit on it (FitOptions::data)
// equals the fit on those files; and save_model_dir (symgnn/model_dir.h) writes the model a
// fit kept in memory as a directory that loads into the same model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "infer/model_parts.h"
#include "symgnn/config.h"
#include "symgnn/data_rows.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"
#include "symgnn/model_dir.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"

namespace fs = std::filesystem;
namespace st = symgnn::testing;
using symgnn::DataRows;
using symgnn::Dataset;

namespace {

/// Two tastes over string ids: users "u<k>" rate the items of their parity 5, the others 1;
/// a user graph joining same-parity users (and "lonely", who rated nothing), item features
/// (and "shelf", an item nobody rated). `with_test`: explicit test rows, one of them naming
/// an id that is no node.
DataRows mem_rows(bool with_test) {
  DataRows r;
  r.name = "tastes";
  uint64_t state = 7;
  const auto draw = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (int u = 0; u < 30; ++u)
    for (int i = 0; i < 20; ++i) {
      if (draw() > 0.55) continue;
      const double v = u % 2 == i % 2 ? 5.0 : 1.0;
      const bool test = with_test && draw() < 0.1;
      (test ? r.test_users : r.users).push_back("u" + std::to_string(u));
      (test ? r.test_items : r.items).push_back("item " + std::to_string(i));
      (test ? r.test_ratings : r.ratings).push_back(v);
    }
  if (with_test) {
    r.has_test = true;
    r.test_users.push_back("stranger");
    r.test_items.push_back("item 0");
    r.test_ratings.push_back(4.0);
  }
  r.has_user_graph = true;
  for (int u = 0; u < 30; ++u)
    for (int v = u + 2; v < 30 && v <= u + 4; v += 2)
      r.user_edges.push_back({"u" + std::to_string(u), "u" + std::to_string(v), 0.5 + 0.1 * (u % 3)});
  r.user_edges.push_back({"lonely", "u3", 1.0});
  for (int i = 0; i < 20; ++i)
    r.item_features.push_back({"item " + std::to_string(i), {i % 2 * 1.0, 0.25 * i}});
  r.item_features.push_back({"shelf", {0.5, -1.5}});
  return r;
}

std::string mem_number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

/// The files holding `r`, written under `dir`, named in `cfg.data` as the command line's
/// --data and --set data.*_file=... name them.
void mem_write_files(const DataRows& r, const std::string& dir, symgnn::DataConfig& cfg) {
  const auto ratings = [](const std::vector<std::string>& u, const std::vector<std::string>& i,
                          const std::vector<double>& v) {
    std::string text = "user\titem\trating\n";
    for (size_t k = 0; k < v.size(); ++k) text += u[k] + "\t" + i[k] + "\t" + mem_number(v[k]) + "\n";
    return text;
  };
  cfg.source = st::write_file(dir, "ratings.tsv", ratings(r.users, r.items, r.ratings));
  if (r.has_test)
    cfg.test_file = st::write_file(dir, "test.tsv", ratings(r.test_users, r.test_items, r.test_ratings));
  std::string edges;
  for (const auto& e : r.user_edges) edges += e.a + "\t" + e.b + "\t" + mem_number(e.weight) + "\n";
  if (r.has_user_graph) cfg.user_graph_file = st::write_file(dir, "user_graph.tsv", edges);
  std::string features;
  for (const auto& f : r.item_features) {
    features += f.id;
    for (const double v : f.values) features += "\t" + mem_number(v);
    features += "\n";
  }
  if (!r.item_features.empty()) cfg.item_features_file = st::write_file(dir, "item_features.tsv", features);
}

void mem_expect_same_ratings(const symgnn::RatingList& a, const symgnn::RatingList& b, const char* what) {
  EXPECT_EQ(a.user, b.user) << what;
  EXPECT_EQ(a.item, b.item) << what;
  EXPECT_EQ(a.value, b.value) << what;
}

void mem_expect_same_side(const symgnn::NodeSet& a, const symgnn::NodeSet& b, const char* what) {
  EXPECT_EQ(a.count, b.count) << what;
  EXPECT_EQ(a.ids, b.ids) << what;
  EXPECT_EQ(a.graph_origin, b.graph_origin) << what;
  EXPECT_EQ(a.graph.num_nodes, b.graph.num_nodes) << what;
  EXPECT_EQ(a.graph.src, b.graph.src) << what;
  EXPECT_EQ(a.graph.dst, b.graph.dst) << what;
  EXPECT_EQ(a.graph.weight, b.graph.weight) << what;
  EXPECT_EQ(a.features.rows, b.features.rows) << what;
  EXPECT_EQ(a.features.cols, b.features.cols) << what;
  EXPECT_EQ(a.features.values, b.features.values) << what;
  EXPECT_EQ(a.features.names, b.features.names) << what;
}

void mem_expect_same(const Dataset& a, const Dataset& b) {
  mem_expect_same_side(a.users, b.users, "users");
  mem_expect_same_side(a.items, b.items, "items");
  mem_expect_same_ratings(a.train, b.train, "train");
  mem_expect_same_ratings(a.validation, b.validation, "validation");
  mem_expect_same_ratings(a.test, b.test, "test");
  EXPECT_EQ(a.test_unknown.user, b.test_unknown.user);
  EXPECT_EQ(a.test_unknown.item, b.test_unknown.item);
  EXPECT_EQ(a.test_unknown.value, b.test_unknown.value);
  EXPECT_EQ(a.rating_levels, b.rating_levels);
  EXPECT_EQ(a.rating_min, b.rating_min);
  EXPECT_EQ(a.rating_max, b.rating_max);
}

/// A few epochs of the low-rank G model on one thread: seconds, deterministic.
symgnn::RunConfig mem_config(const std::vector<std::string>& sets = {}) {
  symgnn::RunConfig cfg = symgnn::start_config("paper", "");
  for (const char* s : {"model=lowrank", "lowrank.variant=G", "lowrank.hidden=8", "train.epochs=4",
                        "train.threads=1", "data.val_fraction=0.1", "data.split_seed=11"})
    symgnn::apply_override(cfg, s);
  for (const std::string& s : sets) symgnn::apply_override(cfg, s);
  return cfg;
}

/// Every (user, item) pair's prediction, users x items row-major.
std::vector<float> mem_all_predictions(const symgnn::TrainedModel& m) {
  std::vector<int64_t> u, i;
  for (int64_t a = 0; a < m.users(); ++a)
    for (int64_t b = 0; b < m.items(); ++b) u.push_back(a), i.push_back(b);
  return m.predict(u, i);
}

}  // namespace

TEST(FitInMemory, LoadRowsGivesTheDatasetOfTheSameFiles) {
  for (const bool with_test : {false, true}) {
    const std::string dir = st::scratch_dir("load_rows");
    const DataRows rows = mem_rows(with_test);
    symgnn::RunConfig cfg = mem_config();
    const Dataset mem = symgnn::load_rows(rows, cfg.data);
    mem_write_files(rows, dir, cfg.data);
    const Dataset files = symgnn::load_dataset(cfg.data);
    mem_expect_same(mem, files);
    EXPECT_EQ(mem.users.ids.back(), "lonely");
    EXPECT_EQ(mem.items.ids.back(), "shelf");
    EXPECT_EQ(mem.test_unknown.size(), with_test ? 1u : 0u);
    EXPECT_FALSE(mem.validation.empty());
  }
}

TEST(FitInMemory, LoadRowsRefusesWhatFilesCannotHold) {
  symgnn::RunConfig cfg = mem_config();
  const auto refused = [&](DataRows r, const std::string& needle) {
    try {
      symgnn::load_rows(r, cfg.data);
      ADD_FAILURE() << "accepted; expected " << needle;
    } catch (const symgnn::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  DataRows r = mem_rows(false);
  r.users[3] = "a\tb";
  refused(r, "tastes ratings:4: user id");
  r = mem_rows(false);
  r.users.push_back(r.users[0]), r.items.push_back(r.items[0]), r.ratings.push_back(3);
  refused(r, "duplicate (user, item) pair");
  r = mem_rows(false);
  r.ratings.pop_back();
  refused(r, "differ in length");
  r = mem_rows(false);
  r.user_edges.push_back({"u1", "u1", 1.0});
  symgnn::apply_override(cfg, "data.graph_self_loops=error");  // the default drops it
  refused(r, "self-loop");
  symgnn::apply_override(cfg, "data.graph_self_loops=drop");
  refused(DataRows{}, "no ratings");
  symgnn::apply_override(cfg, "data.split=temporal");
  refused(mem_rows(false), "times");
}

TEST(FitInMemory, FitOnRowsEqualsTheFitOnTheirFiles) {
  const std::string dir = st::scratch_dir("fit_rows");
  const DataRows rows = mem_rows(true);
  symgnn::RunConfig mem_cfg = mem_config({"data.source=tastes"});
  const Dataset ds = symgnn::load_rows(rows, mem_cfg.data);
  symgnn::FitOptions mo;
  mo.data = &ds;
  const symgnn::FitResult a = symgnn::fit(mem_cfg, mo);
  symgnn::RunConfig file_cfg = mem_config();
  mem_write_files(rows, dir, file_cfg.data);
  const symgnn::FitResult b = symgnn::fit(file_cfg, symgnn::FitOptions{});
  ASSERT_TRUE(a.model && b.model);
  EXPECT_EQ(a.metrics.mean("test_rmse"), b.metrics.mean("test_rmse"));
  EXPECT_EQ(a.metrics.mean("val_rmse"), b.metrics.mean("val_rmse"));
  EXPECT_EQ(mem_all_predictions(*a.model), mem_all_predictions(*b.model));
  EXPECT_EQ(a.model->dataset().users.ids, b.model->dataset().users.ids);
}

// data.test_fraction = 0 (Python's fit(holdout=0)): every rating given trains, a random
// split draws no test, validation still stops early, and the summary says what was held out.
TEST(FitInMemory, TestFractionZeroTrainsOnEveryRatingGiven) {
  const DataRows rows = mem_rows(false);
  symgnn::RunConfig cfg = mem_config({"data.source=tastes", "data.test_fraction=0"});
  const Dataset ds = symgnn::load_rows(rows, cfg.data);
  EXPECT_TRUE(ds.test.empty());
  EXPECT_EQ(ds.train.size() + ds.validation.size(), rows.ratings.size());
  EXPECT_FALSE(ds.validation.empty());
  symgnn::FitOptions o;
  o.data = &ds;
  const symgnn::FitResult r = symgnn::fit(cfg, o);
  ASSERT_TRUE(r.model);
  EXPECT_GT(r.metrics.mean("val_rmse"), 0.0);
  const auto said = [&](const std::string& needle) {
    return std::any_of(r.summary.begin(), r.summary.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  };
  EXPECT_TRUE(said("no test ratings held out (data.test_fraction = 0): all " +
                   std::to_string(rows.ratings.size()) + " ratings given train"));
  // The default holds a random tenth out, and says so.
  symgnn::RunConfig tenth = mem_config({"data.source=tastes"});
  const Dataset held = symgnn::load_rows(rows, tenth.data);
  EXPECT_EQ(held.test.size(),
            static_cast<size_t>(std::llround(0.1 * static_cast<double>(rows.ratings.size()))));
  EXPECT_TRUE(held.test_drawn);
  // Test rows given keep their test whatever test_fraction says.
  const Dataset given = symgnn::load_rows(mem_rows(true), cfg.data);
  EXPECT_FALSE(given.test.empty());
  EXPECT_FALSE(given.test_drawn);
}

TEST(FitInMemory, SaveModelDirWritesTheModelAFitKeptInMemory) {
  const std::string dir = st::scratch_dir("save_model_dir");
  // With the EASE ranker beside the model and two averaged weight sets: every part written.
  symgnn::RunConfig cfg = mem_config({"data.source=tastes", "train.ranker=ease", "data.val_fraction=0",
                                      "train.average_last=2", "train.average_every=1"});
  const Dataset ds = symgnn::load_rows(mem_rows(false), cfg.data);
  symgnn::FitOptions o;
  o.data = &ds;
  const symgnn::FitResult r = symgnn::fit(cfg, o);
  ASSERT_TRUE(r.model);
  ASSERT_EQ(r.model->ranker(), "ease");
  ASSERT_EQ(r.model->parts().members.size(), 2u);
  symgnn::ModelDirFiles files;
  files.metrics_json = r.metrics.to_json().dump();
  const std::vector<std::string> written = symgnn::save_model_dir(*r.model, dir + "/model", files);
  for (const char* f : {"model.pt", "dataset.bin", "config.txt", "metrics.json", "ranker/model.pt"})
    EXPECT_NE(std::find(written.begin(), written.end(), f), written.end()) << f;
  const symgnn::TrainedModel back = symgnn::TrainedModel::load(dir + "/model");
  EXPECT_EQ(back.ranker(), "ease");
  EXPECT_EQ(back.parts().members.size(), 2u);
  EXPECT_EQ(mem_all_predictions(back), mem_all_predictions(*r.model));
  std::vector<int64_t> users;
  for (int64_t u = 0; u < back.users(); ++u) users.push_back(u);
  EXPECT_EQ(back.score_all_items(users), r.model->score_all_items(users));
  EXPECT_EQ(back.seen_items(), r.model->seen_items());
  // The same fit written by fit itself loads into the same model.
  symgnn::FitOptions out;
  out.data = &ds;
  out.out_dir = dir + "/by_fit";
  symgnn::fit(cfg, out);
  EXPECT_EQ(mem_all_predictions(symgnn::TrainedModel::load(dir + "/by_fit")), mem_all_predictions(back));
  // A directory is never written over; a grown model is written as refreshes.
  EXPECT_THROW(symgnn::save_model_dir(*r.model, dir + "/model"), symgnn::UsageError);
  symgnn::NewNodes nodes;
  nodes.rows.ratings = {{"newbie", "item 1", 5.0}};
  EXPECT_THROW(symgnn::save_model_dir(r.model->with_new_nodes(nodes), dir + "/grown"), symgnn::ConfigError);
  EXPECT_FALSE(fs::exists(dir + "/grown"));
}
