// `symgnn export` (symgnn/export.h): for every kind whose ranking scores are a product of
// factors, the exported factors give the model's own scores of every unrated item (brute
// force over all users and items); the other kinds say so and export representations; the
// files are there with NumPy's header. Python reads the arrays back in
// python/tests/test_export.py.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "infer_test_util.h"
#include "symgnn/export.h"
#include "symgnn/fit.h"

using namespace symgnn;
namespace fs = std::filesystem;

namespace {

/// Fits `sets` on a 40 x 25 two-taste CSV; the model directory.
std::string fit_for_export(const std::string& name, const std::vector<std::string>& sets) {
  return symgnn::testing::fit_csv("infer_export_" + name, symgnn::testing::two_taste_csv(40, 25, 0.4, 9),
                                  sets);
}

/// The largest |factor score - model score| over every user's unrated items, relative to
/// 1 + |model score|.
double largest_factor_error(const TrainedModel& m, const ModelFactors& f) {
  const int64_t n1 = m.users(), n2 = m.items();
  std::vector<int64_t> all(static_cast<size_t>(n1));
  for (int64_t u = 0; u < n1; ++u) all[static_cast<size_t>(u)] = u;
  const std::vector<float> scores = m.score_all_items(all);
  double worst = 0;
  for (int64_t u = 0; u < n1; ++u) {
    const auto& seen = m.seen_items()[static_cast<size_t>(u)];
    for (int64_t j = 0; j < n2; ++j) {
      if (std::binary_search(seen.begin(), seen.end(), j)) continue;
      double s = f.offset;
      if (!f.user_bias.empty()) s += f.user_bias[static_cast<size_t>(u)];
      if (!f.item_bias.empty()) s += f.item_bias[static_cast<size_t>(j)];
      if (f.users_are_interactions) {
        for (const int64_t i : seen) s += f.item_factors[static_cast<size_t>(j * f.dim + i)];
      } else {
        for (int64_t k = 0; k < f.dim; ++k)
          s += double(f.user_factors[static_cast<size_t>(u * f.dim + k)]) *
               f.item_factors[static_cast<size_t>(j * f.dim + k)];
      }
      const double want = scores[static_cast<size_t>(u * n2 + j)];
      worst = std::max(worst, std::abs(s - want) / (1 + std::abs(want)));
    }
  }
  return worst;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(Export, FactorsGiveTheModelsScoresOfEveryUnratedItem) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> kinds = {
      {"ease", {"model=ease"}},
      {"elsa", {"model=elsa", "elsa.dims=8", "elsa.epochs=4", "elsa.deep_hidden=0"}},
      {"elsa_deep", {"model=elsa", "elsa.dims=8", "elsa.epochs=4", "elsa.deep_hidden=8"}},
      {"itemknn", {"model=itemknn"}},
      {"popularity", {"model=popularity"}},
      {"baseline", {"model=baseline"}},
      {"lowrank_ranking", {"model=lowrank", "train.objective=ranking", "train.epochs=3", "lowrank.hidden=8"}},
      // The default: a rating model with a ranker beside it; the lists are the ranker's.
      {"default", {"train.epochs=3", "lowrank.hidden=8"}},
  };
  for (const auto& [name, sets] : kinds) {
    SCOPED_TRACE(name);
    const TrainedModel m = TrainedModel::load(fit_for_export(name, sets));
    const ModelFactors f = score_factors(m);
    ASSERT_TRUE(f.factored) << m.name();
    EXPECT_FALSE(f.meaning.empty());
    EXPECT_LT(largest_factor_error(m, f), 1e-4) << f.meaning;
    // The files, each .npy with NumPy's magic and a header that names its shape.
    const std::string out = symgnn::testing::scratch_dir("infer_export_files_" + name);
    const ExportSummary s = export_model(m, out);
    EXPECT_TRUE(s.factored);
    const nlohmann::json record = nlohmann::json::parse(read_all(out + "/export.json"));
    EXPECT_EQ(record.at("users").get<int64_t>(), m.users());
    EXPECT_TRUE(record.at("factored").get<bool>());
    const std::string factors = f.users_are_interactions ? "item_weights.npy" : "item_factors.npy";
    const std::string npy = read_all(out + "/" + factors);
    ASSERT_GT(npy.size(), 64u);
    EXPECT_EQ(npy.substr(0, 6), "\x93NUMPY");
    const std::string shape = "'shape': (" + std::to_string(m.items()) + ", " +
                              std::to_string(f.users_are_interactions ? m.items() : f.dim) + ")";
    EXPECT_NE(npy.find(shape), std::string::npos) << npy.substr(0, 128);
    EXPECT_EQ((npy.find('\n') + 1) % 64, 0u);  // the data starts 64-byte aligned
    EXPECT_EQ(npy.size() - (npy.find('\n') + 1),
              static_cast<size_t>(m.items() * (f.users_are_interactions ? m.items() : f.dim) * 4));
    EXPECT_TRUE(fs::exists(out + "/seen_indptr.npy") && fs::exists(out + "/users.txt"));
    EXPECT_NE(read_all(out + "/scoring.txt").find("Scores:"), std::string::npos);
  }
}

TEST(Export, AKindWhoseScoresAreNoProductSaysSoAndExportsRepresentations) {
  // The faithful low-rank model: a rating decoder, no ranker beside it.
  const TrainedModel m = TrainedModel::load(fit_for_export(
      "lowrank_rating",
      {"model=lowrank", "train.epochs=3", "lowrank.hidden=8", "train.ranker=none", "train.auto=off"}));
  EXPECT_FALSE(score_factors(m).factored);
  const std::string out = symgnn::testing::scratch_dir("infer_export_files_lowrank_rating");
  const ExportSummary s = export_model(m, out);
  EXPECT_FALSE(s.factored);
  EXPECT_TRUE(fs::exists(out + "/user_representations.npy"));
  EXPECT_TRUE(fs::exists(out + "/item_representations.npy"));
  EXPECT_FALSE(fs::exists(out + "/item_factors.npy"));
  EXPECT_NE(read_all(out + "/scoring.txt").find("no product of factors"), std::string::npos);
  // Into the folder of an older export (EASE's weights): its files do not stay beside the new
  // export.json; a file of the user's own does.
  const std::string into = symgnn::testing::scratch_dir("infer_export_into_older");
  export_model(TrainedModel::load(fit_for_export("ease_older", {"model=ease"})), into);
  ASSERT_TRUE(fs::exists(into + "/item_weights.npy"));
  symgnn::testing::write_file(into, "notes.txt", "mine\n");
  export_model(m, into);
  EXPECT_FALSE(fs::exists(into + "/item_weights.npy"));
  EXPECT_FALSE(fs::exists(into + "/user_bias.npy"));
  EXPECT_TRUE(fs::exists(into + "/item_representations.npy"));
  EXPECT_TRUE(fs::exists(into + "/notes.txt"));
}
