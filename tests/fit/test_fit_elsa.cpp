// The item-based ranker (models/elsa/elsa_model.h) fitted end to end: its scores are
// x_u A_hat A_hat^T - x_u of the ratings the final fit saw, its encoder's rows have unit
// norm, its chosen width and epochs come from validation NDCG@10, and the model directory
// gives the same scores back; bad settings are one-line ConfigErrors.
#include <gtest/gtest.h>
#include <torch/types.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/test_support.h"
#include "fit/ranking_test_util.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "symgnn/trained_model.h"

namespace st = symgnn::testing;

namespace {

symgnn::RunConfig elsa_config() {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.model = "elsa";
  cfg.data.synthetic_users = 60;
  cfg.data.synthetic_items = 40;
  cfg.data.synthetic_density = 0.25;
  cfg.data.val_fraction = 0.15;
  cfg.elsa.dims = "4,8";
  cfg.elsa.epochs = 12;
  cfg.elsa.eval_every = 3;
  cfg.elsa.batch_users = 16;
  cfg.elsa.deep_hidden = "0,3";
  return cfg;
}

using st::all_scores;
using st::interactions;
using st::twin_ratings;

}  // namespace

TEST(FitElsa, ChoosesItsWidthAndEpochsOnValidationAndSurvivesTheModelDirectory) {
  symgnn::RunConfig cfg = elsa_config();
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_elsa") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const int64_t d = r.metrics.figures.at("elsa.d").get<int64_t>();
  EXPECT_TRUE(d == 4 || d == 8);
  const int64_t epochs = r.metrics.figures.at("elsa.epochs").get<int64_t>();
  EXPECT_GE(epochs, 3);
  EXPECT_LE(epochs, 12);
  EXPECT_EQ(r.metrics.figures.at("candidates").size(), 4u);  // (d, H) of {4, 8} x {0, 3}
  const int64_t hidden = r.metrics.figures.at("elsa.deep_hidden").get<int64_t>();
  EXPECT_TRUE(hidden == 0 || hidden == 3);
  EXPECT_TRUE(std::isfinite(r.metrics.mean("val_ndcg@10")));
  EXPECT_TRUE(std::isfinite(r.metrics.mean("test_ndcg@10")));

  // A refit at the chosen setting (blend --metric ndcg@10) tries only it.
  const auto kind = symgnn::models::make_model(cfg, symgnn::models::make_context(r.model->dataset()));
  symgnn::RunConfig pinned = cfg;
  const std::string said = kind->pin_chosen_setting(pinned, r.metrics.figures, fo.out_dir);
  EXPECT_EQ(pinned.elsa.dims, std::to_string(d));
  EXPECT_EQ(pinned.elsa.epochs, epochs);
  EXPECT_EQ(pinned.elsa.deep_hidden, std::to_string(hidden));
  EXPECT_NE(said.find("elsa.d = " + std::to_string(d)), std::string::npos) << said;
  EXPECT_THROW(kind->pin_chosen_setting(pinned, nlohmann::json::object(), fo.out_dir), symgnn::DataError);
  // The model directory holds the fitted width and profiles.
  const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(fo.out_dir);
  // The model directory holds the fitted width and profiles: the same scores back.
  EXPECT_TRUE(torch::allclose(all_scores(loaded), all_scores(*r.model), 1e-6, 1e-6));
  EXPECT_EQ(loaded.similarity_basis(symgnn::NodeSide::items), "representations");
  // Ratings come from the damped biases, inside the rating range.
  const symgnn::RatingList& test = r.model->dataset().test;
  for (const float p : r.model->predict(test.user, test.item)) {
    EXPECT_GE(p, r.model->rating_min());
    EXPECT_LE(p, r.model->rating_max());
  }
}

TEST(FitElsa, ScoresAreTheAutoencoderOfTheRatingsWithItsOwnItemsRemoved) {
  symgnn::RunConfig cfg = elsa_config();
  cfg.elsa.graph_beta = 0.3;   // through the item graph too: A_hat is what scores use
  cfg.elsa.deep_hidden = "0";  // the shallow path alone (the deep path: the next test)
  symgnn::Dataset ds = symgnn::load_dataset(cfg.data);
  symgnn::graph::resolve_graphs(ds, cfg.graph);
  const symgnn::models::ModelContext ctx = symgnn::models::make_context(ds);
  auto model = symgnn::models::make_model(cfg, ctx);
  model->fit(ds, at::Device(at::kCPU), {});
  // A_hat: the items' representations, one unit row each.
  const at::Tensor a = model->node_representations(1).to(torch::kDouble);
  ASSERT_EQ(a.size(0), ds.items.count);
  EXPECT_TRUE(a.size(1) == 4 || a.size(1) == 8);
  EXPECT_LT((a.norm(2, {1}) - 1).abs().max().item<double>(), 1e-5);
  const at::Tensor x = interactions(ds);
  const at::Tensor expected = torch::mm(torch::mm(x, a), a.t()) - x;
  const at::Tensor users = torch::arange(ds.users.count, torch::kLong);
  const at::Tensor got = model->score_items(users, ds.items.count).to(torch::kDouble);
  EXPECT_LT((got - expected).abs().max().item<double>(), 1e-4);
  // Users: the sums of their items' rows.
  EXPECT_LT((model->node_representations(0).to(torch::kDouble) - torch::mm(x, a)).abs().max().item<double>(),
            1e-4);
}

TEST(FitElsa, TheDeepPathScoresAreItsRepresentationsProductAndSurviveTheModelDirectory) {
  // elsa.deep_hidden = 5 alone: users [x A_hat, h], items [A_hat, D], scores their product
  // less each user's own items; the saved directory gives the same scores, and a newcomer
  // with a trained user's items gets that user's scores.
  symgnn::RunConfig cfg = elsa_config();
  cfg.elsa.dims = "4";
  cfg.elsa.deep_hidden = "5";
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_elsa_deep") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  EXPECT_EQ(r.metrics.figures.at("elsa.deep_hidden").get<int64_t>(), 5);
  symgnn::Dataset ds = symgnn::load_dataset(cfg.data);
  symgnn::graph::resolve_graphs(ds, cfg.graph);
  auto model = symgnn::models::make_model(cfg, symgnn::models::make_context(ds));
  model->fit(ds, at::Device(at::kCPU), {});
  const at::Tensor items = model->node_representations(1).to(torch::kDouble);
  const at::Tensor users = model->node_representations(0).to(torch::kDouble);
  ASSERT_EQ(items.size(1), 4 + 5);
  ASSERT_EQ(users.size(1), 4 + 5);
  const at::Tensor x = interactions(ds);
  const at::Tensor got =
      model->score_items(torch::arange(ds.users.count, torch::kLong), ds.items.count).to(torch::kDouble);
  EXPECT_LT((got - (users.mm(items.t()) - x)).abs().max().item<double>(), 1e-4);
  const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(fo.out_dir);
  EXPECT_TRUE(torch::allclose(all_scores(loaded), all_scores(*r.model), 1e-6, 1e-6));
  const std::string ratings = twin_ratings(r.model->dataset(), 2, "fit_elsa_deep_ratings");
  st::expect_scored_as_twin(symgnn::TrainedModel::load(fo.out_dir, "cpu", ratings), 2);
}

TEST(FitElsa, TheSameSeedGivesTheSameModel) {
  symgnn::RunConfig cfg = elsa_config();
  cfg.elsa.dims = "6";
  cfg.elsa.dropout = 0.3;
  cfg.elsa.graph_beta = 0.3;
  const symgnn::FitResult a = symgnn::fit(cfg, {});
  const symgnn::FitResult b = symgnn::fit(cfg, {});
  EXPECT_TRUE(torch::equal(all_scores(*a.model), all_scores(*b.model)));
}

TEST(FitElsa, AFallPatienceStopsACurveOnceItHasGoneAsLongWithoutAGainAsItTookToRise) {
  symgnn::RunConfig cfg = elsa_config();
  cfg.elsa.dims = "4";
  cfg.elsa.deep_hidden = "0";
  cfg.elsa.epochs = 40;
  cfg.elsa.eval_every = 1;
  cfg.elsa.patience = 40;  // patience alone would run every epoch
  const auto curve_of = [](const symgnn::FitResult& r) {
    std::vector<std::pair<int64_t, double>> c;
    for (const auto& point : r.metrics.figures.at("candidates").at(0).at("curve"))
      c.emplace_back(point.at(0).get<int64_t>(), point.at(1).get<double>());
    return c;
  };
  const auto full = curve_of(symgnn::fit(cfg, {}));
  ASSERT_EQ(full.size(), 40u);
  cfg.elsa.fall_patience = 1;
  const auto cut = curve_of(symgnn::fit(cfg, {}));
  // The same seed draws the same curve up to the stop, which is the first measurement whose
  // distance from the best so far (a gain of more than elsa.min_gain) reaches the best's epoch.
  int64_t best = 0;
  double best_value = -1;
  size_t stop = full.size();
  for (size_t k = 0; k < full.size(); ++k) {
    const auto [epoch, value] = full[k];
    if (best_value < 0 || value > best_value + cfg.elsa.min_gain) {
      best = epoch, best_value = value;
    } else if (epoch - best >= best) {
      stop = k + 1;
      break;
    }
  }
  ASSERT_LT(stop, full.size()) << "the curve never fell: the test would show nothing";
  ASSERT_EQ(cut.size(), stop);
  for (size_t k = 0; k < cut.size(); ++k) {
    EXPECT_EQ(cut[k].first, full[k].first);
    EXPECT_NEAR(cut[k].second, full[k].second, 1e-12);
  }
}

TEST(FitElsa, BadSettingsAreConfigErrors) {
  for (const char* dims : {"0", "", "4,x", "2.5"}) {
    symgnn::RunConfig cfg = elsa_config();
    cfg.elsa.dims = dims;
    try {
      symgnn::fit(cfg, {});
      ADD_FAILURE() << "elsa.dims = '" << dims << "' was accepted";
    } catch (const symgnn::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("elsa.dims"), std::string::npos) << e.what();
    }
  }
  for (const char* hidden : {"-1", "", "x", "0.5"}) {
    symgnn::RunConfig cfg = elsa_config();
    cfg.elsa.deep_hidden = hidden;
    try {
      symgnn::fit(cfg, {});
      ADD_FAILURE() << "elsa.deep_hidden = '" << hidden << "' was accepted";
    } catch (const symgnn::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("elsa.deep_hidden"), std::string::npos) << e.what();
    }
  }
}

TEST(FitElsa, NewUsersAreScoredFromTheirRatingsWithoutRetraining) {
  // Inductive: a newcomer who rated exactly the items of a trained user gets that user's
  // scores, from the same saved model, loaded with the newcomer's ratings.
  symgnn::RunConfig cfg = elsa_config();
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_elsa_new") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const symgnn::Dataset& ds = r.model->dataset();
  const int64_t twin = 3;
  const std::string ratings = twin_ratings(ds, twin, "fit_elsa_new_ratings");
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(fo.out_dir, "cpu", ratings);
  ASSERT_EQ(m.new_ratings().new_users, 1);
  st::expect_scored_as_twin(m, twin);
  // The trained users' scores are the saved model's.
  const symgnn::TrainedModel saved = symgnn::TrainedModel::load(fo.out_dir);
  EXPECT_EQ(saved.score_all_items({twin}), m.score_all_items({twin}));
}

TEST(FitElsa, AsTheRankerBesideARatingModelItRanksNewUsersToo) {
  symgnn::RunConfig cfg = elsa_config();
  cfg.model = "lowrank";
  cfg.lowrank.hidden = 8;
  cfg.train.epochs = 2;
  cfg.train.ranker = "elsa";
  // The ranker alone: the network trained for ranking has no row for a user it was not fitted
  // on, so the trained twin's list may take its term where the newcomer's cannot
  // (RankerNetwork.AKnownUsersFoldInTakesItsTermAndANewUserGetsTheListsWithoutIt).
  cfg.train.ranker_network = "none";
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_elsa_ranker") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  ASSERT_EQ(r.model->ranker(), "elsa");
  const symgnn::Dataset& ds = r.model->dataset();
  const int64_t twin = 5;
  const std::string ratings = twin_ratings(ds, twin, "fit_elsa_ranker_new");
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(fo.out_dir, "cpu", ratings);
  EXPECT_EQ(m.ranker(), "elsa");  // new users keep the ranker's lists
  st::expect_scored_as_twin(m, twin);
}
