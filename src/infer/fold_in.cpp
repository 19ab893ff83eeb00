// One user folded into a loaded model without growing it (infer::fold_user, the door's first
// choice for Keep::user, symgnn/update.h): for the case it serves (one user's ratings of known
// items on the model's levels, a new user's edges and features), each member's
// RatingModel::fold_user and the ranker's row from the user's rated items. The change was
// checked by check() (symgnn/update.h); a new user given by follows alone is listed from the
// people they follow (infer/cold_lists.h); what the fold cannot place (new items, a k-NN graph, a
// member or ranker without a fold) is false, and the door grows the model instead, whose
// readers report what the fold declined of the edges and features.
#include <c10/core/InferenceMode.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "infer/cold_lists.h"
#include "infer/model_parts.h"
#include "infer/ranker_graph_term.h"
#include "infer/ranker_quality_term.h"
#include "infer/update_parts.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "symgnn/model_kinds.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"

namespace symgnn {

namespace {

/// A new user's row of the normalised At1 (graph::normalized_adjacency of the graph grown by
/// their edges, src/graph/normalize.cpp): w / sqrt(d_new d_v), degrees by out-edges in
/// double. False where an edge is not one add_new_nodes takes (unknown id, the user itself,
/// twice, a weight that is not finite and above 0).
bool new_user_row(const TrainedModel& model, const Delta& rows, const std::string& id, models::UserFold& f) {
  const NodeSet& users = model.dataset().users;
  const std::vector<Delta::Edge>& edges = rows.edges;  // the user side's (fold_user checked)
  if (graph::models_read_identity(users)) {
    f.identity_row = true;
    // A file's links kept for the lists alone (NodeSet::links_only): the network reads none of
    // them, the lists read the follows (follows_of).
    return edges.empty() || (users.links_only && users.graph_origin == GraphOrigin::File);
  }
  if (users.graph_origin != GraphOrigin::File) return false;  // a k-NN graph links new users itself
  std::map<int64_t, double> given;
  for (const Delta::Edge& e : edges) {
    const int64_t v = model.user_index(e.b);
    if (e.a != id || v < 0 || !std::isfinite(e.weight) || e.weight <= 0 || !given.emplace(v, e.weight).second)
      return false;
  }
  if (given.empty()) return true;  // an isolated row
  std::vector<double> degree(static_cast<size_t>(users.count), 0.0);
  const EdgeList& g = users.graph;
  for (size_t e = 0; e < g.size(); ++e) degree[static_cast<size_t>(g.src[e])] += g.weight[e];
  double own = 0;
  for (const auto& [v, w] : given) own += static_cast<float>(w);
  const double own_inv = 1.0 / std::sqrt(own);
  for (const auto& [v, w] : given) {
    const double dv = degree[static_cast<size_t>(v)];
    f.neighbours.push_back(v);
    f.weights.push_back(
        static_cast<float>(static_cast<float>(w) * own_inv * (dv > 0 ? 1.0 / std::sqrt(dv) : 0.0)));
  }
  return true;
}

/// The trained users a new user `id` follows in `rows` (indices, ascending): whom the lists'
/// user-graph terms read (infer/cold_lists.h). False where an edge is not theirs or names no
/// trained user.
bool follows_of(const TrainedModel& model, const Delta& rows, const std::string& id,
                std::vector<int64_t>& out) {
  out.clear();
  for (const Delta::Edge& e : rows.edges) {
    const int64_t v = model.user_index(e.b);
    if (e.a != id || v < 0) return false;
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return true;
}

/// A new user's one feature row into `f` (the raw values; none given: zeros). False where it is
/// not theirs, the users have no features or its width or values do not fit.
bool new_user_features(const infer::ModelParts& p, const Delta& rows, const std::string& id,
                       models::UserFold& f) {
  if (rows.features.empty()) return true;
  const Delta::Features& row = rows.features.front();
  const FeatureMatrix& features = p.ds.users.features;
  if (row.id != id || features.empty() || static_cast<int64_t>(row.values.size()) != features.cols ||
      !std::all_of(row.values.begin(), row.values.end(), [](double x) { return std::isfinite(x); }))
    return false;
  std::vector<float> values(row.values.begin(), row.values.end());
  f.features = torch::tensor(at::ArrayRef<float>(values), torch::kFloat);
  return true;
}

/// The members' rows of a folded user ([2, n] on the CPU: scores, ratings), averaged as
/// mean_of averages them.
at::Tensor members_rows(const std::vector<std::shared_ptr<models::RatingModel>>& members,
                        const models::UserFold& fold) {
  // Inference mode: no autograd bookkeeping per operation, a good part of a fold-in's many
  // small products.
  const c10::InferenceMode inference;
  at::Tensor sum;
  for (const auto& m : members) {
    const at::Tensor rows = m->fold_user(fold);
    TORCH_CHECK(rows.defined(), "fold_user: a member that folds users did not");
    sum = sum.defined() ? sum + rows : rows;
  }
  return (sum / static_cast<double>(members.size())).to(torch::kCPU, torch::kFloat).contiguous();
}

/// UserUpdate::ratings of a folded user: the members' ratings of the items asked alone.
std::function<std::vector<float>(const std::vector<int64_t>&)> asked_ratings(
    const std::vector<std::shared_ptr<models::RatingModel>>& members, const models::UserFold& f, int64_t n2) {
  return [members, f, n2](const std::vector<int64_t>& asked) {
    models::UserFold fold = f;
    fold.asked = asked;
    std::sort(fold.asked.begin(), fold.asked.end());
    fold.asked.erase(std::unique(fold.asked.begin(), fold.asked.end()), fold.asked.end());
    for (const int64_t i : fold.asked)
      if (i < 0 || i >= n2)
        throw ConfigError("fold_user: item index " + std::to_string(i) + " outside [0, " +
                          std::to_string(n2) + ")");
    std::vector<float> v;
    if (fold.asked.empty()) return v;
    const at::Tensor rows = members_rows(members, fold);
    const float* r = rows.data_ptr<float>() + fold.asked.size();
    for (const int64_t i : asked)
      v.push_back(r[std::lower_bound(fold.asked.begin(), fold.asked.end(), i) - fold.asked.begin()]);
    return v;
  };
}

/// A new user given by follows alone (no rating; symgnn/update.h): listed by the people they
/// follow, as infer/cold_lists.h lists a user a graph edit created with the same links, where
/// the model lists users without ratings so; the members' ratings from the user's graph row
/// and features (no rated item), as a model grown by them would give them (an isolated row
/// where the members read the identity and the file's links stay for the lists alone,
/// NodeSet::links_only). False where the model lists such users otherwise, its user graph is
/// no file's (new_user_row), or a member does not fold.
bool fold_follows(const TrainedModel& model, const Delta& rows, UserUpdate& out) {
  const infer::ModelParts& p = model.parts();
  if (!model.lists_cold() || rows.edges.empty()) return false;
  const std::string& id = rows.edges.front().a;
  if (model.user_index(id) >= 0 || p.ctx.levels.empty() || p.ctx.levels.size() > models::kMaxPriorClasses)
    return false;
  std::vector<int64_t> follows;
  if (!follows_of(model, rows, id, follows)) return false;
  models::UserFold f;
  f.user = model.users();
  if (!new_user_row(model, rows, id, f) || !new_user_features(p, rows, id, f)) return false;
  for (const auto& m : p.members)
    if (!m->folds_users()) return false;
  const infer::ColdLists& c = model.cold_lists();
  out = UserUpdate{};
  out.base = &model;
  out.user = f.user;
  out.id = id;
  out.linked = std::move(follows);
  out.scores = c.row_among(out.linked);
  out.ranked_by = c.ranked_by_among(out.linked);
  out.ranks_by_rating = false;
  out.ratings = asked_ratings(p.members, f, model.items());
  return true;
}

}  // namespace

void TrainedModel::prepare_fold_ins() {
  for (const auto& m : parts().members) m->prepare_folds();
  if (users() > 0) training_ratings_of(0);
}

namespace infer {

bool fold_user(const TrainedModel& model, const Delta& rows, UserUpdate& out) {
  const infer::ModelParts& p = model.parts();
  // A new user's edges and one feature row of theirs; an item's rows grow the model.
  const auto user_edge = [](const Delta::Edge& e) { return e.side == NodeSide::users; };
  if (rows.ratings.empty() && !rows.edges.empty() &&
      std::all_of(rows.edges.begin(), rows.edges.end(), user_edge) && rows.features.size() <= 1)
    return fold_follows(model, rows, out);
  if (rows.ratings.empty() || !std::all_of(rows.edges.begin(), rows.edges.end(), user_edge) ||
      rows.features.size() > 1 ||
      (rows.features.size() == 1 && rows.features.front().side != NodeSide::users))
    return false;
  const std::string& id = rows.ratings.front().user;
  const int64_t known = model.user_index(id);
  if (known >= 0 && (!rows.edges.empty() || !rows.features.empty())) return false;
  const std::vector<float>& levels = p.ctx.levels;
  if (levels.empty() || levels.size() > models::kMaxPriorClasses) return false;

  models::UserFold f;
  f.user = known >= 0 ? known : model.users();
  const std::vector<int64_t> none;
  const std::vector<int64_t>& before = known >= 0 ? model.seen_items()[static_cast<size_t>(known)] : none;
  // The user's training ratings (a trained user's from the data), then the new ones.
  if (known >= 0) {
    const RatingList& train = p.ds.train;
    for (const int64_t at : model.training_ratings_of(known)) {
      const auto e = static_cast<size_t>(at);
      const auto level = std::lower_bound(levels.begin(), levels.end(), train.value[e]);
      if (level == levels.end() || *level != train.value[e]) return false;
      f.items.push_back(train.item[e]), f.values.push_back(train.value[e]);
      f.classes.push_back(level - levels.begin()), f.added.push_back(0);
    }
  }
  std::vector<int64_t> fresh;
  // check() took the values and pairs (on the scale, new to the user, each once): a value off
  // the priors' levels (a continuous target) or a new item is what the fold cannot place.
  for (const Delta::Rating& r : rows.ratings) {
    const int64_t i = model.item_index(r.item);
    const auto v = static_cast<float>(r.value);
    const auto level = std::lower_bound(levels.begin(), levels.end(), v);
    if (i < 0 || level == levels.end() || *level != v) return false;
    f.items.push_back(i), f.values.push_back(v), f.classes.push_back(level - levels.begin()),
        f.added.push_back(1);
    fresh.push_back(i);
  }
  std::sort(fresh.begin(), fresh.end());
  std::vector<int64_t> follows;  // a new user's, for the lists' user-graph terms
  if (known < 0) {
    if (!new_user_row(model, rows, id, f) || !new_user_features(p, rows, id, f) ||
        !follows_of(model, rows, id, follows))
      return false;
  }

  for (const auto& m : p.members)
    if (!m->folds_users()) return false;
  // A ranker that must grow (one whose kind does not score users from their rated items):
  // the door grows.
  if (p.ranker && !p.ranker->scores_from_rated_items()) return false;

  const int64_t n2 = model.items();
  out = UserUpdate{};
  out.base = &model;
  out.user = f.user;
  out.id = id;
  out.seen = before;
  out.seen.insert(out.seen.end(), fresh.begin(), fresh.end());
  std::sort(out.seen.begin(), out.seen.end());
  out.linked = follows;
  if (!p.ranker) {
    const at::Tensor rows = members_rows(p.members, f);
    const float* r = rows.data_ptr<float>();
    out.scores.assign(r, r + n2);
    std::vector<float> all(r + n2, r + 2 * n2);
    out.ratings = [all = std::move(all)](const std::vector<int64_t>& asked) {
      std::vector<float> v;
      for (const int64_t i : asked) v.push_back(all.at(static_cast<size_t>(i)));
      return v;
    };
    out.ranked_by = model.name();
    out.ranks_by_rating = p.members.front()->ranks_by_rating();
    return true;
  }
  // The network trained for ranking (infer/ranker_network_term.h): its row of a user it was
  // fitted on joins last; a new user has none.
  const bool network_term = p.ranker->network() != nullptr;
  // The ranker's row from the user's rated items (TrainedModel::with_new_nodes keeps the
  // ranker so); the members' ratings where asked: a list shows a few.
  if (known >= 0 && !before.empty() && p.ranker->linear_in_rated_items()) {
    // EASE's x W is linear in the rated items: a trained user's row as served (held where the
    // server cached its scores) plus the new items' rows, rather than the sum over every item a
    // heavy user rated. (A user who rated nothing before is served the model's own row.)
    out.scores = model.ranker_graph_term() || model.ranker_quality_term() || network_term
                     ? model.ranker_scores({known})
                     : model.score_all_items({known});
    const std::vector<float> added = p.ranker->rated_rows({fresh});
    for (int64_t j = 0; j < n2; ++j) out.scores[static_cast<size_t>(j)] += added[static_cast<size_t>(j)];
  } else {
    out.scores = p.ranker->rated_rows({out.seen});
  }
  out.ratings = asked_ratings(p.members, f, n2);
  out.ranked_by = p.ranker->name();
  if (model.ranker_graph_term()) {
    // The user graph's term (infer/ranker_graph_term.h): a known user's linked raters from the
    // graph, a new user's from the follows given (whom nobody follows yet: none where the term
    // reads who follows a user).
    const infer::ColdLists& c = model.cold_lists();
    const LinkDirection direction = link_direction_of(p.cfg.train.ranker_graph_direction);
    const std::vector<int64_t> linked =
        known >= 0 ? c.linked_raters(known, direction)
                   : (direction == LinkDirection::in && c.has_directions() ? std::vector<int64_t>{}
                                                                           : c.linked_raters_among(follows));
    const std::vector<float> term = c.linked_row(linked, p.cfg.train.ranker_graph_shrinkage);
    infer::mix_user_graph_term(out.scores.data(), term.data(), n2, p.cfg.train.ranker_graph_weight);
    const size_t count = linked.size();
    if (count > 0)
      out.ranked_by += " and the " + std::to_string(count) + (count == 1 ? " person" : " people") +
                       " linked in the user graph who rated";
  }
  if (model.ranker_quality_term()) {
    // The items' ratings (infer/ranker_quality_term.h): the same for every user.
    infer::add_item_quality_term(out.scores.data(), model.item_quality().data(), n2,
                                 p.cfg.train.ranker_quality_weight, model.ranker_graph_term());
    out.ranked_by += std::string(out.ranked_by == p.ranker->name() ? "" : ",") + " and the items' ratings";
  }
  if (network_term && known >= 0 && known < p.ranker->network()->users()) {
    p.ranker->mix_network(out.scores, {known}, n2, p.cfg.train.ranker_network_weight,
                          model.ranker_graph_term() || model.ranker_quality_term());
    out.ranked_by +=
        std::string(out.ranked_by == p.ranker->name() ? "" : ",") + " and the network trained for ranking";
  }
  out.ranks_by_rating = false;
  return true;
}

}  // namespace infer

}  // namespace symgnn
