#include "models/elsa/elsa_model.h"

#include <ATen/ATen.h>
#include <torch/optim/adam.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "models/closed_form/interaction_rows.h"
#include "models/closed_form_predictions.h"
#include "models/elsa/elsa_dims.h"
#include "models/objectives/objective.h"
#include "models/ranking/ranking_probe.h"
#include "symgnn/error.h"
#include "util/strings.h"
#include "util/text.h"

namespace symgnn::models {

namespace {

/// The widths after the first are tried only while an epoch's scores stay below this many
/// multiply-adds (users x items x d): about a minute an epoch on one core.
constexpr double kMaxEpochWork = 34359738368.0;  // 2^35

}  // namespace

ElsaModel::ElsaModel(const ElsaConfig& cfg, const ModelContext& ctx, int64_t seed)
    : DampedBiasModel(ctx), cfg_(cfg), dims_(parse_elsa_dims(cfg.dims)), seed_(seed), item_graph_(ctx.at2) {
  const auto lopts = b1_.options().dtype(at::kLong);
  // Registered empty: the profiles' length and the width d follow from the fit (and from
  // the saved state, train/checkpoint.h).
  profile_ptr_ = register_buffer("profile_ptr", at::zeros({n1_ + 1}, lopts));
  profile_items_ = register_buffer("profile_items", at::zeros({0}, lopts));
  encoder_t_ = register_buffer("encoder_t", at::zeros({0, n2_}, b1_.options()));
}

void ElsaModel::set_profiles(const std::vector<const RatingList*>& ratings) {
  const InteractionRows by_user = distinct_rows(ratings, n1_, /*by_user=*/true);
  assign_buffer(profile_ptr_, torch::tensor(by_user.ptr, torch::kLong));
  assign_buffer(profile_items_, torch::tensor(by_user.index, torch::kLong));
}

at::Tensor ElsaModel::normalised(const at::Tensor& a) const {
  at::Tensor e = a;
  if (cfg_.graph_beta > 0 && !item_graph_.identity && item_graph_.nnz() > 0)
    e = (1 - cfg_.graph_beta) * a +
        cfg_.graph_beta *
            graph::spmm(item_graph_, a.to(item_graph_.values.scalar_type())).to(a.scalar_type());
  return e / e.norm(2, {1}, true).clamp_min(1e-12);
}

at::Tensor ElsaModel::scores_of(const at::Tensor& users, const at::Tensor& encoder, const at::Tensor& keep,
                                at::Tensor* row_out, at::Tensor* items_out) const {
  const at::Tensor u = users.to(profile_ptr_.device(), at::kLong);
  const at::Tensor start = profile_ptr_.index_select(0, u);
  auto [row, pos] = expand_rows(start, profile_ptr_.index_select(0, u + 1) - start);
  at::Tensor items = profile_items_.index_select(0, pos);
  if (row_out) *row_out = row;
  if (items_out) *items_out = items;
  if (keep.defined()) {
    row = row.masked_select(keep);
    items = items.masked_select(keep);
  }
  const int64_t b = u.size(0);
  // x_b A_hat as a gather and a sum per user: linear in the block's ratings.
  const at::Tensor p =
      at::zeros({b, encoder.size(1)}, encoder.options()).index_add(0, row, encoder.index_select(0, items));
  // Minus each input item's own score (diag(A_hat A_hat^T) = 1).
  return p.mm(encoder.t()).index_put({row, items}, -at::ones({row.size(0)}, encoder.options()), true);
}

at::Tensor ElsaModel::score_items(const at::Tensor& users, int64_t n2) {
  TORCH_CHECK(n2 == n2_, "ElsaModel: built for ", n2_, " items, asked for ", n2);
  at::NoGradGuard no_grad;
  if (encoder_t_.size(0) == 0) return at::zeros({users.size(0), n2_}, b1_.options());
  return scores_of(users, encoder_t_.t(), {}, nullptr, nullptr);
}

at::Tensor ElsaModel::node_representations(int side) {
  at::NoGradGuard no_grad;
  if (encoder_t_.size(0) == 0) return {};
  const at::Tensor encoder = encoder_t_.t();
  if (side == 1) return encoder;
  const at::Tensor all = at::arange(n1_, profile_ptr_.options());
  const at::Tensor start = profile_ptr_.index_select(0, all);
  const auto [row, pos] = expand_rows(start, profile_ptr_.index_select(0, all + 1) - start);
  return at::zeros({n1_, encoder.size(1)}, encoder.options())
      .index_add(0, row, encoder.index_select(0, profile_items_.index_select(0, pos)));
}

void ElsaModel::nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) {
  (void)trained_items;
  // The trained users' profiles as saved, then each new user's distinct rated items.
  add_user_rows(profile_ptr_, profile_items_, ctx, trained_users, n1_);
}

ElsaModel::Trained ElsaModel::train(const std::vector<const RatingList*>& ratings, int64_t d, int64_t epochs,
                                    const std::function<double()>& probe, const at::Device& device) {
  set_profiles(ratings);
  fit_biases(ratings);
  torch::manual_seed(static_cast<uint64_t>(seed_));
  std::mt19937_64 rng(static_cast<uint64_t>(seed_));
  const auto fopts = b1_.options().dtype(at::kFloat);
  at::Tensor a = (torch::randn({n2_, d}, fopts.device(at::kCPU)) / std::sqrt(static_cast<double>(d)))
                     .to(device)
                     .set_requires_grad(true);
  torch::optim::Adam opt({a}, torch::optim::AdamOptions(cfg_.lr));
  // The loss: ELSA's normalised MSE over each user's whole row, every rated item a positive.
  TrainConfig tc;
  tc.ranking_loss = "normalised_mse";
  tc.positive_min = -std::numeric_limits<double>::infinity();
  const Objective objective(tc);

  std::vector<int64_t> users;
  const at::Tensor counts = (profile_ptr_.slice(0, 1) - profile_ptr_.slice(0, 0, n1_)).to(at::kCPU);
  for (int64_t u = 0; u < n1_; ++u)
    if (counts.data_ptr<int64_t>()[u] > 0) users.push_back(u);

  Trained best;
  int64_t since = 0;
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    std::shuffle(users.begin(), users.end(), rng);
    for (size_t s = 0; s < users.size(); s += static_cast<size_t>(cfg_.batch_users)) {
      const size_t e = std::min(users.size(), s + static_cast<size_t>(cfg_.batch_users));
      const at::Tensor ub =
          torch::tensor(std::vector<int64_t>(users.begin() + static_cast<std::ptrdiff_t>(s),
                                             users.begin() + static_cast<std::ptrdiff_t>(e)),
                        torch::kLong)
              .to(device);
      at::Tensor row, items, keep;
      if (cfg_.dropout > 0) {
        const at::Tensor start = profile_ptr_.index_select(0, ub);
        const int64_t n = (profile_ptr_.index_select(0, ub + 1) - start).sum().item<int64_t>();
        keep = at::rand({n}, fopts) >= cfg_.dropout;
      }
      const at::Tensor s_b = scores_of(ub, normalised(a), keep, &row, &items);
      const at::Tensor loss =
          ranking_loss(ScoreView::matrix(s_b), row, items, at::ones({row.size(0)}, fopts), objective);
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    if (!probe || (epoch % cfg_.eval_every != 0 && epoch != epochs)) continue;
    {
      at::NoGradGuard no_grad;
      assign_buffer(encoder_t_, normalised(a).t());
    }
    const double ndcg = probe();
    best.curve.emplace_back(epoch, ndcg);
    if (ndcg > best.ndcg) {
      best.ndcg = ndcg;
      best.epoch = epoch;
      since = 0;
    } else if (++since >= cfg_.patience) {
      break;
    }
  }
  if (!probe) {
    at::NoGradGuard no_grad;
    assign_buffer(encoder_t_, normalised(a).t());
    best.epoch = epochs;
  }
  return best;
}

std::string ElsaModel::pin_chosen_setting(RunConfig& cfg, const nlohmann::json& figures,
                                          const std::string& dir) const {
  for (const char* name : {"elsa.d", "elsa.epochs"})
    if (!figures.contains(name) || !figures[name].is_number_integer())
      throw DataError(dir + "/metrics.json", 0,
                      std::string("no ") + name + ": the setting the fit chose is unknown");
  const std::string d = std::to_string(figures["elsa.d"].get<int64_t>());
  const std::string epochs = std::to_string(figures["elsa.epochs"].get<int64_t>());
  apply_override(cfg, "elsa.dims=" + d);
  apply_override(cfg, "elsa.epochs=" + epochs);
  return " at elsa.d = " + d + ", " + epochs + " epochs";
}

ClosedFormFit ElsaModel::fit(const Dataset& ds, const at::Device& device,
                             const std::function<void(const std::string&)>& log) {
  ClosedFormFit out;
  const auto t0 = std::chrono::steady_clock::now();
  auto predictions = [&](const RatingList& list) {
    return clipped_predictions(*this, list, ds.rating_min, ds.rating_max, device);
  };
  int64_t d = dims_.front(), epochs = cfg_.epochs;
  double ndcg = -1;
  nlohmann::json tried = nlohmann::json::array();
  if (!ds.validation.empty()) {
    const RankingProbe probe = validation_probe(ds, int64_t{1} << 22, device);
    if (!probe.empty()) {
      const auto measure = [&] {
        return probe.figure([&](const at::Tensor& b) { return score_items(b, n2_); }, "ndcg@10");
      };
      const double rows = static_cast<double>(ds.users.count) * static_cast<double>(n2_);
      for (const int64_t width : dims_) {
        if (width != dims_.front() && rows * static_cast<double>(width) > kMaxEpochWork) {
          // Each epoch scores every user against every item through d columns.
          const std::string why = "elsa d = " + std::to_string(width) + ": skipped, " +
                                  std::to_string(ds.users.count) + " users x " + std::to_string(n2_) +
                                  " items x d is above 2^35 multiply-adds an epoch";
          tried.push_back({{"elsa.d", width}, {"skipped", why}});
          if (log) log(why);
          continue;
        }
        const Trained t = train({&ds.train}, width, cfg_.epochs, measure, device);
        nlohmann::json curve = nlohmann::json::array();
        for (const auto& [e, v] : t.curve) curve.push_back({e, v});
        tried.push_back({{"elsa.d", width}, {"epochs", t.epoch}, {"val_ndcg@10", t.ndcg}, {"curve", curve}});
        if (log)
          log("elsa d = " + std::to_string(width) + ": validation NDCG@10 " + fixed(t.ndcg, 4) +
              " at epoch " + std::to_string(t.epoch));
        if (t.ndcg > ndcg) ndcg = t.ndcg, d = width, epochs = t.epoch;
      }
      out.metrics["val_ndcg@10"] = ndcg;
    }
    // Validation predictions from the biases of the training ratings.
    fit_biases({&ds.train});
    out.val_predictions = predictions(ds.validation);
  }
  train({&ds.train, &ds.validation}, d, epochs, {}, device);
  if (!ds.test.empty()) out.test_predictions = predictions(ds.test);
  out.details["elsa.d"] = d;
  out.details["elsa.epochs"] = epochs;
  out.details["candidates"] = tried;
  out.details["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.summary.push_back("elsa on " + ds.name + ": d = " + std::to_string(d) + ", " + std::to_string(epochs) +
                        " epochs" + (ndcg >= 0 ? " (validation NDCG@10 " + fixed(ndcg, 4) + ")" : "") +
                        ", refit on training + validation");
  return out;
}

/// The `elsa` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_elsa_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<ElsaModel>(cfg.elsa, ctx, cfg.train.seed);
}

}  // namespace symgnn::models
