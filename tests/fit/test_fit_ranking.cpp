// Fitting for ranking (docs/recommend.md): the closed-form ranking kinds (EASE, ItemKNN)
// against their formulas computed here by brute force, the ranking objectives of the trainer
// end to end, implicit data, and the refusals.
#include <gtest/gtest.h>
#include <torch/types.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "fit/ranker.h"
#include "fit/ranking_test_util.h"
#include "infer/new_node_files.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"
#include "symgnn/graph.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"

namespace st = symgnn::testing;

namespace {

symgnn::RunConfig small_config(const std::string& model) {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.model = model;
  cfg.data.synthetic_users = 50;
  cfg.data.synthetic_items = 30;
  cfg.data.synthetic_density = 0.25;
  cfg.data.val_fraction = 0.15;
  return cfg;
}

using st::all_scores;
using st::interactions;

TEST(FitRanking, EaseScoresAreTheRidgeRegressionWithAZeroDiagonal) {
  symgnn::RunConfig cfg = small_config("ease");
  cfg.ease.lambdas = "3,30";
  symgnn::FitOptions fo;
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const double lambda = r.metrics.figures.at("ease.lambda").get<double>();
  EXPECT_TRUE(lambda == 3 || lambda == 30);
  // B minimises |X - XB|^2 + lambda |B|^2 with diag(B) = 0: the gradient's off-diagonal
  // entries vanish, (X^T X + lambda I) B - X^T X = diag(mu) for some multipliers mu. Solve
  // each column's system by brute force (the column without its own item) and compare.
  const at::Tensor x = interactions(r.model->dataset());
  const int64_t n = x.size(1);
  const at::Tensor g = torch::mm(x.t(), x);
  at::Tensor b = torch::zeros({n, n}, torch::kDouble);
  for (int64_t j = 0; j < n; ++j) {
    std::vector<int64_t> rest;
    for (int64_t i = 0; i < n; ++i)
      if (i != j) rest.push_back(i);
    const at::Tensor idx = torch::tensor(rest, torch::kLong);
    at::Tensor a = g.index_select(0, idx).index_select(1, idx);
    a.diagonal().add_(lambda);
    const at::Tensor rhs = g.index_select(0, idx).select(1, j);
    b.index_put_({idx, j}, torch::linalg_solve(a, rhs));
  }
  const at::Tensor expected = torch::mm(x, b);
  EXPECT_LT((all_scores(*r.model) - expected).abs().max().item<double>(), 1e-3);
  // It ranks for itself and predicts ratings from its bias head, inside the rating range.
  EXPECT_FALSE(r.model->ranks_by_rating());
  EXPECT_TRUE(std::isfinite(r.metrics.mean("val_ndcg@10")));
  EXPECT_TRUE(std::isfinite(r.metrics.mean("test_ndcg@10")));
  const symgnn::RatingList& test = r.model->dataset().test;
  for (const float p : r.model->predict(test.user, test.item)) {
    EXPECT_GE(p, r.model->rating_min());
    EXPECT_LE(p, r.model->rating_max());
  }
}

TEST(FitRanking, ItemKnnScoresAreTheTopKCosineNeighbours) {
  symgnn::RunConfig cfg = small_config("itemknn");
  cfg.itemknn.neighbours = 4;
  const symgnn::FitResult r = symgnn::fit(cfg, {});
  const at::Tensor x = interactions(r.model->dataset());
  const int64_t n = x.size(1);
  at::Tensor s = torch::zeros({n, n}, torch::kDouble);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double ni = x.select(1, i).norm().item<double>(), nj = x.select(1, j).norm().item<double>();
      if (i != j && ni > 0 && nj > 0)
        s[i][j] = (x.select(1, i) * x.select(1, j)).sum().item<double>() / (ni * nj);
    }
  // Column j keeps its 4 largest similarities (and ties with the 4th).
  for (int64_t j = 0; j < n; ++j) {
    const at::Tensor col = s.select(1, j);
    const double kth = std::get<0>(col.topk(4)).select(0, 3).item<double>();
    s.select(1, j).masked_fill_(col < kth - 1e-9, 0.0);
  }
  EXPECT_LT((all_scores(*r.model) - torch::mm(x, s)).abs().max().item<double>(), 1e-4);
}

TEST(FitRanking, ItemKnnListsOfFittedLengthSurviveTheModelDirectory) {
  // The sparse state (each user's rated items, each item's kept similarities) has a length
  // that follows from the data: saved and loaded back, the scores are the same.
  symgnn::RunConfig cfg = small_config("itemknn");
  cfg.itemknn.neighbours = 3;
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_itemknn_dir") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(fo.out_dir);
  EXPECT_TRUE(torch::equal(all_scores(*r.model), all_scores(loaded)));
  EXPECT_GT(r.metrics.figures.at("similarities_kept").get<int64_t>(), 0);
  EXPECT_TRUE(std::isfinite(r.metrics.mean("test_ndcg@10")));
}

TEST(FitRanking, ItemKnnAndEaseScoreNewUsersFromTheirRatingsWithoutRetraining) {
  // Inductive (s = x S, s = x B): a newcomer who rated what a trained user rated (and an
  // item nobody had rated, which no weight reaches) gets that user's scores from the saved
  // model; the same as the ranker beside a rating model, which new users then keep.
  for (const std::string kind : {"itemknn", "ease"})
    for (const bool as_ranker : {false, true}) {
      SCOPED_TRACE(kind + (as_ranker ? " as the ranker" : ""));
      symgnn::RunConfig cfg = small_config(as_ranker ? "lowrank" : kind);
      cfg.itemknn.neighbours = 4;
      if (as_ranker) {
        cfg.lowrank.hidden = 8;
        cfg.train.epochs = 2;
        cfg.train.ranker = kind;
        // The ranker alone: the network trained for ranking has no row for a newcomer, so the
        // twin's list could take its term where the newcomer's cannot (test_ranker_network.cpp).
        cfg.train.ranker_network = "none";
      }
      symgnn::FitOptions fo;
      const std::string tag = "fit_" + kind + (as_ranker ? "_ranker_new" : "_new");
      fo.out_dir = st::scratch_dir(tag) + "/run";
      const symgnn::FitResult r = symgnn::fit(cfg, fo);
      // A user the fit knew, who rates two more items since, is scored as a newcomer who
      // rated those and all that user's fitted items (the rows are linear in X).
      const symgnn::Dataset& ds = r.model->dataset();
      const int64_t twin = 4;
      std::set<int64_t> rated;
      for (const symgnn::RatingList* list : {&ds.train, &ds.validation, &ds.test})
        for (size_t e = 0; e < list->size(); ++e)
          if (list->user[e] == twin) rated.insert(list->item[e]);
      std::string more = "newcomer,brand-new-item,5\n";
      for (int64_t i = 0, added = 0; i < ds.items.count && added < 2; ++i)
        if (!rated.count(i)) {
          for (const std::string& who : {std::string("newcomer"), ds.users.id_of(twin)})
            more += who + "," + ds.items.id_of(i) + ",5\n";
          ++added;
        }
      const std::string ratings = st::twin_ratings(ds, twin, tag + "_ratings", more);
      const symgnn::TrainedModel m = symgnn::TrainedModel::load(fo.out_dir, "cpu", ratings);
      ASSERT_EQ(m.new_ratings().new_users, 1);
      ASSERT_EQ(m.items(), r.model->items() + 1);
      if (as_ranker) {
        EXPECT_EQ(m.ranker(), kind);  // new users keep the ranker's lists
      }
      st::expect_scored_as_twin(m, twin);
      // Another trained user's scores are the saved model's; in memory the model grows the same.
      const symgnn::TrainedModel saved = symgnn::TrainedModel::load(fo.out_dir);
      const int64_t other = twin + 1;
      const std::vector<float> a = m.score_all_items({other}), before = saved.score_all_items({other});
      for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(before[i], a[i]) << "item " << i;
      symgnn::NewNodeFiles files;
      files.ratings = ratings;
      const int64_t newcomer = m.users() - 1;
      EXPECT_EQ(saved.with_new_nodes(symgnn::infer::read_new_node_files(files, saved.dataset()))
                    .score_all_items({newcomer}),
                m.score_all_items({newcomer}));
    }
}

TEST(FitRanking, SylvesterBinaryScoresSolveEquationOneOnTheInteractions) {
  symgnn::RunConfig cfg = small_config("sylvester_binary");
  cfg.sylvester.alphas = "0.3,0.8";
  cfg.sylvester.tol = 1e-10;
  cfg.graph.knn_source = "interactions";  // co-occurrence graphs on both sides
  cfg.graph.user_graph = cfg.graph.item_graph = "knn";
  const symgnn::FitResult r = symgnn::fit(cfg, {});
  const double a = r.metrics.figures.at("sylvester.alpha").get<double>();
  EXPECT_TRUE(a == 0.3 || a == 0.8);
  // Brute force: vec(X) = (1-a) (I - a At2 (x) At1)^-1 vec(H), column-major vec, with H the
  // binary interactions of training + validation and the graphs of the model's data.
  const symgnn::Dataset& ds = r.model->dataset();
  const at::Tensor h = interactions(ds);
  const at::Tensor at1 = symgnn::graph::normalized_adjacency(ds.users).to_dense().to(torch::kDouble);
  const at::Tensor at2 = symgnn::graph::normalized_adjacency(ds.items).to_dense().to(torch::kDouble);
  const int64_t n1 = h.size(0), n2 = h.size(1);
  const at::Tensor l = torch::eye(n1 * n2, torch::kDouble) - a * torch::kron(at2, at1);
  const at::Tensor vec_h = h.t().reshape({n1 * n2, 1});
  const at::Tensor x = ((1 - a) * torch::linalg_solve(l, vec_h)).reshape({n2, n1}).t();
  EXPECT_LT((all_scores(*r.model) - x).abs().max().item<double>(), 1e-4);
  EXPECT_FALSE(r.model->ranks_by_rating());
  EXPECT_TRUE(std::isfinite(r.metrics.mean("test_ndcg@10")));
}

TEST(FitRanking, JointObjectiveTrainsSelectsOnValidationNdcgAndRanksByItsScores) {
  symgnn::RunConfig cfg = small_config("lowrank");
  cfg.train.objective = "joint";
  cfg.train.epochs = 6;
  cfg.lowrank.hidden = 8;
  cfg.lowrank.l2 = 0.1;
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_joint") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  EXPECT_TRUE(std::isfinite(r.metrics.mean("val_ndcg@10")));
  EXPECT_TRUE(std::isfinite(r.metrics.mean("test_ndcg@10")));
  EXPECT_TRUE(std::isfinite(r.metrics.mean("test_rmse")));
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(fo.out_dir);
  EXPECT_FALSE(m.ranks_by_rating());
  // history.csv carries the ranking columns; recommend shows predicted ratings in range.
  EXPECT_NE(st::read_file(fo.out_dir + "/run0/history.csv").find("val_ndcg@10"), std::string::npos);
  for (const auto& rec : symgnn::recommend(m, {0, 1, 2}, {5, false}))
    for (const float p : rec.scores) {
      EXPECT_GE(p, m.rating_min());
      EXPECT_LE(p, m.rating_max());
    }
  // The ranking metric the run recorded is evaluate's on the same model, at its epoch.
  symgnn::EvaluateOptions eo;
  eo.ks = {10};
  EXPECT_GE(symgnn::eval::metric_value(symgnn::evaluate(m, eo).ranking.at_k[0], "ndcg"), 0.0);
}

TEST(FitRanking, RankingObjectiveGetsRatingsFromItsBiasHead) {
  symgnn::RunConfig cfg = small_config("lowrank");
  cfg.train.objective = "ranking";
  cfg.train.ranking_loss = "bpr";
  cfg.train.negatives = 3;
  cfg.train.epochs = 4;
  cfg.lowrank.hidden = 8;
  symgnn::FitOptions fo;
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  EXPECT_FALSE(r.model->ranks_by_rating());
  EXPECT_LT(r.metrics.mean("test_rmse"), 2.0);  // biases alone: near the global mean's error
}

TEST(FitRanking, ImplicitDataTrainsForRanking) {
  // Every rating the same (clicks): objective rating would fit nothing.
  std::string csv = "user,item,rating\n";
  for (int u = 0; u < 30; ++u)
    for (int i = 0; i < 20; ++i)
      if ((u * 7 + i * 3) % 4 == 0 || (u % 5 == i % 5))
        csv += std::to_string(u) + "," + std::to_string(i) + ",1\n";
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.data.source = st::write_file(st::scratch_dir("fit_implicit"), "clicks.csv", csv);
  cfg.data.val_fraction = 0.1;
  cfg.train.epochs = 3;
  cfg.lowrank.hidden = 8;
  std::vector<std::string> lines;
  symgnn::FitOptions fo;
  fo.log = [&](const std::string& line) { lines.push_back(line); };
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  bool said = false;
  for (const auto& l : lines) said |= l.find("training for ranking") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_FALSE(r.model->ranks_by_rating());
}

TEST(FitRanking, NewUsersGetListsFromAJointModel) {
  symgnn::RunConfig cfg = small_config("lowrank");
  cfg.train.objective = "joint";
  cfg.train.epochs = 3;
  cfg.lowrank.hidden = 8;
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_joint_new") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const symgnn::Dataset& ds = r.model->dataset();
  const std::string given = ds.items.id_of(0), other = ds.items.id_of(1);
  const std::string ratings = st::write_file(st::scratch_dir("fit_joint_new_ratings"), "new.csv",
                                             "newcomer," + given + ",5\nnewcomer," + other + ",4\n");
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(fo.out_dir, "cpu", ratings);
  ASSERT_EQ(m.new_ratings().new_users, 1);
  EXPECT_FALSE(m.ranks_by_rating());
  const int64_t newcomer = m.users() - 1;
  ASSERT_EQ(m.dataset().users.id_of(newcomer), "newcomer");
  const auto recs = symgnn::recommend(m, {newcomer}, {5, false});
  ASSERT_EQ(recs.size(), 1u);
  ASSERT_EQ(recs[0].items.size(), 5u);
  for (const int64_t i : recs[0].items) EXPECT_TRUE(i != 0 && i != 1) << "a rated item was recommended";
}

TEST(FitRanking, TheBaseModelTrainsForRankingThroughTheSameObjectives) {
  for (const char* objective : {"ranking", "joint"}) {
    symgnn::RunConfig cfg = small_config("base");
    cfg.base.hidden = 8;
    cfg.train.epochs = 6;
    cfg.train.objective = objective;
    cfg.train.ranking_loss = "normalised_mse";
    const symgnn::FitResult r = symgnn::fit(cfg, {});
    ASSERT_NE(r.model, nullptr) << objective;
    EXPECT_FALSE(r.model->ranks_by_rating()) << objective;  // its own scores rank
    ASSERT_TRUE(r.metrics.metrics.count("test_ndcg@10")) << objective;
    const double ndcg = r.metrics.mean("test_ndcg@10");
    EXPECT_TRUE(std::isfinite(ndcg) && ndcg >= 0 && ndcg <= 1) << objective << " " << ndcg;
    EXPECT_TRUE(std::isfinite(r.metrics.mean("test_rmse"))) << objective;  // ratings from its head
  }
}

TEST(FitRanking, RefusesAnObjectiveTheModelCannotTrain) {
  symgnn::RunConfig cfg = small_config("base");
  cfg.base.offset = "baseline";  // residuals of the bias baseline: no sign of relevance
  cfg.train.objective = "joint";
  try {
    symgnn::fit(cfg, {});
    FAIL() << "base with the baseline offset trained for ranking";
  } catch (const symgnn::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("train.objective = joint"), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(FitRanking, AutoRankerWeighsTheKindsThatFitBesideAModelThatRanksByRating) {
  using symgnn::fitting::choose_ranker;
  using symgnn::fitting::kAutoRankerMaxItems;
  using symgnn::fitting::kAutoRankerMaxPairs;
  using V = std::vector<std::string>;
  EXPECT_EQ(symgnn::preset_config("paper").train.ranker, "none");
  EXPECT_EQ(symgnn::preset_config("recommended").train.ranker, "auto");
  symgnn::RunConfig cfg = small_config("lowrank");
  cfg.train.ranker = "auto";
  EXPECT_EQ(choose_ranker(cfg, 100, 50).candidates, (V{"ease", "itemknn", "popularity"}));
  EXPECT_EQ(choose_ranker(cfg, 100, 20000).candidates, (V{"elsa", "itemknn", "popularity"}));  // past EASE's
  // Past EASE's limits the item-based ranker, the sparse ItemKNN and popularity are left,
  // and a note says why.
  const symgnn::fitting::RankerChoice wide = choose_ranker(cfg, 10, kAutoRankerMaxItems + 1);
  EXPECT_EQ(wide.candidates, (V{"elsa", "itemknn", "popularity"}));
  EXPECT_NE(wide.note.find(std::to_string(kAutoRankerMaxItems)), std::string::npos) << wide.note;
  EXPECT_EQ(choose_ranker(cfg, kAutoRankerMaxPairs / 100 + 1, 100).candidates,
            (V{"elsa", "itemknn", "popularity"}));
  // The item-based ranker while users x items x d stays small: not on 200,000 x 200,000.
  const symgnn::fitting::RankerChoice huge = choose_ranker(cfg, 200000, 200000);
  EXPECT_EQ(huge.candidates, (V{"itemknn", "popularity"}));
  EXPECT_NE(huge.note.find("nor an elsa ranker"), std::string::npos) << huge.note;
  cfg.elsa.dims = "8";  // its first width counts
  EXPECT_EQ(choose_ranker(cfg, 200000, 20000).candidates, (V{"elsa", "itemknn", "popularity"}));
  cfg.elsa.dims = "128,512";
  cfg.model = "sylvester";  // a closed-form kind fitted for ratings
  EXPECT_EQ(choose_ranker(cfg, 100, 50).candidates.front(), "ease");
  cfg.model = "itemknn";  // a ranking kind ranks by itself
  EXPECT_TRUE(choose_ranker(cfg, 100, 50).candidates.empty());
  cfg.model = "lowrank";
  cfg.train.objective = "joint";  // trained for ranking
  EXPECT_TRUE(choose_ranker(cfg, 100, 50).candidates.empty());
  cfg.train.ranker = "itemknn";  // asked for by name: always
  EXPECT_EQ(choose_ranker(cfg, 10, kAutoRankerMaxItems + 1).candidates, V{"itemknn"});
  cfg.train.ranker = "none";
  EXPECT_TRUE(choose_ranker(cfg, 100, 50).candidates.empty());
}

namespace {

/// A short low-rank run with train.ranker = `ranker`, into a fresh folder named by `tag`.
symgnn::RunConfig ranker_run_config(const std::string& ranker) {
  symgnn::RunConfig cfg = small_config("lowrank");
  cfg.train.epochs = 3;
  cfg.lowrank.hidden = 8;
  cfg.train.ranker = ranker;
  cfg.ease.lambdas = "3,30";
  cfg.elsa.dims = "8";
  cfg.elsa.epochs = 6;
  return cfg;
}

symgnn::FitOptions ranker_run_options(const std::string& tag) {
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir(tag) + "/run";
  return fo;
}

}  // namespace

TEST(FitRanking, AutoRankerKeepsTheCandidateBestOnValidation) {
  const symgnn::FitOptions fo = ranker_run_options("fit_auto_ranker");
  const symgnn::FitResult r = symgnn::fit(ranker_run_config("auto"), fo);
  const nlohmann::json& rec = r.metrics.figures["ranker"];
  ASSERT_TRUE(rec.contains("candidates_val_ndcg@10")) << rec.dump();
  const nlohmann::json& tried = rec["candidates_val_ndcg@10"];
  ASSERT_EQ(tried.size(), 3u);
  double best = -1;
  std::string best_kind;
  for (const auto& [kind, ndcg] : tried.items())
    if (ndcg.get<double>() > best) best = ndcg.get<double>(), best_kind = kind;
  EXPECT_EQ(rec["kind"], best_kind);
  EXPECT_EQ(r.model->ranker(), best_kind);
  EXPECT_DOUBLE_EQ(rec["val_ndcg@10"].get<double>(), best);
  // Only the winner's directory is left, and it is the one loaded beside the model.
  EXPECT_TRUE(std::filesystem::exists(fo.out_dir + "/ranker/model.pt"));
  for (const char* kind : {"ease", "elsa", "itemknn", "popularity"})
    EXPECT_FALSE(std::filesystem::exists(fo.out_dir + "/ranker." + kind)) << kind;
  EXPECT_EQ(symgnn::TrainedModel::load(fo.out_dir).ranker(), best_kind);
}

TEST(FitRanking, AutoRankerLeavesOutWhatWouldPassItsBudget) {
  using symgnn::fitting::estimated_seconds;
  symgnn::RunConfig cfg = ranker_run_config("auto");
  const symgnn::RunConfig defaults = symgnn::preset_config("recommended");
  cfg.ease.lambdas = defaults.ease.lambdas;  // six penalties
  cfg.elsa.dims = defaults.elsa.dims;        // first width 128
  // The estimates grow with the work and shrink with the threads; the sparse kinds cost none.
  EXPECT_NEAR(estimated_seconds("ease", cfg, 12000, 9742, 1), 7 * std::pow(9742.0, 3) * 3e-11, 1e-6);
  EXPECT_NEAR(estimated_seconds("ease", cfg, 12000, 9742, 2), 3.5 * std::pow(9742.0, 3) * 3e-11, 1e-6);
  // Fewer users than items: Woodbury's form, an m x m inverse (ml-latest-small: about 6 s).
  const double m = 610, n = 9742,
               woodbury = 6 * (m * m * m + 3 * m * m * n) + m * m * m + 2 * m * m * n + 2 * m * n * n;
  EXPECT_NEAR(estimated_seconds("ease", cfg, 610, 9742, 1), woodbury * 3e-11, 1e-6);
  EXPECT_NEAR(estimated_seconds("elsa", cfg, 19533, 16121, 1), 19533.0 * 16121 * 128 * 1e-9, 1e-6);
  EXPECT_EQ(estimated_seconds("itemknn", cfg, 1000, 100000, 1), 0.0);
  EXPECT_EQ(estimated_seconds("popularity", cfg, 1000, 100000, 1), 0.0);
  EXPECT_DOUBLE_EQ(symgnn::fitting::ranker_budget_seconds(cfg, 600000), 300.0);
  // A budget EASE's estimate passes: the sparse candidates only, and the run says why.
  cfg = ranker_run_config("auto");
  cfg.train.ranker_budget = 1e-9;
  const symgnn::FitOptions fo = ranker_run_options("fit_ranker_budget");
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const nlohmann::json& rec = r.metrics.figures["ranker"];
  ASSERT_TRUE(rec.contains("over_budget")) << rec.dump();
  EXPECT_NE(rec["over_budget"][0].get<std::string>().find("no ease ranker candidate"), std::string::npos);
  EXPECT_FALSE(rec["candidates_val_ndcg@10"].contains("ease")) << rec.dump();
  EXPECT_TRUE(rec["candidates_val_ndcg@10"].contains("popularity")) << rec.dump();
  EXPECT_NE(rec["kind"], "ease");
}

TEST(FitRanking, TheBaselinesSummaryNamesTheRankerWhoseListsItReports) {
  // --model baseline beside an EASE ranker: its test NDCG@10 is the ranker's lists, and the
  // summary says so rather than "ranked by predicted rating".
  symgnn::RunConfig cfg = ranker_run_config("ease");
  cfg.model = "baseline";
  const symgnn::FitResult r = symgnn::fit(cfg, {});
  ASSERT_EQ(r.model->ranker(), "ease");
  bool named = false;
  for (const std::string& line : r.summary) {
    if (line.rfind("baseline: test NDCG@10", 0) != 0) continue;
    named = line.find("(the lists by the ease ranker)") != std::string::npos;
    EXPECT_EQ(line.find("ranked by predicted rating"), std::string::npos) << line;
  }
  EXPECT_TRUE(named);
}

TEST(FitRanking, RankerBesideARatingModelRanksWhilePredictionsStayTheModels) {
  symgnn::RunConfig cfg = ranker_run_config("ease");
  symgnn::FitOptions fo = ranker_run_options("fit_ranker");
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  EXPECT_EQ(r.model->ranker(), "ease");
  EXPECT_FALSE(r.model->ranks_by_rating());
  ASSERT_TRUE(r.metrics.figures.contains("ranker"));
  EXPECT_EQ(r.metrics.figures["ranker"]["kind"], "ease");
  EXPECT_TRUE(r.metrics.figures["ranker"].contains("test_ndcg@10"));
  // The lists are the ranker's: its directory, loaded alone, scores the same.
  const symgnn::TrainedModel alone = symgnn::TrainedModel::load(fo.out_dir + "/ranker");
  EXPECT_EQ(alone.name(), "ease");
  EXPECT_EQ(alone.ranker(), "");
  EXPECT_TRUE(torch::allclose(all_scores(*r.model), all_scores(alone)));
  // Loaded back, the directory holds both: the ranker's scores, the model's predictions.
  const symgnn::TrainedModel both = symgnn::TrainedModel::load(fo.out_dir);
  EXPECT_EQ(both.ranker(), "ease");
  EXPECT_NE(both.name(), "ease");
  EXPECT_TRUE(torch::allclose(all_scores(both), all_scores(alone)));
  const symgnn::RatingList& test = both.dataset().test;
  const std::vector<float> p = both.predict(test.user, test.item), q = r.model->predict(test.user, test.item);
  ASSERT_EQ(p.size(), q.size());
  for (size_t k = 0; k < p.size(); ++k) EXPECT_NEAR(p[k], q[k], 1e-5);
  EXPECT_NE(alone.predict(test.user, test.item), p) << "predictions came from the ranker";
  // Replaced by a run without a ranker, the directory loses it.
  cfg.train.ranker = "none";
  fo.overwrite = true;
  symgnn::fit(cfg, fo);
  EXPECT_FALSE(std::filesystem::exists(fo.out_dir + "/ranker"));
  EXPECT_EQ(symgnn::TrainedModel::load(fo.out_dir).ranker(), "");
}

TEST(FitRanking, RefusesARankerBesideARankingKind) {
  symgnn::RunConfig cfg = small_config("ease");
  cfg.train.ranker = "itemknn";
  EXPECT_THROW(symgnn::fit(cfg, {}), symgnn::ConfigError);
}
