// The popularity baseline: counts and means of the items' training ratings.
#include "models/popularity/popularity_model.h"

#include <torch/types.h>
#include <torch/utils.h>

#include "models/closed_form_predictions.h"
#include "models/ranking/ranking_probe.h"
#include "util/text.h"

namespace symgnn::models {

PopularityModel::PopularityModel(const ModelContext& ctx) {
  const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(ctx.train_values.device());
  counts_ = register_buffer("counts", torch::zeros({ctx.n2}, opts));
  mu_ = register_buffer("global_mean", torch::full({}, ctx.global_mean, opts));
  item_mean_ = register_buffer("item_mean", torch::full({ctx.n2}, ctx.global_mean, opts));
}

at::Tensor PopularityModel::forward(const at::Tensor& /*users*/, const at::Tensor& items) {
  return item_mean_.index_select(0, items);
}

at::Tensor PopularityModel::score_items(const at::Tensor& users, int64_t n2) {
  TORCH_CHECK(n2 == counts_.size(0), "PopularityModel: built for ", counts_.size(0), " items, asked for ",
              n2);
  return counts_.unsqueeze(0).expand({users.numel(), n2});  // [B, n2], the same row for every user
}

ScoreFactors PopularityModel::score_factors() {
  ScoreFactors f;
  f.items = at::zeros({counts_.size(0), 0}, at::kFloat);
  f.item_bias = counts_.detach().to(at::kCPU, at::kFloat).clone();
  f.meaning =
      "popularity: score = the item's count of training + validation ratings, the same for every user";
  return f;
}

ScoreTerms PopularityModel::score_terms(int64_t user, int64_t item, const Dataset& ds) {
  (void)user;
  ScoreTerms out;
  out.method = "popularity: score = the number of ratings of the item (training and validation)";
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e)
      if (list->item[e] == item)
        out.terms.push_back({list->user[e], item, ds.feedback == "counts" ? list->value[e] : 1.0, ""});
  out.score = counts_[item].item<double>();
  return out;
}

void PopularityModel::count(const std::vector<const RatingList*>& ratings, bool weighted) {
  const int64_t n2 = counts_.size(0);
  std::vector<float> count(static_cast<size_t>(n2), 0.0f);
  std::vector<double> sum(static_cast<size_t>(n2), 0.0);
  for (const RatingList* r : ratings)
    for (size_t e = 0; e < r->size(); ++e) {
      count[static_cast<size_t>(r->item[e])] += weighted ? r->value[e] : 1.0f;
      sum[static_cast<size_t>(r->item[e])] += r->value[e];
    }
  const float mu = mu_.item<float>();
  std::vector<float> mean(static_cast<size_t>(n2));
  for (size_t j = 0; j < mean.size(); ++j)
    mean[j] = count[j] > 0 ? static_cast<float>(sum[j] / count[j]) : mu;
  torch::NoGradGuard no_grad;
  counts_.copy_(torch::tensor(count));
  item_mean_.copy_(torch::tensor(mean));
}

ClosedFormFit PopularityModel::fit(const Dataset& ds, const at::Device&,
                                   const std::function<void(const std::string&)>&) {
  ClosedFormFit out;
  auto predictions = [&](const RatingList& list) {
    return clipped_predictions(*this, list, ds.rating_min, ds.rating_max, item_mean_.device());
  };
  count({&ds.train}, ds.feedback == "counts");
  if (!ds.validation.empty()) {
    out.val_predictions = predictions(ds.validation);
    // Its validation ranking, as the other ranking kinds report theirs: what train.ranker =
    // auto weighs it by (fit/ranker.h).
    const RankingProbe probe = validation_probe(ds, int64_t{1} << 22, counts_.device());
    if (!probe.empty())
      out.metrics[ranking_figure("val")] = probe.figure(
          [&](const at::Tensor& b) { return score_items(b, counts_.size(0)); }, ranking_figure());
  }
  count({&ds.train, &ds.validation}, ds.feedback == "counts");
  if (!ds.test.empty()) out.test_predictions = predictions(ds.test);
  const int64_t rated = (counts_ > 0).sum().item<int64_t>();
  out.details["items_rated"] = rated;
  out.summary = {"popularity on " + ds.name + ": " + std::to_string(rated) + " of " +
                 std::to_string(counts_.size(0)) + " items rated in training + validation"};
  return out;
}

void PopularityModel::nodes_added(const ModelContext&, int64_t, int64_t trained_items) {
  torch::NoGradGuard no_grad;
  const int64_t n2 = item_mean_.size(0);
  if (n2 > trained_items) item_mean_.narrow(0, trained_items, n2 - trained_items).fill_(mu_);
}

/// The `popularity` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_popularity_model(const RunConfig&, const ModelContext& ctx) {
  return std::make_shared<PopularityModel>(ctx);
}

}  // namespace symgnn::models
