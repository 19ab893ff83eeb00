// evaluate --protocol new-users (fit/new_users_protocol.h): which users are held out and
// how their ratings divide, that the fit never saw them and that their scored ratings are
// exactly what is evaluated, beside EASE given the same rows; refusals in one line.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "fit/new_users_protocol.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"

namespace {

symgnn::RunConfig new_users_config(const std::string& model) {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.model = model;
  cfg.data.synthetic_users = 80;
  cfg.data.synthetic_items = 40;
  cfg.data.synthetic_density = 0.25;
  cfg.data.val_fraction = 0.15;
  cfg.elsa.dims = "4";
  cfg.elsa.epochs = 6;
  cfg.elsa.eval_every = 3;
  cfg.elsa.batch_users = 16;
  return cfg;
}

}  // namespace

TEST(NewUsersProtocol, HoldsUsersOutAndScoresWhatTheirFoldInLeavesBesideEase) {
  const symgnn::RunConfig cfg = new_users_config("elsa");
  symgnn::fitting::NewUsersProtocol p;
  p.hold_out = 0.25;
  p.fold_in = 0.75;
  p.seed = 7;
  p.eval.ks = {5, 10};
  const symgnn::fitting::NewUsersReport r = symgnn::fitting::evaluate_new_users(cfg, p, nullptr);

  // The users with two or more ratings, a quarter of them held out; each one's ratings
  // divide into 75 % given (at least one) and the rest scored (at least one).
  const symgnn::Dataset ds = symgnn::load_dataset(cfg.data);
  std::map<int64_t, int64_t> count;
  for (const symgnn::RatingList* l : {&ds.train, &ds.validation, &ds.test})
    for (size_t e = 0; e < l->size(); ++e) ++count[l->user[e]];
  int64_t eligible = 0;
  for (const auto& [u, n] : count) eligible += n >= 2;
  EXPECT_EQ(r.users, eligible);
  EXPECT_EQ(r.held_out, std::llround(0.25 * static_cast<double>(eligible)));
  ASSERT_EQ(static_cast<int64_t>(r.held_out_users.size()), r.held_out);
  int64_t total = 0, given = 0;
  for (const int64_t u : r.held_out_users) {
    const int64_t n = count.at(u);
    total += n;
    given += std::clamp<int64_t>(std::llround(0.75 * static_cast<double>(n)), 1, n - 1);
  }
  EXPECT_EQ(r.fold_in_ratings + r.scored_ratings, total);
  EXPECT_EQ(r.fold_in_ratings, given);
  // What is evaluated is the scored ratings, before and after the fold-in, for both kinds.
  EXPECT_EQ(r.model.test_ratings, r.scored_ratings);
  EXPECT_EQ(r.cold.test_ratings, r.scored_ratings);
  ASSERT_TRUE(r.has_ease);
  EXPECT_EQ(r.ease.test_ratings, r.scored_ratings);
  for (const symgnn::Evaluation* e : {&r.model, &r.ease}) {
    ASSERT_EQ(e->ranking.at_k.size(), 2u);
    EXPECT_GT(e->ranking.users_evaluated, 0);
    EXPECT_LE(e->ranking.users_evaluated, r.held_out);
    EXPECT_TRUE(std::isfinite(e->errors.at("rmse")));
  }
  // elsa reads no user graph: every held-out user is in slice "0", whose figures are the whole's.
  ASSERT_EQ(r.by_degree.size(), 3u);
  EXPECT_FALSE(r.by_degree_note.empty());
  EXPECT_EQ(r.by_degree[0].users, r.held_out);
  EXPECT_EQ(r.by_degree[0].scored_ratings, r.scored_ratings);
  EXPECT_EQ(r.by_degree[0].model.errors, r.model.errors);
  EXPECT_EQ(r.by_degree[1].users + r.by_degree[2].users, 0);
  // Another seed holds out other users; the same seed the same ones.
  symgnn::fitting::NewUsersProtocol q = p;
  q.with_ease = false;
  EXPECT_EQ(symgnn::fitting::evaluate_new_users(cfg, q, nullptr).held_out_users, r.held_out_users);
  q.seed = 8;
  const symgnn::fitting::NewUsersReport other = symgnn::fitting::evaluate_new_users(cfg, q, nullptr);
  EXPECT_NE(other.held_out_users, r.held_out_users);
  EXPECT_FALSE(other.has_ease);
}

TEST(NewUsersProtocol, AKindThatCannotPlaceNewUsersAndBadFractionsAreRefused) {
  symgnn::fitting::NewUsersProtocol p;
  EXPECT_THROW(symgnn::fitting::evaluate_new_users(new_users_config("baseline"), p, nullptr),
               symgnn::ConfigError);
  p.fold_in = 1.0;
  EXPECT_THROW(symgnn::fitting::evaluate_new_users(new_users_config("ease"), p, nullptr),
               symgnn::ConfigError);
  p.fold_in = 0.8;
  p.hold_out = 0;
  EXPECT_THROW(symgnn::fitting::evaluate_new_users(new_users_config("ease"), p, nullptr),
               symgnn::ConfigError);
}
