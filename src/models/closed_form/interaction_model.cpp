#include "models/closed_form/interaction_model.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <chrono>
#include <cmath>
#include <map>

#include "models/closed_form/interaction_rows.h"
#include "models/closed_form_predictions.h"
#include "models/ranking/ranking_probe.h"
#include "models/sylvester/completion.h"
#include "symgnn/error.h"
#include "util/text.h"

namespace symgnn::models {

namespace {

/// The dense interaction matrix of `ratings` (float64, n1 x n2, on `device`): 1 where the
/// user rated the item, or where `weighted` (data.feedback = counts, data/feedback.h) the
/// interaction's weight log(1 + count).
at::Tensor interactions(int64_t n1, int64_t n2, const std::vector<const RatingList*>& ratings,
                        const at::Device& device, bool weighted) {
  std::vector<int64_t> flat;
  std::vector<double> weight;
  for (const RatingList* r : ratings)
    for (size_t e = 0; e < r->size(); ++e) {
      flat.push_back(r->user[e] * n2 + r->item[e]);
      if (weighted) weight.push_back(r->value[e]);
    }
  at::Tensor x = torch::zeros({n1 * n2}, torch::TensorOptions().dtype(torch::kDouble).device(device));
  if (flat.empty()) return x.view({n1, n2});
  const at::Tensor at = torch::tensor(flat, torch::kLong).to(device);
  if (weighted)
    x.index_put_({at}, torch::tensor(weight, torch::kDouble).to(device));
  else
    x.index_fill_(0, at, 1.0);
  return x.view({n1, n2});
}

/// A setting as written in a config: integers without decimals (100, 500), others with 4.
std::string setting_text(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? std::to_string(static_cast<long long>(v)) : fixed(v, 4);
}

}  // namespace

InteractionModel::InteractionModel(const ModelContext& ctx) : DampedBiasModel(ctx) {
  const at::Device device = b1_.device();
  sylvester::check_dense_fits(std::max(n1_, n2_), n2_, device);
  scores_ = register_buffer("scores", torch::zeros({n1_, n2_}, b1_.options()));
  item_weights_ = register_buffer("item_weights", torch::zeros({0, n2_}, b1_.options()));
  setting_ = register_buffer("setting", torch::zeros({0}, b1_.options().dtype(torch::kDouble)));
  counts_ = register_buffer("counts", torch::zeros({0}, b1_.options()));
}

double InteractionModel::fitted_setting() const {
  if (setting_.size(0) != 1)
    throw ConfigError(name() +
                      ": this model directory was written before the kind kept the setting of its fit (" +
                      setting_name() + "); fit it again");
  return setting_.to(at::kCPU).data_ptr<double>()[0];
}

at::Tensor InteractionModel::score_items(const at::Tensor& users, int64_t n2) {
  TORCH_CHECK(n2 == n2_, "InteractionModel: built for ", n2_, " items, asked for ", n2);
  return scores_.index_select(0, users);
}

at::Tensor InteractionModel::item_weights(const at::Tensor&, double) const {
  TORCH_CHECK(false, name(), ": no item-item matrix (the kind overrides interaction_scores)");
}

at::Tensor InteractionModel::interaction_scores(const at::Tensor& x, double setting) const {
  return torch::mm(x, item_weights(x, setting));
}

void InteractionModel::prepare(const Dataset&, const at::Device&) {}

void InteractionModel::fit_on(const std::vector<const RatingList*>& ratings, double setting,
                              bool keep_weights) {
  torch::NoGradGuard no_grad;
  const at::Device device = scores_.device();
  const at::Tensor x = interactions(n1_, n2_, ratings, device, reads_counts());
  if (keeps_item_weights() && keep_weights) {
    const at::Tensor w = item_weights(x, setting);
    scores_.copy_(torch::mm(x, w));
    assign_buffer(item_weights_, w);
  } else {
    scores_.copy_(interaction_scores(x, setting));
  }
  fit_biases(ratings);
  assign_buffer(setting_, torch::full({1}, setting, setting_.options()));
}

ScoreFactors InteractionModel::score_factors() {
  if (item_weights_.size(0) == 0 || item_weights_.size(0) != n2_) return {};
  ScoreFactors f;
  f.users_are_interactions = true;
  f.items = item_weights_.detach().t().to(at::kCPU, at::kFloat).contiguous();
  f.meaning = name() + ": score = x_u W, x_u the user's binary row of rated items; items[j] = column j of W";
  return f;
}

at::Tensor InteractionModel::score_rated_items(const std::vector<std::vector<int64_t>>& rated) {
  if (item_weights_.size(0) != n2_) return {};
  torch::NoGradGuard no_grad;
  // x W as the sum of W's rows at the rated items, in double as the fit scores X W.
  if (item_weights_.device().is_cpu() && item_weights_.scalar_type() == torch::kFloat) {
    // Added in place, row by row: a user of a thousand items would otherwise gather, and
    // convert to double, a thousand rows of W first (a served refresh's slowest part).
    const at::Tensor w = item_weights_.contiguous();
    at::Tensor out =
        torch::zeros({static_cast<int64_t>(rated.size()), n2_}, w.options().dtype(torch::kDouble));
    const float* wp = w.data_ptr<float>();
    for (size_t b = 0; b < rated.size(); ++b) {
      double* o = out.data_ptr<double>() + static_cast<int64_t>(b) * n2_;
      for (const int64_t i : rated[b]) {
        const float* r = wp + i * n2_;
        for (int64_t j = 0; j < n2_; ++j) o[j] += r[j];
      }
    }
    return out.to(scores_.scalar_type());
  }
  const auto [row, items] = entries_of_lists(rated, item_weights_.device());
  return torch::zeros({static_cast<int64_t>(rated.size()), n2_},
                      item_weights_.options().dtype(torch::kDouble))
      .index_add_(0, row, item_weights_.index_select(0, items).to(torch::kDouble))
      .to(scores_.scalar_type());
}

ScoreTerms InteractionModel::score_terms(int64_t user, int64_t item, const Dataset& ds) {
  if (item_weights_.size(0) != n2_)
    throw ConfigError(name() + ": this model directory was written before the kind kept its item weights, " +
                      "so its scores cannot be split by rated item; fit it again");
  at::NoGradGuard no_grad;
  const at::Tensor column = item_weights_.select(1, item).to(at::kCPU, at::kDouble).contiguous();
  ScoreTerms out;
  out.method = name() + ": score = x_u W = the sum of W_ij over the items i you rated";
  for (const auto& [i, value] : rated_by(ds, user)) {
    (void)value;
    out.terms.push_back({user, i, column.data_ptr<double>()[i], ""});
  }
  out.score = scores_[user][item].item<double>();
  return out;
}

void InteractionModel::nodes_added(const ModelContext& ctx, int64_t, int64_t) {
  // Scores are linear in X (X W) and a rating given after the fit is of a pair the fit did
  // not see (infer/new_ratings.h refuses the others): each user's row gains x_added W, for
  // new users and for users the fit knew alike. An added item's row of W is zero (the fit of an
  // item nobody rated), so that W stays square and a user is scored from any items they rate.
  if (item_weights_.size(0) > 0 && item_weights_.size(0) < n2_) {
    torch::NoGradGuard no_grad;
    at::Tensor square = torch::zeros({n2_, n2_}, item_weights_.options());
    square.narrow(0, 0, item_weights_.size(0)).copy_(item_weights_);
    item_weights_.set_(square);
  }
  const at::Tensor u = ctx.train_users.to(at::kCPU, at::kLong).contiguous(),
                   i = ctx.train_items.to(at::kCPU, at::kLong).contiguous();
  if (ctx.added_from < 0 || ctx.added_from >= u.size(0)) return;
  // Under counts an added interaction weighs its log(1 + count), as the fit's X did.
  const bool weighted = reads_counts();
  const at::Tensor v = weighted ? ctx.train_values.to(at::kCPU, at::kDouble).contiguous() : at::Tensor();
  if (item_weights_.size(0) == 0)
    throw ConfigError(name() + ": this model directory was written before the kind kept its item weights, " +
                      "so it cannot score ratings given after its fit; fit it again");
  torch::NoGradGuard no_grad;
  const int64_t known = item_weights_.size(0);
  std::map<int64_t, int64_t> row_of;  // user -> row of the added X
  std::vector<int64_t> flat;
  std::vector<double> value;
  for (int64_t e = ctx.added_from; e < u.size(0); ++e) {
    const int64_t user = u.data_ptr<int64_t>()[e], item = i.data_ptr<int64_t>()[e];
    const int64_t row = row_of.emplace(user, static_cast<int64_t>(row_of.size())).first->second;
    if (item < known)
      flat.push_back(row * known + item), value.push_back(weighted ? v.data_ptr<double>()[e] : 1.0);
  }
  const int64_t rows = static_cast<int64_t>(row_of.size());
  const auto dopts = torch::TensorOptions().dtype(torch::kDouble).device(item_weights_.device());
  at::Tensor x = torch::zeros({rows * known}, dopts);
  if (!flat.empty())
    x.index_put_({torch::tensor(flat, torch::kLong).to(x.device())},
                 torch::tensor(value, torch::kDouble).to(x.device()));
  std::vector<int64_t> users(static_cast<size_t>(rows));
  for (const auto& [user, row] : row_of) users[static_cast<size_t>(row)] = user;
  const at::Tensor gained = torch::mm(x.view({rows, known}), item_weights_.to(torch::kDouble));
  scores_.index_add_(0, torch::tensor(users, torch::kLong).to(scores_.device()),
                     gained.to(scores_.scalar_type()));
}

std::string InteractionModel::pin_chosen_setting(RunConfig& cfg, const nlohmann::json& figures,
                                                 const std::string& dir) const {
  const std::string name = setting_name();
  if (!figures.contains(name) || !figures[name].is_number())
    throw DataError(dir + "/metrics.json", 0, "no " + name + ": the setting the fit chose is unknown");
  const std::string value = fixed(figures[name].get<double>(), 6);
  apply_override(cfg, settings_key() + "=" + value);
  return " at " + name + " = " + value;
}

ClosedFormFit InteractionModel::fit(const Dataset& ds, const at::Device& device,
                                    const std::function<void(const std::string&)>& log) {
  ClosedFormFit out;
  const auto t0 = std::chrono::steady_clock::now();
  // Saved, so that users added to a loaded directory are read as the fit read its users.
  assign_buffer(counts_, ds.feedback == "counts" ? torch::ones({1}) : torch::zeros({0}));
  prepare(ds, device);
  const std::vector<double> candidates = settings();
  double best = candidates.front(), best_ndcg = -1;
  auto predictions = [&](const RatingList& list) {
    return clipped_predictions(*this, list, ds.rating_min, ds.rating_max, device);
  };
  if (!ds.validation.empty()) {
    const RankingProbe probe = validation_probe(ds, int64_t{1} << 22, device);
    nlohmann::json tried = nlohmann::json::array();
    for (const double setting : candidates) {
      fit_on({&ds.train}, setting, false);  // scored on validation only: W is not kept
      const double ndcg = probe.empty()
                              ? 0.0
                              : probe.figure([&](const at::Tensor& b) { return scores_.index_select(0, b); },
                                             ranking_figure());
      tried.push_back({{"setting", setting}, {ranking_figure("val"), ndcg}});
      if (log)
        log(setting_name() + " = " + setting_text(setting) + ": validation " + ranking_label() + " " +
            fixed(ndcg, 4));
      if (ndcg > best_ndcg) best = setting, best_ndcg = ndcg;
    }
    out.val_predictions = predictions(ds.validation);  // the biases of the training ratings
    if (!probe.empty()) out.metrics[ranking_figure("val")] = best_ndcg;
    out.details["tried"] = tried;
  }
  fit_on({&ds.train, &ds.validation}, best, true);
  if (!ds.test.empty()) out.test_predictions = predictions(ds.test);
  out.details[setting_name()] = best;
  out.details["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.summary.push_back(
      name() + " on " + ds.name + ": " + setting_name() + " = " + setting_text(best) +
      (best_ndcg >= 0 ? " (validation " + ranking_label() + " " + fixed(best_ndcg, 4) + ")" : "") +
      ", refit on training + validation");
  return out;
}

}  // namespace symgnn::models
