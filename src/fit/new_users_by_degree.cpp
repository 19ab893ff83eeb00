// evaluate --protocol new-users by slices of graph degree (new_users_by_degree.h).
#include "fit/new_users_by_degree.h"

#include <algorithm>
#include <utility>

#include "infer/model_parts.h"
#include "symgnn/model_kinds.h"

namespace symgnn::fitting {

size_t degree_slice(int64_t degree) {
  return degree <= 0 ? 0 : degree <= 5 ? 1 : 2;
}

std::vector<int64_t> neighbour_counts(const EdgeList& g) {
  std::vector<std::pair<int64_t, int64_t>> entries;
  entries.reserve(g.size());
  for (size_t e = 0; e < g.size(); ++e)
    if (g.src[e] != g.dst[e]) entries.emplace_back(g.src[e], g.dst[e]);
  // Sorted, an entry repeated (a file naming an edge twice) sits beside its twin.
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  std::vector<int64_t> count(static_cast<size_t>(g.num_nodes), 0);
  for (const auto& [src, dst] : entries) ++count[static_cast<size_t>(src)];
  return count;
}

std::string no_user_graph(const TrainedModel& model) {
  const std::string& kind = model.config().model;
  if (std::string(model_kind(kind).graphs).find("user") == std::string::npos)
    return "model = " + kind + " reads no user graph: every held-out user is in slice 0";
  const GraphOrigin origin = model.dataset().users.graph_origin;
  if (origin != GraphOrigin::File && origin != GraphOrigin::Knn)
    return "the model's user graph is the identity (no edges): every held-out user is in slice 0";
  return "";
}

Evaluation evaluate_slice(const TrainedModel& fitted, const NewNodes& fold_in,
                          const std::vector<char>& in_slice, const EvaluateOptions& eval) {
  // The fitted members and ranker are shared, not refitted: only the test split differs.
  infer::ModelParts parts = fitted.parts();
  RatingList kept;
  const RatingList& test = parts.ds.test;
  for (size_t e = 0; e < test.size(); ++e)
    if (in_slice[static_cast<size_t>(test.user[e])]) kept.add(test.user[e], test.item[e], test.value[e]);
  parts.ds.test = std::move(kept);
  parts.ds.test_unknown = UnknownRatings();  // ids that are no node: no held-out user's
  // Grown from the fitted model, not copied from the grown one: the growth decides which
  // users the ranker places from their rated items (TrainedModel::with_new_nodes).
  return evaluate(TrainedModel(std::move(parts)).with_new_nodes(fold_in), eval);
}

}  // namespace symgnn::fitting
