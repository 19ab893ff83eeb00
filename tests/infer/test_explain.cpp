// explain() (symgnn/explain.h): the exact kinds' parts sum to their own scores (every part,
// and the shown ones with the rest); Eq. 1's path weights equal the series by brute force;
// a followed user's rating is named as such; occlusion's top part lowers the learned
// model's score more than a random input does, on average over users.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "data/parsers.h"
#include "infer/explain_occlusion.h"
#include "infer_test_util.h"
#include "models/sylvester/path_weights.h"
#include "symgnn/explain.h"
#include "symgnn/trained_model.h"

using namespace symgnn;

namespace {

std::string fit_for_explain(const std::string& name, const std::vector<std::string>& sets) {
  return symgnn::testing::fit_csv("infer_explain_" + name, symgnn::testing::two_taste_csv(30, 20, 0.35, 5),
                                  sets);
}

double sum_of_parts(const Explanation& e) {
  double s = 0;
  for (const auto& p : e.parts) s += p.value;
  return s;
}

}  // namespace

TEST(Explain, TheExactKindsPartsSumToTheirScores) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> kinds = {
      {"ease", {"model=ease"}},
      {"itemknn", {"model=itemknn"}},
      {"popularity", {"model=popularity"}},
      {"elsa", {"model=elsa", "elsa.dims=8", "elsa.epochs=4", "elsa.deep_hidden=0"}},
      {"elsa_deep", {"model=elsa", "elsa.dims=8", "elsa.epochs=4", "elsa.deep_hidden=8"}},
      {"sylvester_binary",
       {"model=sylvester_binary", "graph.user_graph=knn", "graph.item_graph=knn", "graph.knn_k=4",
        "graph.knn_source=ratings", "sylvester.alphas=0.5,0.8", "sylvester.solver=exact"}},
      {"sylvester",
       {"model=sylvester", "graph.user_graph=knn", "graph.item_graph=knn", "graph.knn_k=4",
        "graph.knn_source=ratings", "sylvester.alphas=0.5,0.8", "sylvester.solver=exact"}},
  };
  for (const auto& [name, sets] : kinds) {
    SCOPED_TRACE(name);
    const TrainedModel m = TrainedModel::load(fit_for_explain(name, sets));
    const int64_t n2 = m.items();
    for (int64_t u = 0; u < m.users(); u += 7) {
      const std::vector<float> list = m.score_all_items({u});
      const std::vector<float> rating = m.rating_all_items({u});
      const auto& seen = m.seen_items()[static_cast<size_t>(u)];
      for (int64_t j = 0; j < n2; j += 3) {
        if (std::binary_search(seen.begin(), seen.end(), j)) continue;
        // The Sylv. rating kind's own figure is its rating (its lists may be a ranker's).
        const std::string target = name == "sylvester" ? "rating" : "list";
        ExplainOptions all;
        all.top = 100000;
        all.target = target;
        const Explanation e = explain(m, u, j, all);
        ASSERT_TRUE(e.exact);
        const double want =
            name == "sylvester" ? rating[static_cast<size_t>(j)] : list[static_cast<size_t>(j)];
        EXPECT_NEAR(e.score, want, 1e-6 * (1 + std::abs(want)));
        EXPECT_NEAR(sum_of_parts(e), want, 1e-6 * (1 + std::abs(want)));
        // Two shown, the others summed into "rest": the same total.
        ExplainOptions two;
        two.top = 2;
        two.target = target;
        const Explanation short_one = explain(m, u, j, two);
        ASSERT_LE(short_one.parts.size(), 3u);
        EXPECT_NEAR(sum_of_parts(short_one), want, 1e-6 * (1 + std::abs(want)));
        for (size_t k = 1; k + 1 < short_one.parts.size(); ++k)
          EXPECT_GE(std::abs(short_one.parts[k - 1].value), std::abs(short_one.parts[k].value));
        for (const auto& p : e.parts) {
          EXPECT_FALSE(p.text.empty());
          // The item-item kinds' parts are the user's own ratings; popularity's the item's raters.
          if (name == "popularity") {
            EXPECT_EQ(p.source, p.source == "rest" ? "rest" : "neighbour");
          }
          if (name == "ease" || name == "itemknn" || name.rfind("elsa", 0) == 0) {
            EXPECT_EQ(p.source, p.source == "rated" || p.source == "constant" ? p.source : "rated");
          }
        }
      }
    }
    // The JSON carries the same figures.
    const nlohmann::json j = explanation_json(explain(m, 0, m.items() - 1));
    EXPECT_EQ(j.at("user"), m.dataset().users.id_of(0));
    EXPECT_TRUE(j.at("parts").is_array());
  }
}

TEST(Explain, PathWeightsAreTheSeriesOfEquationOne) {
  // G_vi = (1-a) sum_k a^k (A1^k)_uv (A2^k)_ji, by dense matrix powers.
  const int64_t n1 = 6, n2 = 5;
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> w(0.1, 1.0);
  auto random_graph = [&](int64_t n) {
    at::Tensor a = at::zeros({n, n}, at::kDouble);
    for (int64_t x = 0; x < n; ++x)
      for (int64_t y = x + 1; y < n; ++y)
        if (w(gen) < 0.6) a[x][y] = a[y][x] = w(gen);
    const at::Tensor d = a.sum(1).clamp_min(1e-12).rsqrt();
    return (d.unsqueeze(1) * a * d.unsqueeze(0)).contiguous();
  };
  auto sparse = [](const at::Tensor& dense) {
    const at::Tensor nz = dense.nonzero();
    return graph::from_coo(dense.size(0), dense.size(1), nz.select(1, 0).contiguous(),
                           nz.select(1, 1).contiguous(),
                           dense.index({nz.select(1, 0), nz.select(1, 1)}).to(at::kFloat));
  };
  const at::Tensor a1 = random_graph(n1), a2 = random_graph(n2);
  const double alpha = 0.7;
  std::vector<int64_t> users, items;
  for (int64_t v = 0; v < n1; ++v)
    for (int64_t i = 0; i < n2; ++i) users.push_back(v), items.push_back(i);
  const std::vector<double> g =
      models::sylvester::path_weights(sparse(a1), sparse(a2), alpha, 2, 3, users, items);
  at::Tensor p1 = at::eye(n1, at::kDouble), p2 = at::eye(n2, at::kDouble),
             want = at::zeros({n1, n2}, at::kDouble);
  for (int k = 0; k < 400; ++k) {
    want += (1 - alpha) * std::pow(alpha, k) * p1[2].unsqueeze(1) * p2[3].unsqueeze(0);
    p1 = p1.mm(a1), p2 = p2.mm(a2);
  }
  for (size_t e = 0; e < g.size(); ++e)
    EXPECT_NEAR(g[e], want[users[e]][items[e]].item<double>(), 1e-6) << users[e] << "," << items[e];
}

TEST(Explain, AFollowedUsersRatingIsNamedSo) {
  // ann follows bob; bob rated "film9" 5, ann has not rated it. Eq. 1 over the follow graph
  // predicts ann's rating of film9 from bob's, and says who he is.
  const std::string d = symgnn::testing::scratch_dir("infer_explain_follow");
  std::ostringstream csv;
  csv << "user,item,rating\n";
  const std::vector<std::string> people = {"ann", "bob", "cat", "dan", "eve", "fay"};
  for (size_t p = 0; p < people.size(); ++p)
    for (int i = 0; i < 9; ++i)
      if ((i + static_cast<int>(p)) % 3 != 0)
        csv << people[p] << ",film" << i << "," << 1 + (i + p) % 5 << "\n";
  csv << "bob,film9,5\ncat,film9,2\n";
  symgnn::testing::write_file(d, "ratings.csv", csv.str());
  symgnn::testing::write_file(d, "follows.csv", "ann,bob\nbob,cat\ncat,dan\ndan,eve\neve,fay\n");
  RunConfig cfg = start_config("", "");
  cfg.data.source = d + "/ratings.csv";
  cfg.data.user_graph_file = d + "/follows.csv";
  cfg.data.test_fraction = 0.1;
  for (const char* s : {"model=sylvester", "graph.user_graph=file", "graph.item_graph=identity",
                        "sylvester.alphas=0.5", "sylvester.solver=exact", "data.val_fraction=0.1"})
    apply_override(cfg, s);
  FitOptions o;
  o.out_dir = d + "/run";
  o.overwrite = true;
  fit(cfg, o);
  const TrainedModel m = TrainedModel::load(o.out_dir);
  const int64_t ann = data::id_index(m.dataset().users).find("ann");
  const int64_t film9 = data::id_index(m.dataset().items).find("film9");
  ASSERT_GE(ann, 0);
  ASSERT_GE(film9, 0);
  ExplainOptions opt;
  opt.target = "rating";
  const Explanation e = explain(m, ann, film9, opt);
  bool named = false;
  for (const auto& p : e.parts)
    if (p.source == "neighbour" && p.user_id == "bob") {
      named = true;
      EXPECT_TRUE(p.linked);
      EXPECT_NE(p.text.find("'bob', whom you follow, rated it (5)"), std::string::npos) << p.text;
      EXPECT_GT(p.value, 0);  // 5 is above the mean rating
    }
  EXPECT_TRUE(named);
}

TEST(Explain, OcclusionsTopPartLowersTheScoreMoreThanARandomInput) {
  const TrainedModel m = TrainedModel::load(fit_for_explain(
      "lowrank",
      {"model=lowrank", "lowrank.variant=G", "graph.user_graph=knn", "graph.item_graph=knn", "graph.knn_k=4",
       "graph.knn_source=ratings", "train.epochs=30", "lowrank.hidden=8", "train.ranker=none"}));
  const infer::ModelParts& parts = m.parts();
  std::mt19937 gen(11);
  double top_drop = 0, random_drop = 0;
  int users = 0;
  for (int64_t u = 0; u < m.users(); u += 3) {
    // The user's best unrated item, and one input of theirs drawn at random.
    const std::vector<float> s = m.score_all_items({u});
    const auto& seen = m.seen_items()[static_cast<size_t>(u)];
    int64_t best = -1;
    for (int64_t j = 0; j < m.items(); ++j)
      if (!std::binary_search(seen.begin(), seen.end(), j) && (best < 0 || s[j] > s[best])) best = j;
    std::vector<infer::OccludedInput> inputs;
    for (size_t e = 0; e < parts.ds.train.size(); ++e)
      if (parts.ds.train.user[e] == u)
        inputs.push_back({infer::OccludedInput::Kind::rating, u, parts.ds.train.item[e]});
    for (size_t e = 0; e < parts.ds.users.graph.src.size(); ++e)
      if (parts.ds.users.graph.src[e] == u && parts.ds.users.graph.dst[e] != u)
        inputs.push_back({infer::OccludedInput::Kind::user_edge, u, parts.ds.users.graph.dst[e]});
    if (best < 0 || inputs.size() < 2) continue;
    ExplainOptions opt;
    opt.candidates = 6;
    opt.top = 1;
    const Explanation e = explain(m, u, best, opt);
    ASSERT_FALSE(e.exact);
    ASSERT_EQ(e.parts.size(), 1u);
    const infer::OccludedInput pick =
        inputs[std::uniform_int_distribution<size_t>(0, inputs.size() - 1)(gen)];
    const std::vector<double> r = infer::occluded_scores(parts, u, best, "list", {pick});
    EXPECT_NEAR(r[0], e.score, 1e-5);
    top_drop += e.parts[0].value;
    random_drop += r[0] - r[1];
    ++users;
  }
  ASSERT_GT(users, 5);
  EXPECT_GT(top_drop / users, random_drop / users);
}
