// The bias baseline as a model kind: the biases of bias_fit.h held as buffers.
#include "models/baseline/baseline_model.h"

#include <torch/types.h>
#include <torch/utils.h>

#include "models/closed_form_predictions.h"
#include "symgnn/metrics.h"
#include "util/text.h"

namespace symgnn::models {

RatingList context_ratings(const ModelContext& ctx) {
  RatingList r;
  if (!ctx.train_values.defined()) return r;
  const at::Tensor u = ctx.train_users.to(at::kCPU).to(at::kLong).contiguous();
  const at::Tensor i = ctx.train_items.to(at::kCPU).to(at::kLong).contiguous();
  const at::Tensor v = ctx.train_values.to(at::kCPU).to(at::kFloat).contiguous();
  r.user.assign(u.data_ptr<int64_t>(), u.data_ptr<int64_t>() + u.numel());
  r.item.assign(i.data_ptr<int64_t>(), i.data_ptr<int64_t>() + i.numel());
  r.value.assign(v.data_ptr<float>(), v.data_ptr<float>() + v.numel());
  return r;
}

BaselineModel::BaselineModel(const BaselineConfig& cfg, const ModelContext& ctx) : cfg_(cfg) {
  const at::Device device = ctx.train_values.defined() ? ctx.train_values.device() : at::Device(at::kCPU);
  const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(device);
  mu_ = register_buffer("global_mean", torch::full({}, ctx.global_mean, opts));
  user_bias_ = register_buffer("user_bias", torch::zeros({ctx.n1}, opts));
  item_bias_ = register_buffer("item_bias", torch::zeros({ctx.n2}, opts));
}

at::Tensor BaselineModel::forward(const at::Tensor& users, const at::Tensor& items) {
  return mu_ + user_bias_.index_select(0, users) + item_bias_.index_select(0, items);
}

at::Tensor BaselineModel::rating_items(const at::Tensor& users, int64_t n2) {
  TORCH_CHECK(n2 == item_bias_.size(0), "BaselineModel: built for ", item_bias_.size(0), " items, asked for ",
              n2);
  return mu_ + user_bias_.index_select(0, users).unsqueeze(1) + item_bias_.unsqueeze(0);  // [B, n2]
}

ScoreFactors BaselineModel::score_factors() {
  ScoreFactors f;
  f.users = at::zeros({user_bias_.size(0), 0}, at::kFloat);
  f.items = at::zeros({item_bias_.size(0), 0}, at::kFloat);
  f.user_bias = user_bias_.detach().to(at::kCPU, at::kFloat).clone();
  f.item_bias = item_bias_.detach().to(at::kCPU, at::kFloat).clone();
  f.offset = mu_.item<double>();
  f.meaning = "the bias baseline: score = mu + b_u + b_i, no factors";
  return f;
}

ScoreFactors weighted_sum(const ScoreFactors& f, double a, const ScoreFactors& g, double b, double c) {
  if (!f.items.defined() || !g.items.defined()) return {};
  const auto sum = [](const at::Tensor& x, double wx, const at::Tensor& y, double wy) {
    if (!x.defined() && !y.defined()) return at::Tensor();
    if (!x.defined()) return y * wy;
    if (!y.defined()) return x * wx;
    return x * wx + y * wy;
  };
  ScoreFactors out;
  out.users_are_interactions = f.users_are_interactions || g.users_are_interactions;
  if (f.users_are_interactions && g.users_are_interactions) {
    out.items = f.items * a + g.items * b;  // x W_f a + x W_g b = x (a W_f + b W_g)
  } else if (out.users_are_interactions) {
    // Interaction rows beside dense factors have no common form; biases alone (d = 0) do.
    const ScoreFactors& x = f.users_are_interactions ? f : g;
    if ((f.users_are_interactions ? g : f).items.size(1) != 0) return {};
    out.items = x.items * (f.users_are_interactions ? a : b);
  } else {
    // Side by side, f's users scaled by a and g's by b; users are undefined only where the
    // items have no columns (popularity's counts), and then the other side's alone remain.
    out.users = f.users.defined() && g.users.defined() ? at::cat({f.users * a, g.users * b}, 1)
                                                       : sum(f.users, a, g.users, b);
    out.items = at::cat({f.items, g.items}, 1);
  }
  out.user_bias = sum(f.user_bias, a, g.user_bias, b);
  out.item_bias = sum(f.item_bias, a, g.item_bias, b);
  out.offset = a * f.offset + b * g.offset + c;
  out.meaning = f.meaning;
  return out;
}

void BaselineModel::set(const Biases& b) {
  const auto floats = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  torch::NoGradGuard no_grad;
  mu_.fill_(b.mu);
  user_bias_.copy_(torch::tensor(floats(b.user)));
  item_bias_.copy_(torch::tensor(floats(b.item)));
}

void BaselineModel::extend(const ModelContext& ctx, int64_t trained_users, int64_t trained_items, Shrinkage s,
                           int64_t sweeps) {
  Biases trained = biases();
  trained.user.resize(static_cast<size_t>(trained_users));
  trained.item.resize(static_cast<size_t>(trained_items));
  set(extend_biases(context_ratings(ctx), trained, ctx.n1, ctx.n2, s, sweeps));
}

float BaselineModel::fold_user_bias(const UserFold& fold, double lambda_user, int64_t sweeps) const {
  if (fold.user < user_bias_.size(0)) return user_bias_[fold.user].item<float>();
  // bias_fit.cpp's user step for the one new user, the items' biases fixed: it converges in
  // one sweep (a second moves nothing).
  double b = 0;
  const double lambda_count = lambda_user + static_cast<double>(fold.items.size());
  if (sweeps >= 1 && lambda_count > 0) {
    const double mu = mu_.item<double>();
    const at::Tensor item = item_bias_.to(at::kCPU).contiguous();
    const float* bi = item.data_ptr<float>();
    double acc = 0;
    for (size_t e = 0; e < fold.items.size(); ++e)
      acc += static_cast<float>(fold.values[e]) - mu - static_cast<double>(bi[fold.items[e]]);
    b = acc / lambda_count;
  }
  return static_cast<float>(b);
}

at::Tensor BaselineModel::fold_row(const UserFold& fold, double lambda_user, int64_t sweeps) {
  const at::Tensor b_user =
      fold.user < user_bias_.size(0)
          ? user_bias_.narrow(0, fold.user, 1)
          : torch::tensor({fold_user_bias(fold, lambda_user, sweeps)}, user_bias_.options());
  if (fold.asked.empty()) return mu_ + b_user + item_bias_;
  const at::Tensor asked =
      torch::tensor(at::ArrayRef<int64_t>(fold.asked), torch::kLong).to(item_bias_.device());
  return mu_ + b_user + item_bias_.index_select(0, asked);
}

Biases BaselineModel::biases() const {
  const auto doubles = [](const at::Tensor& t) {
    const at::Tensor c = t.to(at::kCPU).to(at::kDouble).contiguous();
    return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
  };
  Biases b;
  b.mu = mu_.item<double>();
  b.user = doubles(user_bias_);
  b.item = doubles(item_bias_);
  return b;
}

ClosedFormFit BaselineModel::fit(const Dataset& ds, const at::Device&,
                                 const std::function<void(const std::string&)>& log) {
  const ShrinkageChoice choice = choose_shrinkage(ds, cfg_);
  if (log)
    log("bias baseline on " + ds.name + ": shrinkage (user " + fixed(choice.best.user, 2) + ", item " +
        fixed(choice.best.item, 2) + ") chosen by " + choice.how + " (" + rating_label() + " " +
        fixed(choice.figure, 4) + ")");
  const auto predictions = [&](const RatingList& list) {
    return clipped_predictions(*this, list, ds.rating_min, ds.rating_max, mu_.device());
  };
  ClosedFormFit out;
  if (!ds.validation.empty()) {
    set(fit_biases(ds.train, ds.users.count, ds.items.count, choice.best, cfg_.sweeps));
    out.val_predictions = predictions(ds.validation);
  }
  const Biases final_fit = fit_final_biases(ds, choice.best, cfg_.sweeps);
  set(final_fit);
  if (!ds.test.empty()) out.test_predictions = predictions(ds.test);

  nlohmann::json& j = out.details;
  j["user_shrinkage"] = choice.best.user;
  j["item_shrinkage"] = choice.best.item;
  j["chosen_by"] = choice.how;
  j[std::string("chosen_") + rating_metric().name] = choice.figure;
  j["global_mean"] = final_fit.mu;
  j["sweeps"] = final_fit.sweeps;
  j["predictor"] = "mu + b_u + b_i, clipped (models/baseline/bias_fit.h)";
  const ShrinkageGrid grid = shrinkage_grid(cfg_);
  for (size_t a = 0; a < choice.table.size(); ++a)
    for (size_t b = 0; b < choice.table[a].size(); ++b)
      j["candidates"].push_back({{"user_shrinkage", grid.users[a]},
                                 {"item_shrinkage", grid.items[b]},
                                 {rating_metric().name, choice.table[a][b]}});
  out.summary = {"chosen shrinkage: user " + fixed(choice.best.user, 2) + ", item " +
                 fixed(choice.best.item, 2) + " (" + choice.how + ", " + rating_label() + " " +
                 fixed(choice.figure, 4) + ")"};
  return out;
}

/// The `baseline` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_baseline_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<BaselineModel>(cfg.baseline, ctx);
}

}  // namespace symgnn::models
