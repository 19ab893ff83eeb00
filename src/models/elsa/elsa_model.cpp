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
#include "models/kernels/gram.h"
#include "models/kernels/graph_step.h"
#include "models/kernels/unit_rows.h"
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
/// the user's position among them, `items` the item), each scaled by its `weight` where that
/// is defined (data.feedback = counts), linear in the entries.
at::Tensor row_sums(int64_t count, const at::Tensor& row, const at::Tensor& items, const at::Tensor& encoder,
                    const at::Tensor& weight) {
  const at::Tensor rows = encoder.index_select(0, items);
  return at::zeros({count, encoder.size(1)}, encoder.options())
      .index_add(0, row, weight.defined() ? rows * weight.to(rows.scalar_type()).unsqueeze(1) : rows);
}

/// |x_u|^2 of `count` users from their entries: the number of rated items, or the sum of the
/// squared weights where `weight` is defined.
at::Tensor squared_norms(int64_t count, const at::Tensor& row, const at::Tensor& weight,
                         const at::TensorOptions& opts) {
  return at::zeros({count}, opts)
      .index_add(0, row, weight.defined() ? weight.to(opts.dtype()).pow(2) : at::ones({row.size(0)}, opts));
}

/// A training's measured epochs as [[epoch, NDCG@10], ...] for metrics.json's candidates.
nlohmann::json elsa_curve_json(const ElsaModel::Trained& t) {
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& [e, v] : t.curve) curve.push_back({e, v});
  return curve;
}

}  // namespace

ElsaModel::ElsaModel(const ElsaConfig& cfg, const ModelContext& ctx, int64_t seed)
    : DampedBiasModel(ctx),
      cfg_(cfg),
      dims_(parse_elsa_dims(cfg.dims)),
      deep_(parse_elsa_deep_hidden(cfg.deep_hidden)),
      seed_(seed),
      item_graph_(ctx.at2) {
  const auto lopts = b1_.options().dtype(at::kLong);
  // Registered empty: the profiles' length and the width d follow from the fit (and from
  // the saved state, train/checkpoint.h).
  profile_ptr_ = register_buffer("profile_ptr", at::zeros({n1_ + 1}, lopts));
  profile_items_ = register_buffer("profile_items", at::zeros({0}, lopts));
  // No rows: binary interactions (and every directory written before counts were read).
  profile_weights_ = register_buffer("profile_weights", at::zeros({0}, b1_.options().dtype(at::kFloat)));
  encoder_t_ = register_buffer("encoder_t", at::zeros({0, n2_}, b1_.options()));
  deep_w_ = register_buffer("deep_w", at::zeros({0}, b1_.options()));
  deep_b_ = register_buffer("deep_b", at::zeros({0}, b1_.options()));
  deep_items_t_ = register_buffer("deep_items_t", at::zeros({0, n2_}, b1_.options()));
}

at::Tensor ElsaModel::deep_hidden(const at::Tensor& row_sums, const at::Tensor& count, const at::Tensor& w,
                                  const at::Tensor& b) {
  // Scaled by 1/sqrt(count): a user's sum grows with their items, and dropout shrinks it in
  // training only; the layer sees the same scale either way.
  const at::Tensor scale = count.clamp_min(1).rsqrt().unsqueeze(1);
  return at::relu((row_sums * scale).mm(w) + b);
}

at::Tensor ElsaModel::saved_hidden(const at::Tensor& z, const at::Tensor& count) const {
  return deep_hidden(z, count, deep_w_.view({z.size(1), deep_b_.size(0)}), deep_b_);
}

void ElsaModel::keep(const at::Tensor& encoder, const at::Tensor& w, const at::Tensor& b,
                     const at::Tensor& d) {
  at::NoGradGuard no_grad;
  assign_buffer(encoder_t_, encoder.detach().t().contiguous());
  const bool deep = w.defined();
  assign_buffer(deep_w_, deep ? w.detach().reshape({-1}).contiguous() : at::zeros({0}, encoder.options()));
  assign_buffer(deep_b_, deep ? b.detach().contiguous() : at::zeros({0}, encoder.options()));
  assign_buffer(deep_items_t_, deep ? d.detach().t().contiguous() : at::zeros({0, n2_}, encoder.options()));
}

void ElsaModel::set_profiles(const std::vector<const RatingList*>& ratings, bool weighted) {
  const InteractionRows by_user = distinct_rows(ratings, n1_, /*by_user=*/true, weighted);
  assign_buffer(profile_ptr_, torch::tensor(by_user.ptr, torch::kLong));
  assign_buffer(profile_items_, torch::tensor(by_user.index, torch::kLong));
  assign_buffer(profile_weights_,
                weighted ? torch::tensor(by_user.weight, torch::kFloat) : torch::zeros({0}, torch::kFloat));
}

at::Tensor ElsaModel::normalised(const at::Tensor& a) const {
  if (cfg_.graph_beta <= 0 || item_graph_.identity || item_graph_.nnz() == 0) return unit_rows(a);
  const auto graph_type = item_graph_.values.scalar_type();
  return unit_rows(graph_step(item_graph_, a.to(graph_type), cfg_.graph_beta).to(a.scalar_type()));
}

ElsaModel::Entries ElsaModel::entries_of(const at::Tensor& users) const {
  const at::Tensor start = profile_ptr_.index_select(0, users);
  const auto [row, pos] = expand_rows(start, profile_ptr_.index_select(0, users + 1) - start);
  return {row, profile_items_.index_select(0, pos),
          profile_weights_.numel() > 0 ? profile_weights_.index_select(0, pos) : at::Tensor()};
}

at::Tensor ElsaModel::scores_of(const at::Tensor& users, const at::Tensor& encoder) const {
  const at::Tensor u = users.to(profile_ptr_.device(), at::kLong);
  const Entries e = entries_of(u);
  return scores_of_entries(u.size(0), e.row, e.items, encoder, e.weight);
}

at::Tensor ElsaModel::score_rated_items(const std::vector<std::vector<int64_t>>& rated) {
  at::NoGradGuard no_grad;
  const auto count = static_cast<int64_t>(rated.size());
  if (encoder_t_.size(0) == 0) return at::zeros({count, n2_}, b1_.options());
  // Lists of items carry no counts: each weighs 1.
  const auto [row, items] = entries_of_lists(rated, profile_ptr_.device());
  return scores_of_entries(count, row, items, encoder_t_.t(), at::Tensor());
}

at::Tensor ElsaModel::scores_of_entries(int64_t count, const at::Tensor& row, const at::Tensor& items,
                                        const at::Tensor& encoder, const at::Tensor& weight) const {
  const at::Tensor z = row_sums(count, row, items, encoder, weight);
  at::Tensor s = z.mm(encoder.t());
  if (deep_b_.size(0) > 0)
    s = s + saved_hidden(z, squared_norms(count, row, weight, z.options())).mm(deep_items_t_);
  // Minus each input item's own score (diag(A_hat A_hat^T) = 1, times its weight).
  return s.index_put({row, items},
                     weight.defined() ? -weight.to(s.scalar_type()) : -at::ones({row.size(0)}, s.options()),
                     true);
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
  const bool deep = deep_b_.size(0) > 0;
  if (side == 1) return deep ? at::cat({encoder, deep_items_t_.t()}, 1) : encoder;
  const Entries e = entries_of(at::arange(n1_, profile_ptr_.options()));
  const at::Tensor z = row_sums(n1_, e.row, e.items, encoder, e.weight);
  return deep ? at::cat({z, saved_hidden(z, squared_norms(n1_, e.row, e.weight, z.options()))}, 1) : z;
}

ScoreTerms ElsaModel::score_terms(int64_t user, int64_t item, const Dataset& ds) {
  (void)ds;  // the profile the scores read is the model's own (training, validation, added)
  at::NoGradGuard no_grad;
  ScoreTerms out;
  const bool counts = profile_weights_.numel() > 0;
  out.method = counts
                   ? "elsa: score = sum over the items i you used of w_ui a_i . a_j (A_hat's unit rows, w = "
                     "log(1 + count))"
                   : "elsa: score = sum over the items i you rated of a_i . a_j (A_hat's unit rows)";
  const at::Tensor u = at::full({1}, user, profile_ptr_.options());
  out.score = score_items(u, n2_)[0][item].item<double>();
  if (encoder_t_.size(0) == 0) return out;
  const at::Tensor encoder = encoder_t_.t();
  const Entries en = entries_of(u);
  at::Tensor parts = encoder.index_select(0, en.items).mv(encoder[item]);
  if (counts) parts = parts * en.weight.to(parts.scalar_type());
  parts = parts.to(at::kCPU, at::kDouble).contiguous();
  const at::Tensor rated = en.items.to(at::kCPU).contiguous();
  for (int64_t e = 0; e < rated.size(0); ++e) {
    const int64_t i = rated.data_ptr<int64_t>()[e];
    // A rated item's own score is set to -1 (scores_of_entries): that pair is no sum.
    if (i == item)
      return {-1.0, out.method + "; an item you rated scores -1", {{-1, -1, -1.0, "you rated it"}}};
    out.terms.push_back({user, i, parts.data_ptr<double>()[e], ""});
  }
  if (deep_b_.size(0) > 0) {
    const at::Tensor z = row_sums(1, en.row, en.items, encoder, en.weight);
    const double deep = saved_hidden(z, squared_norms(1, en.row, en.weight, z.options()))
                            .mv(deep_items_t_.select(1, item))
                            .item<double>();
    out.terms.push_back({-1, -1, deep, "the deep path h_u . d_j (nonlinear in your items, not split)"});
    out.method += " + the deep path h_u . d_j";
  }
  return out;
}

ScoreFactors ElsaModel::score_factors() {
  ScoreFactors f;
  f.items = node_representations(1);
  if (!f.items.defined()) return {};
  f.items = f.items.to(at::kCPU, at::kFloat).contiguous();
  f.users = node_representations(0).to(at::kCPU, at::kFloat).contiguous();
  f.meaning =
      deep_b_.size(0) > 0
          ? "elsa with its deep path: users = [z_u, relu(z_u W + b)], items = [A_hat, D], z_u = x_u A_hat / "
            "|x_u|^(1/2)"
          : "elsa: users = z_u = x_u A_hat / |x_u|^(1/2), items = A_hat (unit rows)";
  return f;
}

void ElsaModel::nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) {
  (void)trained_items;
  // The trained users' profiles as saved, then each new user's distinct rated items.
  add_user_rows(profile_ptr_, profile_items_, ctx, trained_users, n1_, &profile_weights_);
}

ElsaModel::Trained ElsaModel::train(const std::vector<const RatingList*>& ratings, int64_t d, int64_t hidden,
                                    int64_t epochs, const std::function<double(int64_t)>& probe,
                                    const at::Device& device, bool weighted) {
  set_profiles(ratings, weighted);
  fit_biases(ratings);
  torch::manual_seed(static_cast<uint64_t>(seed_));
  std::mt19937_64 rng(static_cast<uint64_t>(seed_));
  const auto fopts = b1_.options().dtype(at::kFloat);
  const auto cpu = fopts.device(at::kCPU);
  at::Tensor a =
      (torch::randn({n2_, d}, cpu) / std::sqrt(static_cast<double>(d))).to(device).set_requires_grad(true);
  std::vector<at::Tensor> params{a};
  // The deep path: W and b of the hidden layer, D its item rows (small: the path starts near
  // zero and grows where it lowers the loss).
  at::Tensor w, bias, dout;
  if (hidden > 0) {
    w = (torch::randn({d, hidden}, cpu) * std::sqrt(2.0 / static_cast<double>(d)))
            .to(device)
            .set_requires_grad(true);
    bias = torch::zeros({hidden}, fopts.device(device)).set_requires_grad(true);
    dout = (torch::randn({n2_, hidden}, cpu) * 0.01).to(device).set_requires_grad(true);
    params.insert(params.end(), {w, bias, dout});
  }
  torch::optim::Adam opt(params, torch::optim::AdamOptions(cfg_.lr));
  const auto keep_now = [&] {
    at::NoGradGuard no_grad;
    keep(normalised(a), w, bias, dout);
  };

  std::vector<int64_t> users;
  const at::Tensor counts = (profile_ptr_.slice(0, 1) - profile_ptr_.slice(0, 0, n1_)).to(at::kCPU);
  for (int64_t u = 0; u < n1_; ++u)
    if (counts.data_ptr<int64_t>()[u] > 0) users.push_back(u);

  const auto batch = static_cast<size_t>(
      elsa_batch_users(static_cast<int64_t>(users.size()), n2_, d + hidden, cfg_.batch_users));
  // Measured every epoch where one epoch is many steps (elsa.long_epoch_steps): 17,615 users
  // at 256 a step make 69, and a peak at epoch 2 would otherwise run to epoch 8.
  const auto steps = static_cast<int64_t>((users.size() + batch - 1) / batch);
  const int64_t every = cfg_.long_epoch_steps > 0 && steps >= cfg_.long_epoch_steps ? 1 : cfg_.eval_every;
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
      const Entries en = entries_of(ub);
      const at::Tensor &row = en.row, &items = en.items, &weight = en.weight;
      at::Tensor kept_row = row, kept_items = items, kept_weight = weight;
      if (cfg_.dropout > 0) {
        const at::Tensor keep = (at::rand({row.size(0)}, fopts) >= cfg_.dropout).to(device);
        kept_row = row.masked_select(keep);
        kept_items = items.masked_select(keep);
        if (weight.defined()) kept_weight = weight.masked_select(keep);
      }
      // |X'_u|^2 and |X_u|^2: the kept and all entries' counts, or their squared weights
      // under counts (the loss's formulas hold for any weights, models/objectives/ranking_losses.h).
      const at::Tensor kept = squared_norms(b, kept_row, kept_weight, fopts.device(device));
      const at::Tensor all = squared_norms(b, row, weight, fopts.device(device));
      // The normalised MSE of S = X' E E^T (+ h D^T) - X' (the objectives' row normalised_mse),
      // from the users' sums of item rows and the Gram matrix: no users x items scores are formed.
      const at::Tensor encoder = normalised(a);
      const at::Tensor z = row_sums(b, kept_row, kept_items, encoder, kept_weight);
      at::Tensor loss;
      if (hidden == 0) {
        loss = normalised_mse_autoencoder_loss(z, row_sums(b, row, items, encoder, weight), gram(encoder),
                                               kept, all);
      } else {
        const at::Tensor f = at::cat({encoder, dout}, 1);
        const at::Tensor h = at::dropout(deep_hidden(z, kept, w, bias), cfg_.deep_dropout, /*train=*/true);
        loss = normalised_mse_factored_loss(at::cat({z, h}, 1),
                                            row_sums(b, kept_row, kept_items, f, kept_weight),
                                            row_sums(b, row, items, f, weight), gram(f), kept, all);
      }
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    if (!probe || (epoch % every != 0 && epoch != epochs)) continue;
    keep_now();
    const double ndcg = probe(epoch);
    best.curve.emplace_back(epoch, ndcg);
    // A gain below elsa.min_gain is noise, and would keep a flat curve running to elsa.epochs.
    if (best.ndcg < 0 || ndcg > best.ndcg + cfg_.min_gain) {
      best.ndcg = ndcg;
      best.epoch = epoch;
      best.state.clear();
      at::NoGradGuard no_grad;
      for (const auto& p : named_parameters()) best.state[p.key()] = p.value().detach().clone();
      for (const auto& b : named_buffers()) best.state["buffer:" + b.key()] = b.value().detach().clone();
      since = 0;
    } else if (++since >= cfg_.patience ||
               (cfg_.fall_patience > 0 && static_cast<double>(epoch - best.epoch) >=
                                              cfg_.fall_patience * static_cast<double>(best.epoch))) {
      break;
    }
  }
  if (!probe) {
    keep_now();
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
  // A directory written before the deep path has no elsa.deep_hidden figure: it had none.
  const std::string hidden =
      std::to_string(figures.contains("elsa.deep_hidden") && figures["elsa.deep_hidden"].is_number_integer()
                         ? figures["elsa.deep_hidden"].get<int64_t>()
                         : 0);
  apply_override(cfg, "elsa.dims=" + d);
  apply_override(cfg, "elsa.epochs=" + epochs);
  apply_override(cfg, "elsa.deep_hidden=" + hidden);
  return " at elsa.d = " + d + ", " + epochs + " epochs" + (hidden == "0" ? "" : ", deep path H = " + hidden);
}

ClosedFormFit ElsaModel::fit(const Dataset& ds, const at::Device& device,
                             const std::function<void(const std::string&)>& log) {
  ClosedFormFit out;
  const auto t0 = std::chrono::steady_clock::now();
  auto predictions = [&](const RatingList& list) {
    return clipped_predictions(*this, list, ds.rating_min, ds.rating_max, device);
  };
  // Under data.feedback = counts the profiles weigh each item log(1 + count) (data/feedback.h).
  const bool weighted = ds.feedback == "counts";
  int64_t d = dims_.front(), epochs = cfg_.epochs, hidden = deep_.front();
  double ndcg = -1;
  std::map<std::string, at::Tensor> best_state;  // the chosen training's, at its best epoch
  nlohmann::json tried = nlohmann::json::array();
  if (!ds.validation.empty()) {
    const RankingProbe probe = validation_probe(ds, int64_t{1} << 22, device);
    if (!probe.empty()) {
      std::string now;  // "d = 128" or "d = 128, H = 256": what is training
      const auto measure = [&](int64_t epoch) {
        const double v =
            probe.figure([&](const at::Tensor& b) { return score_items(b, n2_); }, ranking_figure());
        if (log)
          log("elsa " + now + ", epoch " + std::to_string(epoch) + ": validation " + ranking_label() + " " +
              fixed(v, 4) + " (" +
              fixed(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0) + " s)");
        return v;
      };
      // Every pair of a width d and a deep path width H, the first always; a later one only
      // while an epoch at d + H stays below 2^35 multiply-adds. A deep path replaces a best
      // without one only by more than elsa.min_gain.
      for (const int64_t width : dims_)
        for (const int64_t h : deep_) {
          now = "d = " + std::to_string(width) + (h > 0 ? ", H = " + std::to_string(h) : "");
          if ((width != dims_.front() || h != deep_.front()) &&
              epoch_work(ds.users.count, n2_, cfg_.batch_users, width + h) > kMaxEpochWork) {
            const std::string why = "elsa " + now + ": skipped, " + std::to_string(ds.users.count) +
                                    " users x " + std::to_string(n2_) +
                                    " items: an epoch at this width is above 2^35 multiply-adds";
            tried.push_back({{"elsa.d", width}, {"elsa.deep_hidden", h}, {"skipped", why}});
            if (log) log(why);
            continue;
          }
          const Trained t = train({&ds.train}, width, h, cfg_.epochs, measure, device, weighted);
          tried.push_back({{"elsa.d", width},
                           {"elsa.deep_hidden", h},
                           {"epochs", t.epoch},
                           {ranking_figure("val"), t.ndcg},
                           {"curve", elsa_curve_json(t)}});
          if (log)
            log("elsa " + now + ": validation " + ranking_label() + " " + fixed(t.ndcg, 4) + " at epoch " +
                std::to_string(t.epoch));
          const double bar = h > 0 && hidden == 0 && ndcg >= 0 ? cfg_.min_gain : 0.0;
          if (t.ndcg > ndcg + bar)
            ndcg = t.ndcg, d = width, hidden = h, epochs = t.epoch, best_state = t.state;
        }
      out.metrics[ranking_figure("val")] = ndcg;
    }
    // Validation predictions from the biases of the training ratings.
    fit_biases({&ds.train});
    out.val_predictions = predictions(ds.validation);
  }
  const std::string chosen = "d = " + std::to_string(d) +
                             (hidden > 0 ? ", deep path H = " + std::to_string(hidden) : "") + ", " +
                             std::to_string(epochs) + " epochs";
  if (log) log("elsa: " + chosen + " on training + validation");
  train({&ds.train, &ds.validation}, d, hidden, epochs, {}, device, weighted);
  if (!ds.test.empty()) out.test_predictions = predictions(ds.test);
  out.details["elsa.d"] = d;
  out.details["elsa.epochs"] = epochs;
  out.details["elsa.deep_hidden"] = hidden;
  out.details["candidates"] = tried;
  out.training_state = std::move(best_state);
  out.details["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.summary.push_back("elsa on " + ds.name + ": " + chosen +
                        (ndcg >= 0 ? " (validation " + ranking_label() + " " + fixed(ndcg, 4) + ")" : "") +
                        ", refit on training + validation");
  return out;
}

/// The `elsa` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_elsa_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<ElsaModel>(cfg.elsa, ctx, cfg.train.seed);
}

}  // namespace symgnn::models
