// train.auto's choice of each side's graph by short runs (fit/graph_choice.h): a graph
// whose neighbours rate alike is kept, the choice is applied to the config and the data
// alike, and nothing is tried where nothing is to be chosen.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "fit/graph_choice.h"
#include "fit/offset_choice.h"
#include "models/baseline/bias_fit.h"
#include "symgnn/config.h"
#include "symgnn/fit.h"
#include "symgnn/graph.h"
#include "symgnn/trained_model.h"

namespace {

/// The bias baseline's shrinkage of ds's training ratings, as fit's prepared data chooses it.
symgnn::models::ChosenShrinkage chosen(const symgnn::Dataset& ds, const symgnn::RunConfig& cfg) {
  return std::make_shared<const symgnn::models::ShrinkageChoice>(
      symgnn::models::choose_shrinkage_cv(ds, cfg.baseline));
}

/// 300 users in 3 groups whose ratings are offset by -1, 0, +1, 40 items; 3 training, 2
/// validation and 1 test rating a user. The user graph links users of one group
/// (homophilous) or random pairs; the item side has none.
symgnn::Dataset grouped_with_test(bool homophilous, uint32_t seed) {
  std::mt19937 rng(seed);
  symgnn::Dataset ds;
  ds.name = "grouped";
  const int64_t users = 300, items = 40;
  ds.users.count = users;
  ds.items.count = items;
  ds.rating_min = 1;
  ds.rating_max = 5;
  std::normal_distribution<double> noise(0.0, 0.5);
  std::uniform_int_distribution<int64_t> item(0, items - 1), user(0, users - 1);
  for (int64_t u = 0; u < users; ++u) {
    const double offset = static_cast<double>(u % 3) - 1.0;
    for (int k = 0; k < 6; ++k) {
      const auto r = static_cast<float>(std::round(std::clamp(3.0 + 1.5 * offset + noise(rng), 1.0, 5.0)));
      (k < 3 ? ds.train : k < 5 ? ds.validation : ds.test).add(u, item(rng), r);
    }
  }
  ds.users.graph.num_nodes = users;
  for (int64_t u = 0; u < users; ++u)
    for (int k = 0; k < 5; ++k) {
      int64_t v = user(rng);
      if (homophilous) v = (v / 3) * 3 + u % 3;  // the same group
      if (v != u) {
        ds.users.graph.add(u, v, 1.0f);
        ds.users.graph.add(v, u, 1.0f);
      }
    }
  ds.users.graph_origin = symgnn::GraphOrigin::File;
  ds.items.graph.num_nodes = items;
  ds.items.graph_origin = symgnn::GraphOrigin::Identity;
  return ds;
}

/// The recommended model, small: trials of 20 epochs.
symgnn::RunConfig choice_config() {
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  cfg.lowrank.prior = "encoder";
  cfg.lowrank.prior_width = 32;
  cfg.lowrank.hidden = 16;
  cfg.train.epochs = 200;
  cfg.train.threads = 1;
  return cfg;
}

std::vector<std::string> lines;
void record(const std::string& line) {
  lines.push_back(line);
}

}  // namespace

TEST(GraphChoice, TiesGoToTheModelAlone) {
  using symgnn::fitting::Trial;
  EXPECT_TRUE((Trial{0.90, 1.0, 10}).better_than(Trial{0.91, 0.5, 10}));
  EXPECT_FALSE((Trial{0.91, 0.5, 10}).better_than(Trial{0.90, 1.0, 10}));
  // Combinations within kTrialTie: the model alone decides; equal in both: not better.
  EXPECT_TRUE((Trial{0.90004, 0.95, 10}).better_than(Trial{0.90, 0.96, 10}));
  EXPECT_FALSE((Trial{0.90, 0.96, 10}).better_than(Trial{0.90004, 0.95, 10}));
  EXPECT_FALSE((Trial{0.90, 0.96, 10}).better_than(Trial{0.90, 0.96, 10}));
}

TEST(GraphChoice, AGraphWhoseNeighboursRateAlikeIsKept) {
  symgnn::Dataset ds = grouped_with_test(true, 1);
  const size_t edges = ds.users.graph.size();
  symgnn::RunConfig cfg = choice_config();
  lines.clear();
  const auto choice = symgnn::fitting::choose_graphs(cfg, ds, chosen(ds, cfg), record);
  EXPECT_EQ(choice.trial_epochs, 20);
  ASSERT_EQ(choice.sides.size(), 1u);  // the item side is the identity: nothing to choose
  const auto& t = choice.sides[0];
  EXPECT_EQ(t.side, "user");
  EXPECT_EQ(t.origin, "file");
  EXPECT_TRUE(t.kept) << symgnn::fitting::describe(t, choice.trial_epochs);
  EXPECT_LT(t.with.model, t.without.model) << symgnn::fitting::describe(t, choice.trial_epochs);
  EXPECT_GT(t.with.epochs, 0);
  EXPECT_LE(t.with.epochs, 20);
  EXPECT_EQ(cfg.graph.user_graph, "file");  // said, so that --resume does not try again
  EXPECT_EQ(cfg.graph.item_graph, "auto");  // the identity: nothing was tried
  EXPECT_EQ(ds.users.graph.size(), edges);
  ASSERT_EQ(lines.size(), 2u);  // what is tried, then what became of the user graph
  RecordProperty("choice", lines[1]);
  EXPECT_NE(lines[1].find("the user graph (file) kept"), std::string::npos) << lines[1];
  const nlohmann::json j = symgnn::fitting::graph_choice_json(choice);
  EXPECT_EQ(j["trial_epochs"].get<int64_t>(), 20);
  EXPECT_TRUE(j["sides"]["user"]["kept"].get<bool>());
  EXPECT_DOUBLE_EQ(j["sides"]["user"]["val_rmse_without"].get<double>(), t.without.combination);
}

TEST(GraphChoice, TheChoiceReachesTheConfigAndTheData) {
  // Random pairs: whichever way the trials go, the config and the graphs say the same.
  symgnn::Dataset ds = grouped_with_test(false, 2);
  const size_t edges = ds.users.graph.size();
  symgnn::RunConfig cfg = choice_config();
  const auto choice = symgnn::fitting::choose_graphs(cfg, ds, chosen(ds, cfg), record);
  ASSERT_EQ(choice.sides.size(), 1u);
  if (choice.sides[0].kept) {
    EXPECT_EQ(cfg.graph.user_graph, "file");
    EXPECT_EQ(ds.users.graph.size(), edges);
  } else {
    // The models read the identity; the user graph stays for the lists and the people.
    EXPECT_EQ(cfg.graph.user_graph, "identity");
    EXPECT_TRUE(ds.users.links_only);
    EXPECT_EQ(ds.users.graph.size(), edges);
    EXPECT_TRUE(symgnn::graph::normalized_adjacency(ds.users).identity);
  }
}

TEST(GraphChoice, NothingIsTriedWhereNothingIsToChoose) {
  symgnn::RunConfig cfg = choice_config();
  symgnn::Dataset given = grouped_with_test(true, 3);
  cfg.graph.user_graph = "file";  // the user's own choice stands
  EXPECT_TRUE(symgnn::fitting::choose_graphs(cfg, given, chosen(given, cfg), record).sides.empty());
  cfg.graph.user_graph = "auto";
  symgnn::Dataset few = grouped_with_test(true, 3);
  few.validation.user.resize(10), few.validation.item.resize(10), few.validation.value.resize(10);
  EXPECT_TRUE(symgnn::fitting::choose_graphs(cfg, few, chosen(few, cfg), record).sides.empty());
  symgnn::RunConfig smoke = choice_config();
  smoke.train.epochs = symgnn::fitting::kMinChoiceEpochs - 1;  // nothing shorter to learn from
  symgnn::Dataset short_run = grouped_with_test(true, 3);
  EXPECT_TRUE(
      symgnn::fitting::choose_graphs(smoke, short_run, chosen(short_run, smoke), record).sides.empty());
  symgnn::Dataset none = grouped_with_test(true, 3);
  none.users.graph = symgnn::EdgeList{};
  none.users.graph.num_nodes = 300;
  none.users.graph_origin = symgnn::GraphOrigin::Identity;
  EXPECT_TRUE(symgnn::fitting::choose_graphs(cfg, none, chosen(none, cfg), record).sides.empty());
}

TEST(GraphChoice, ARunRecordsItsChoiceForResumeAndTheReport) {
  // The synthetic set's two community graphs, the recommended model, 40 epochs: trials of 20.
  symgnn::RunConfig cfg = choice_config();
  cfg.train.epochs = symgnn::fitting::kMinChoiceEpochs;
  cfg.data.synthetic_users = 120;
  cfg.data.synthetic_items = 80;
  symgnn::FitOptions fo;
  fo.out_dir = symgnn::testing::scratch_dir("graph_choice") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const nlohmann::json& choice = r.metrics.figures.at("auto").at("graph_choice");
  EXPECT_EQ(choice.at("trial_epochs").get<int64_t>(), 20);
  ASSERT_EQ(choice.at("sides").size(), 2u);
  // config.txt names each side's graph as chosen: --resume builds them without trying again.
  std::ifstream in(fo.out_dir + "/config.txt");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string side : {"user", "item"}) {
    const bool kept = choice.at("sides").at(side).at("kept").get<bool>();
    const std::string line = side + "_graph = " + (kept ? "file" : "identity");
    EXPECT_NE(text.find(line), std::string::npos) << line << " not in\n" << text;
  }
  // The loaded model's user graph is the file's either way; where the choice left it out the
  // models read the identity and the graph serves the lists (NodeSet::links_only).
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(fo.out_dir);
  EXPECT_EQ(m.dataset().users.graph_origin, symgnn::GraphOrigin::File);
  EXPECT_EQ(m.dataset().users.links_only, !choice.at("sides").at("user").at("kept").get<bool>());
  EXPECT_EQ(m.dataset().users.graph.size(), r.model->dataset().users.graph.size());
}

// lowrank.offset = auto (fit/offset_choice.h): two short runs decide, the config says which,
// and the graphs' trials reuse the winner's run.
TEST(OffsetChoice, TwoShortRunsDecideAndTheConfigSaysWhich) {
  symgnn::Dataset ds = grouped_with_test(true, 4);
  symgnn::RunConfig cfg = choice_config();
  ASSERT_EQ(cfg.lowrank.offset, "auto");  // the recommended preset's
  lines.clear();
  const auto c = symgnn::fitting::choose_offset(cfg, ds, chosen(ds, cfg), true, record, nullptr);
  ASSERT_TRUE(c.tried);
  EXPECT_EQ(c.trial_epochs, 20);
  EXPECT_EQ(c.residual, c.residuals.better_than(c.ratings));
  EXPECT_EQ(cfg.lowrank.offset, c.residual ? "baseline" : "none");
  if (c.residual) {
    EXPECT_FALSE(cfg.lowrank.biases);
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("train.auto: the network learns"), std::string::npos) << lines[1];
  const nlohmann::json j = symgnn::fitting::offset_choice_json(c);
  EXPECT_EQ(j["offset"], cfg.lowrank.offset);
  EXPECT_DOUBLE_EQ(j["val_rmse_ratings"].get<double>(), c.ratings.combination);
  // The graphs' trials take the winner's run as theirs with every graph: one run fewer.
  const symgnn::fitting::Trial& made = c.residual ? c.residuals : c.ratings;
  lines.clear();
  const auto g = symgnn::fitting::choose_graphs(cfg, ds, chosen(ds, cfg), record, nullptr, &made);
  ASSERT_EQ(g.sides.size(), 1u);
  EXPECT_DOUBLE_EQ(g.sides[0].with.combination, made.combination);
  EXPECT_NE(lines[0].find(": 1 short runs"), std::string::npos) << lines[0];
}

TEST(OffsetChoice, NothingIsTriedWhereNothingMayBeAndAutoBecomesNone) {
  symgnn::Dataset ds = grouped_with_test(true, 5);
  symgnn::RunConfig cfg = choice_config();
  EXPECT_FALSE(symgnn::fitting::choose_offset(cfg, ds, chosen(ds, cfg), false, record, nullptr).tried);
  EXPECT_EQ(cfg.lowrank.offset, "none");
  cfg.lowrank.offset = "auto";
  cfg.lowrank.decoder = "classes";  // rating classes cannot be residuals
  EXPECT_FALSE(symgnn::fitting::choose_offset(cfg, ds, chosen(ds, cfg), true, record, nullptr).tried);
  EXPECT_EQ(cfg.lowrank.offset, "none");
  cfg = choice_config();
  cfg.lowrank.offset = "baseline";  // the user's own choice stands
  EXPECT_FALSE(symgnn::fitting::choose_offset(cfg, ds, chosen(ds, cfg), true, record, nullptr).tried);
  EXPECT_EQ(cfg.lowrank.offset, "baseline");
}

TEST(OffsetChoice, ANetworkLearnsOnlyWhereItBeatsTheBaselineAlone) {
  using symgnn::fitting::Trial;
  Trial t;
  t.model = 0.8937;
  t.baseline = 0.8936;              // real/ciaodvd's residual network: no better than the baseline
  EXPECT_TRUE(t.network_learns());  // the combination did not say
  t.network_weight = 0;             // and gave it nothing
  EXPECT_FALSE(t.network_learns());
  t.model = 0.8936 - symgnn::fitting::kTrialTie / 2;  // within the tie
  EXPECT_FALSE(t.network_learns());
  t.model = 0.8900;
  EXPECT_TRUE(t.network_learns());
  t.model = 0.7377;  // Douban's network of ratings: worse alone, kept in the combination
  t.baseline = 0.7360;
  t.network_weight = 0.59;
  EXPECT_TRUE(t.network_learns());
  Trial none;
  none.network_weight = 0;
  EXPECT_TRUE(none.network_learns());  // no baseline fitted: nothing says it cannot
}

TEST(GraphChoice, AfterANetworkThatLearnedNothingTheGraphsAreKeptUntried) {
  symgnn::Dataset ds = grouped_with_test(true, 6);
  const size_t edges = ds.users.graph.size();
  symgnn::RunConfig cfg = choice_config();
  symgnn::fitting::Trial made;
  made.combination = made.baseline = 0.9;
  made.model = 0.95;
  made.network_weight = 0;
  lines.clear();
  const auto g = symgnn::fitting::choose_graphs(cfg, ds, chosen(ds, cfg), record, nullptr, &made);
  EXPECT_TRUE(g.sides.empty());
  EXPECT_TRUE(g.not_tried);
  EXPECT_EQ(cfg.graph.user_graph, "file");  // said, so that --resume does not try either
  EXPECT_EQ(ds.users.graph.size(), edges);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("not tried"), std::string::npos) << lines[0];
  EXPECT_FALSE(symgnn::fitting::graph_choice_json(g).at("tried").get<bool>());
}

// Ratings that are the user's and the item's bias plus noise, and a network whose steps are
// too small to move its output from zero (train.lr at its floor): the residual network
// learns nothing, so the network of ratings and the graphs are not tried and the run trains
// the short run's best epochs; the result is the baseline's.
TEST(OffsetChoice, ARunWhoseNetworkLearnsNothingStopsAtItsShortRun) {
  std::mt19937 rng(11);
  const int64_t users = 200, items = 60;
  std::normal_distribution<double> bias(0.0, 0.3), noise(0.0, 1.0);
  std::vector<double> bu(users), bi(items);
  for (double& b : bu) b = bias(rng);
  for (double& b : bi) b = bias(rng);
  const std::string dir = symgnn::testing::scratch_dir("offset_learns_nothing");
  {
    std::ofstream out(dir + "/ratings.csv");
    out << "user,item,rating\n";
    std::vector<int64_t> order(items);
    std::iota(order.begin(), order.end(), 0);
    for (int64_t u = 0; u < users; ++u) {
      std::shuffle(order.begin(), order.end(), rng);  // 12 distinct items a user
      for (int k = 0; k < 12; ++k) {
        const int64_t i = order[k];
        out << "u" << u << ",i" << i << ","
            << std::clamp(std::round(3.0 + bu[u] + bi[i] + noise(rng)), 1.0, 5.0) << "\n";
      }
    }
    std::ofstream graph(dir + "/user_graph.csv");
    std::uniform_int_distribution<int64_t> user(0, users - 1);
    for (int64_t u = 0; u < users; ++u) graph << "u" << u << ",u" << user(rng) << "\n";
  }
  symgnn::RunConfig cfg = choice_config();
  cfg.data.source = dir + "/ratings.csv";
  cfg.data.user_graph_file = dir + "/user_graph.csv";
  cfg.train.lr = 1e-8;
  symgnn::FitOptions fo;
  fo.out_dir = dir + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const nlohmann::json& a = r.metrics.figures.at("auto");
  const nlohmann::json& offset = a.at("offset_choice");
  ASSERT_FALSE(offset.at("ratings_tried").get<bool>()) << offset.dump();
  EXPECT_EQ(offset.at("offset"), "baseline");
  EXPECT_GE(offset.at("val_rmse_model_residuals").get<double>(),
            offset.at("val_rmse_baseline").get<double>() - symgnn::fitting::kTrialTie);
  EXPECT_FALSE(a.at("graph_choice").at("tried").get<bool>());
  const int64_t epochs = a.at("epochs_from_short_run").get<int64_t>();
  EXPECT_GE(epochs, 1);
  EXPECT_LT(epochs, cfg.train.epochs);
  std::ifstream in(fo.out_dir + "/config.txt");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("epochs = " + std::to_string(epochs) + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("user_graph = file"), std::string::npos) << text;
}

// train.continue_short_run: the selection phase continues the chosen short run from its last
// epoch instead of training those epochs again, and it is the same run: the figures equal
// those of a run that starts afresh, whichever side's graph the short runs kept (a file's
// user graph that is dropped stays in the data for the lists, the models read the identity).
TEST(GraphChoice, TheRunContinuesTheChosenShortRunAndIsTheSameRun) {
  int dropped = 0, kept = 0;
  for (const bool homophilous : {true, false}) {
    const symgnn::Dataset ds = grouped_with_test(homophilous, 1);
    const auto run = [&ds](bool continued, std::vector<std::string>& log) {
      symgnn::RunConfig cfg = choice_config();
      cfg.train.epochs = 60;
      cfg.train.continue_short_run = continued;
      symgnn::FitOptions fo;
      fo.data = &ds;
      fo.log = [&log](const std::string& line) { log.push_back(line); };
      return symgnn::fit(cfg, fo);
    };
    std::vector<std::string> warm_log, cold_log;
    const symgnn::FitResult warm = run(true, warm_log), cold = run(false, cold_log);
    const auto said = [](const std::vector<std::string>& log, const std::string& what) {
      return std::any_of(log.begin(), log.end(),
                         [&what](const std::string& l) { return l.find(what) != std::string::npos; });
    };
    EXPECT_TRUE(said(warm_log, "continuing the chosen short run from its epoch"));
    EXPECT_FALSE(said(cold_log, "continuing the chosen short run"));
    (said(warm_log, "replaced by the identity") ? dropped : kept) += 1;
    for (const std::string name : {"val_rmse", "test_rmse"})
      EXPECT_NEAR(warm.metrics.mean(name), cold.metrics.mean(name), 1e-9)
          << name << " homophilous " << homophilous;
    EXPECT_EQ(warm.metrics.figures.at("best_epoch"), cold.metrics.figures.at("best_epoch"));
    EXPECT_EQ(warm.metrics.figures.at("epochs_run"), cold.metrics.figures.at("epochs_run"));
  }
  EXPECT_EQ(dropped, 1) << "one data set drops its user graph, the other keeps it";
  EXPECT_EQ(kept, 1);
}
