// RankerMember (infer/ranker_member.h): the ranker's rows, and the ranker after each change of
// its model.
#include "infer/ranker_member.h"

#include <torch/types.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "data/parsers.h"
#include "infer/model_parts.h"
#include "infer/new_ratings.h"
#include "infer/ranker_network_term.h"
#include "infer/split_rows.h"
#include "symgnn/error.h"
#include "symgnn/model.h"
#include "symgnn/model_kinds.h"
#include "symgnn/trained_model.h"

namespace symgnn::infer {

namespace {

/// The users with ratings from index `from` on of `ds.train` (those new nodes added),
/// ascending, once each.
std::vector<int64_t> users_rated_from(const Dataset& ds, size_t from) {
  std::vector<int64_t> users(ds.train.user.begin() + static_cast<std::ptrdiff_t>(from), ds.train.user.end());
  std::sort(users.begin(), users.end());
  users.erase(std::unique(users.begin(), users.end()), users.end());
  return users;
}

}  // namespace

RankerMember::RankerMember(std::shared_ptr<const TrainedModel> model, std::vector<int64_t> fresh,
                           std::shared_ptr<const TrainedModel> network)
    : model_(std::move(model)), fresh_(std::move(fresh)), network_(std::move(network)) {}

void RankerMember::mix_network(std::vector<float>& rows, const std::vector<int64_t>& users, int64_t n2,
                               double weight, bool scaled) const {
  if (!network_ || users.empty()) return;
  // The users the network was fitted on, scored in one block.
  std::vector<int64_t> known;
  for (const int64_t u : users)
    if (u < network_->users()) known.push_back(u);
  if (known.empty()) return;
  const std::vector<float> net = network_->score_all_items(known);
  const int64_t width = network_->items();
  size_t k = 0;
  for (size_t r = 0; r < users.size(); ++r) {
    if (users[r] >= network_->users()) continue;
    add_network_term(rows.data() + r * static_cast<size_t>(n2), n2,
                     net.data() + k * static_cast<size_t>(width), width, weight, scaled);
    ++k;
  }
}

std::string RankerMember::name() const {
  return model_->name();
}

bool RankerMember::scores_from_rated_items() const {
  const auto& members = model_->parts().members;
  return model_kind(model_->config().model).new_nodes && members.size() == 1 &&
         members.front()->score_rated_items({}).defined();
}

bool RankerMember::linear_in_rated_items() const {
  return model_->parts().members.front()->scores_linear_in_rated_items();
}

std::vector<float> RankerMember::rated_rows(const std::vector<std::vector<int64_t>>& rated) const {
  const at::Tensor rows =
      model_->parts().members.front()->score_rated_items(rated).to(torch::kCPU, torch::kFloat).contiguous();
  return std::vector<float>(rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel());
}

std::vector<float> RankerMember::rows(const std::vector<int64_t>& users,
                                      const std::vector<std::vector<int64_t>>& seen) const {
  if (fresh_.empty()) return model_->score_all_items(users);
  return split_rows(
      users, static_cast<size_t>(model_->items()),
      [this](int64_t u) { return std::binary_search(fresh_.begin(), fresh_.end(), u); },
      [this](const std::vector<int64_t>& known) { return model_->score_all_items(known); },
      [&](const std::vector<int64_t>& fresh) {
        std::vector<std::vector<int64_t>> rated;
        for (const int64_t u : fresh) rated.push_back(seen[static_cast<size_t>(u)]);
        return rated_rows(rated);
      });
}

std::shared_ptr<const RankerMember> grown(const std::shared_ptr<const RankerMember>& ranker,
                                          const NewNodes& nodes, const NewRatingsSummary& added,
                                          const Dataset& grown, size_t fitted_ratings) {
  if (!ranker || nodes.empty()) return ranker;
  if (ranker->scores_from_rated_items() && added.new_items == 0) {
    // Asked for those users' rows (no copy of its state), beside the users made fresh before.
    const std::vector<int64_t> now = users_rated_from(grown, fitted_ratings);
    std::vector<int64_t> all;
    std::set_union(ranker->fresh_users().begin(), ranker->fresh_users().end(), now.begin(), now.end(),
                   std::back_inserter(all));
    return std::make_shared<const RankerMember>(ranker->model_ptr(), std::move(all), ranker->network());
  }
  // Grown by these nodes alone, it would not know the users made fresh before.
  if (!ranker->fresh_users().empty() || !model_kind(ranker->model().config().model).new_nodes) return nullptr;
  try {
    return std::make_shared<const RankerMember>(
        std::make_shared<const TrainedModel>(ranker->model().with_new_nodes(nodes)), std::vector<int64_t>{},
        ranker->network());
  } catch (const ConfigError&) {  // a directory written before the kind kept what that needs
    return nullptr;
  }
}

std::shared_ptr<const RankerMember> with_created_nodes(const std::shared_ptr<const RankerMember>& ranker,
                                                       const Dataset& ds) {
  if (!ranker) return ranker;
  const ModelParts& parts = ranker->model().parts();
  Dataset rds = parts.ds;
  // (the model's sides hold the ranker's nodes first).
  grow_side(rds.users, data::id_index(ds.users));
  grow_side(rds.items, data::id_index(ds.items));
  return std::make_shared<const RankerMember>(
      std::make_shared<const TrainedModel>(rebuilt_parts(parts, std::move(rds))), ranker->fresh_users(),
      ranker->network());
}

}  // namespace symgnn::infer
