#include "symgnn/trained_model.h"

#include <torch/torch.h>

#include <algorithm>
#include <filesystem>

#include "infer/new_ratings.h"
#include "models/lowrank_model.h"
#include "models/sylvester/completion_model.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "train/checkpoint.h"
#include "train/runtime.h"

namespace fs = std::filesystem;

namespace symgnn {

struct TrainedModel::Impl {
  RunConfig cfg;
  Dataset ds;
  models::ModelContext ctx;
  std::shared_ptr<models::RatingModel> model;
  std::vector<train::ModuleState> members;
  at::Device device{at::kCPU};
  std::vector<std::vector<int64_t>> seen;
  NewRatingsSummary added;
  /// Per checkpoint, (U1, U2) of the low-rank model, computed on first use.
  std::vector<std::pair<at::Tensor, at::Tensor>> embeddings;

  /// Mean prediction of the checkpoints for index tensors on the device, clipped to the
  /// rating range unless `clip` is false.
  at::Tensor predict(const at::Tensor& u, const at::Tensor& i, bool clip = true) {
    torch::NoGradGuard no_grad;
    at::Tensor sum;
    for (const auto& m : members) {
      train::set_module_state(*model, m);
      at::Tensor p = model->forward(u, i);
      if (clip) p = p.clamp(ctx.rating_min, ctx.rating_max);
      sum = sum.defined() ? sum + p : p;
    }
    return (sum / static_cast<double>(members.size())).to(torch::kCPU, torch::kFloat).contiguous();
  }
};

namespace {

std::vector<std::vector<int64_t>> seen_by_user(const Dataset& ds) {
  std::vector<std::vector<int64_t>> seen(static_cast<size_t>(ds.users.count));
  for (const RatingList* r : {&ds.train, &ds.validation})
    for (size_t e = 0; e < r->size(); ++e) seen[static_cast<size_t>(r->user[e])].push_back(r->item[e]);
  for (auto& s : seen) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  return seen;
}

void check_ids(const std::vector<int64_t>& ids, int64_t n, const char* what) {
  for (const int64_t id : ids)
    if (id < 0 || id >= n)
      throw ConfigError(std::string(what) + " index " + std::to_string(id) + " outside [0, " +
                        std::to_string(n) + ")");
}

}  // namespace

TrainedModel::TrainedModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TrainedModel::TrainedModel(TrainedModel&&) noexcept = default;
TrainedModel& TrainedModel::operator=(TrainedModel&&) noexcept = default;
TrainedModel::~TrainedModel() = default;

/// `like`'s shape with `saved` in its leading corner and zeros elsewhere: the state of a
/// model built for more nodes than it was trained on (new_ratings.h). Only node-indexed
/// dimensions grow, so a tensor of unchanged shape is taken as saved.
static at::Tensor grown(const at::Tensor& saved, const at::Tensor& like) {
  if (saved.sizes() == like.sizes()) return saved;
  TORCH_CHECK(saved.dim() == like.dim(), "grown: rank differs");
  at::Tensor out = torch::zeros_like(like);
  at::Tensor corner = out;
  for (int64_t d = 0; d < saved.dim(); ++d) {
    TORCH_CHECK(saved.size(d) <= like.size(d), "grown: a dimension shrank");
    corner = corner.narrow(d, 0, saved.size(d));
  }
  corner.copy_(saved);
  return out;
}

TrainedModel TrainedModel::load(const std::string& path, const std::string& device,
                                const std::string& new_ratings) {
  NewNodes nodes;
  nodes.ratings = new_ratings;
  return load(path, device, nodes);
}

TrainedModel TrainedModel::load(const std::string& path, const std::string& device,
                                const NewNodes& new_nodes) {
  train::check_device(device, "--device");
  const std::string model_path = fs::is_directory(path) ? (fs::path(path) / "model.pt").string() : path;
  if (!fs::is_regular_file(model_path))
    throw DataError(model_path + ": no model here (write one with `symgnn train --out DIR`)");
  auto impl = std::make_unique<Impl>();
  load_config_text(impl->cfg, train::read_model_config(model_path), model_path);
  impl->cfg.train.device = device;
  impl->device = at::Device(device);
  impl->ds = load_dataset(impl->cfg.data);
  graph::resolve_graphs(impl->ds, impl->cfg.graph);
  impl->ctx = models::make_context(impl->ds).to(impl->device);
  impl->model = models::sylvester::make_inference_model(impl->cfg, impl->ctx);
  impl->model->to(impl->device);
  impl->members = train::load_model_members(*impl->model, model_path, impl->device);
  if (!new_nodes.empty()) {
    if (impl->cfg.model == "sylvester")
      throw ConfigError(
          "--new-ratings: the Sylv. baseline has no weights to apply to new ratings (its "
          "predictions are a solution of Eq. 1 for the training data); train a learned model");
    impl->added = infer::add_new_nodes(impl->ds, new_nodes, impl->cfg.graph);
    // The grown model: its context from the grown data with the trained rating scale, its
    // state the trained one with zero rows for the new nodes.
    models::ModelContext ctx = models::make_context(impl->ds);
    ctx.global_mean = impl->ctx.global_mean;
    ctx.rating_std = impl->ctx.rating_std;
    impl->ctx = ctx.to(impl->device);
    auto model = models::sylvester::make_inference_model(impl->cfg, impl->ctx);
    model->to(impl->device);
    const train::ModuleState like = train::module_state(*model);
    for (auto& m : impl->members)
      for (auto& [name, t] : m) t = grown(t, like.at(name));
    impl->model = model;
  }
  impl->model->eval();
  impl->seen = seen_by_user(impl->ds);
  return TrainedModel(std::move(impl));
}

const RunConfig& TrainedModel::config() const {
  return impl_->cfg;
}
const Dataset& TrainedModel::dataset() const {
  return impl_->ds;
}
int64_t TrainedModel::users() const {
  return impl_->ctx.n1;
}
int64_t TrainedModel::items() const {
  return impl_->ctx.n2;
}
float TrainedModel::rating_min() const {
  return impl_->ctx.rating_min;
}
float TrainedModel::rating_max() const {
  return impl_->ctx.rating_max;
}
float TrainedModel::global_mean() const {
  return impl_->ctx.global_mean;
}
std::string TrainedModel::name() const {
  return impl_->model->name();
}
const std::vector<std::vector<int64_t>>& TrainedModel::seen_items() const {
  return impl_->seen;
}
const NewRatingsSummary& TrainedModel::new_ratings() const {
  return impl_->added;
}

std::vector<float> TrainedModel::predict(const std::vector<int64_t>& users,
                                         const std::vector<int64_t>& items) const {
  if (users.size() != items.size()) throw ConfigError("predict: users and items differ in length");
  if (users.empty()) return {};
  check_ids(users, this->users(), "user");
  check_ids(items, this->items(), "item");
  const auto opts = torch::TensorOptions().dtype(torch::kInt64);
  const at::Tensor u = torch::tensor(users, opts).to(impl_->device);
  const at::Tensor i = torch::tensor(items, opts).to(impl_->device);
  const at::Tensor p = impl_->predict(u, i);
  return std::vector<float>(p.data_ptr<float>(), p.data_ptr<float>() + p.numel());
}

std::vector<float> TrainedModel::score_all_items(const std::vector<int64_t>& users) const {
  if (users.empty()) return {};
  check_ids(users, this->users(), "user");
  // The low-rank model: representations computed once per checkpoint, then B x n2
  // products per block; other models score the block's pairs through forward().
  if (auto* lowrank = dynamic_cast<models::LowRankModel*>(impl_->model.get())) {
    torch::NoGradGuard no_grad;
    if (impl_->embeddings.empty())
      for (const auto& m : impl_->members) {
        train::set_module_state(*lowrank, m);
        impl_->embeddings.push_back(lowrank->embeddings());
      }
    const at::Tensor block = torch::tensor(users, torch::kInt64).to(impl_->device);
    at::Tensor sum;
    for (size_t k = 0; k < impl_->members.size(); ++k) {
      if (impl_->members.size() > 1) train::set_module_state(*lowrank, impl_->members[k]);  // decoder weights
      const auto& [u1, u2] = impl_->embeddings[k];
      const at::Tensor p = lowrank->score_all_items(u1, u2, block);
      sum = sum.defined() ? sum + p : p;
    }
    const at::Tensor p =
        (sum / static_cast<double>(impl_->members.size())).to(torch::kCPU, torch::kFloat).contiguous();
    return std::vector<float>(p.data_ptr<float>(), p.data_ptr<float>() + p.numel());
  }
  const int64_t b = static_cast<int64_t>(users.size()), n2 = items();
  const auto opts = torch::TensorOptions().dtype(torch::kInt64).device(impl_->device);
  // Every (user, item) pair of the block: users repeated n2 times, items tiled.
  const at::Tensor u = torch::tensor(users, torch::kInt64).to(impl_->device).repeat_interleave(n2);
  const at::Tensor i = torch::arange(n2, opts).repeat({b});
  const at::Tensor p = impl_->predict(u, i, /*clip=*/false);
  return std::vector<float>(p.data_ptr<float>(), p.data_ptr<float>() + p.numel());
}

}  // namespace symgnn
