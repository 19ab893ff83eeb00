#include "models/elsa/elsa_model.h"

#include <ATen/ATen.h>
#include <torch/optim/adam.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include "models/closed_form/interaction_rows.h"
#include "models/closed_form_predictions.h"
#include "models/elsa/elsa_dims.h"
#include "models/objectives/ranking_losses.h"
#include "models/ranking/ranking_probe.h"
#include "symgnn/error.h"
#include "util/strings.h"
#include "util/text.h"

namespace symgnn::models {

namespace {

/// The widths after the first are tried only while an epoch stays below this many
/// multiply-adds (the Gram matrix of each step and one validation measurement, below): about
/// a minute an epoch on one core.
constexpr double kMaxEpochWork = 34359738368.0;  // 2^35

/// A step's Gram matrix costs n2 x d^2 whatever its batch: on a wide catalogue the batch
/// grows past elsa.batch_users so that an epoch's steps stay below this many multiply-adds
/// (a 260 k-item catalogue at d = 128: 16 steps an epoch; ML-100K, Douban, Flixster and a
/// 16 k-item set at d = 128 keep elsa.batch_users).
constexpr double kMaxEpochGramWork = 68719476736.0;  // 2^36

}  // namespace

int64_t elsa_batch_users(int64_t users, int64_t items, int64_t d, int64_t batch_users) {
  const double gram = static_cast<double>(items) * static_cast<double>(d) * static_cast<double>(d);
  const double steps = std::max(1.0, std::floor(kMaxEpochGramWork / gram));
  return std::max(batch_users, static_cast<int64_t>(std::ceil(static_cast<double>(users) / steps)));
}

namespace {

/// An epoch's multiply-adds at width d: each step's Gram matrix A_hat^T A_hat (n2 x d^2,
/// its backward alike) and one validation measurement scoring every user against every item.
double epoch_work(int64_t users, int64_t items, int64_t batch_users, int64_t d) {
  const double batch = static_cast<double>(elsa_batch_users(users, items, d, batch_users));
  const double steps = std::ceil(static_cast<double>(users) / batch);
  return static_cast<double>(items) * static_cast<double>(d) *
         (2 * steps * static_cast<double>(d) + static_cast<double>(users));
}

/// x_b A_hat for `count` users: the sum of `encoder`'s rows at each user's entries (`row`
/// the user's position among them, `items` the item), linear in the entries.
at::Tensor row_sums(int64_t count, const at::Tensor& row, const at::Tensor& items,
                    const at::Tensor& encoder) {
  return at::zeros({count, encoder.size(1)}, encoder.options())
      .index_add(0, row, encoder.index_select(0, items));
}

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

std::pair<at::Tensor, at::Tensor> ElsaModel::entries_of(const at::Tensor& users) const {
  const at::Tensor start = profile_ptr_.index_select(0, users);
  const auto [row, pos] = expand_rows(start, profile_ptr_.index_select(0, users + 1) - start);
  return {row, profile_items_.index_select(0, pos)};
}

at::Tensor ElsaModel::scores_of(const at::Tensor& users, const at::Tensor& encoder) const {
  const at::Tensor u = users.to(profile_ptr_.device(), at::kLong);
  const auto [row, items] = entries_of(u);
  // Minus each input item's own score (diag(A_hat A_hat^T) = 1).
  return row_sums(u.size(0), row, items, encoder)
      .mm(encoder.t())
      .index_put({row, items}, -at::ones({row.size(0)}, encoder.options()), true);
}

at::Tensor ElsaModel::score_items(const at::Tensor& users, int64_t n2) {
  TORCH_CHECK(n2 == n2_, "ElsaModel: built for ", n2_, " items, asked for ", n2);
  at::NoGradGuard no_grad;
  if (encoder_t_.size(0) == 0) return at::zeros({users.size(0), n2_}, b1_.options());
  return scores_of(users, encoder_t_.t());
}

at::Tensor ElsaModel::node_representations(int side) {
  at::NoGradGuard no_grad;
  if (encoder_t_.size(0) == 0) return {};
  const at::Tensor encoder = encoder_t_.t();
  if (side == 1) return encoder;
  const auto [row, items] = entries_of(at::arange(n1_, profile_ptr_.options()));
  return row_sums(n1_, row, items, encoder);
}

void ElsaModel::nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) {
  (void)trained_items;
  // The trained users' profiles as saved, then each new user's distinct rated items.
  add_user_rows(profile_ptr_, profile_items_, ctx, trained_users, n1_);
}

ElsaModel::Trained ElsaModel::train(const std::vector<const RatingList*>& ratings, int64_t d, int64_t epochs,
                                    const std::function<double(int64_t)>& probe, const at::Device& device) {
  set_profiles(ratings);
  fit_biases(ratings);
  torch::manual_seed(static_cast<uint64_t>(seed_));
  std::mt19937_64 rng(static_cast<uint64_t>(seed_));
  const auto fopts = b1_.options().dtype(at::kFloat);
  at::Tensor a = (torch::randn({n2_, d}, fopts.device(at::kCPU)) / std::sqrt(static_cast<double>(d)))
                     .to(device)
                     .set_requires_grad(true);
  torch::optim::Adam opt({a}, torch::optim::AdamOptions(cfg_.lr));

  std::vector<int64_t> users;
  const at::Tensor counts = (profile_ptr_.slice(0, 1) - profile_ptr_.slice(0, 0, n1_)).to(at::kCPU);
  for (int64_t u = 0; u < n1_; ++u)
    if (counts.data_ptr<int64_t>()[u] > 0) users.push_back(u);

  const auto batch =
      static_cast<size_t>(elsa_batch_users(static_cast<int64_t>(users.size()), n2_, d, cfg_.batch_users));
  Trained best;
  int64_t since = 0;
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    std::shuffle(users.begin(), users.end(), rng);
    for (size_t s = 0; s < users.size(); s += batch) {
      const size_t e = std::min(users.size(), s + batch);
      const at::Tensor ub =
          torch::tensor(std::vector<int64_t>(users.begin() + static_cast<std::ptrdiff_t>(s),
                                             users.begin() + static_cast<std::ptrdiff_t>(e)),
                        torch::kLong)
              .to(device);
      const int64_t b = ub.size(0);
      const auto [row, items] = entries_of(ub);
      const at::Tensor ones = at::ones({row.size(0)}, fopts.device(device));
      at::Tensor kept_row = row, kept_items = items;
      if (cfg_.dropout > 0) {
        const at::Tensor keep = at::rand({row.size(0)}, fopts) >= cfg_.dropout;
        kept_row = row.masked_select(keep.to(device));
        kept_items = items.masked_select(keep.to(device));
      }
      // The normalised MSE of S = X' E E^T - X' (the objectives' row normalised_mse), from
      // the users' sums of item rows and E's Gram matrix: no users x items scores are formed.
      const at::Tensor encoder = normalised(a);
      const at::Tensor loss = normalised_mse_autoencoder_loss(
          row_sums(b, kept_row, kept_items, encoder), row_sums(b, row, items, encoder),
          encoder.t().mm(encoder),
          at::zeros({b}, ones.options()).index_add(0, kept_row, ones.narrow(0, 0, kept_row.size(0))),
          at::zeros({b}, ones.options()).index_add(0, row, ones));
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    if (!probe || (epoch % cfg_.eval_every != 0 && epoch != epochs)) continue;
    {
      at::NoGradGuard no_grad;
      assign_buffer(encoder_t_, normalised(a).t());
    }
    const double ndcg = probe(epoch);
    best.curve.emplace_back(epoch, ndcg);
    // A gain below elsa.min_gain is noise, and would keep a flat curve running to elsa.epochs.
    if (best.ndcg < 0 || ndcg > best.ndcg + cfg_.min_gain) {
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
      int64_t width_now = 0;
      const auto measure = [&](int64_t epoch) {
        const double v = probe.figure([&](const at::Tensor& b) { return score_items(b, n2_); }, "ndcg@10");
        if (log)
          log("elsa d = " + std::to_string(width_now) + ", epoch " + std::to_string(epoch) +
              ": validation NDCG@10 " + fixed(v, 4) + " (" +
              fixed(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0) + " s)");
        return v;
      };
      for (const int64_t width : dims_) {
        if (width != dims_.front() &&
            epoch_work(ds.users.count, n2_, cfg_.batch_users, width) > kMaxEpochWork) {
          const std::string why = "elsa d = " + std::to_string(width) + ": skipped, " +
                                  std::to_string(ds.users.count) + " users x " + std::to_string(n2_) +
                                  " items: an epoch at this width is above 2^35 multiply-adds";
          tried.push_back({{"elsa.d", width}, {"skipped", why}});
          if (log) log(why);
          continue;
        }
        width_now = width;
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
  if (log)
    log("elsa: d = " + std::to_string(d) + ", " + std::to_string(epochs) +
        " epochs on training + validation");
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
