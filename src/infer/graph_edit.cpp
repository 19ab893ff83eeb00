// Graph edits (symgnn/graph_edit.h) behind the door (symgnn/update.h): check_edits reads each
// edit against the graphs as the edits before it leave them; edited_model changes the graphs
// symmetrically and rebuilds the members on them (infer/model_parts.h).
#include "symgnn/graph_edit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>

#include "data/id_rule.h"
#include "data/parsers.h"
#include "data/text_reader.h"
#include "infer/edge_rows.h"
#include "infer/model_parts.h"
#include "infer/new_ratings.h"
#include "infer/update_parts.h"
#include "symgnn/error.h"
#include "symgnn/model_kinds.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"

namespace symgnn {

Delta::Edge graph_edit(const std::string& side, const std::string& op, std::string a, std::string b,
                       double weight) {
  if (side != "user" && side != "item")
    throw ConfigError("side " + data::quote(side) + ": must be user or item");
  if (op != "add" && op != "remove") throw ConfigError("op " + data::quote(op) + ": must be add or remove");
  return Delta::Edge(side == "user" ? NodeSide::users : NodeSide::items,
                     op == "add" ? EdgeOp::add : EdgeOp::remove, std::move(a), std::move(b), weight);
}

TrainedModel apply_graph_edits(const TrainedModel& model, const std::vector<Delta::Edge>& edits) {
  Delta delta;
  delta.edges = edits;
  return std::move(*apply(model, delta, Keep::model).model);
}

namespace infer {

namespace {

/// The graph edits' view of one side while they are checked: its nodes (the model's, then those
/// the edits create) and, for the pairs an edit touched, whether the edge is there now.
struct SideView {
  const NodeSet* side = nullptr;
  std::function<int64_t(const std::string&)> find;  // the model's index of an id, -1 where none
  std::vector<std::string> created;                 // ids an edit created, in order
  std::map<std::pair<int64_t, int64_t>, bool> touched;

  int64_t index(const std::string& id) const {
    const int64_t i = find(id);
    if (i >= 0) return i;
    const auto at = std::find(created.begin(), created.end(), id);
    return at == created.end() ? -1 : side->count + (at - created.begin());
  }
  /// Whether the edge (a, b) is in the graph as the edits so far leave it (either direction:
  /// the graph is symmetric).
  bool has_edge(int64_t a, int64_t b) const {
    const auto key = std::minmax(a, b);
    if (const auto it = touched.find(key); it != touched.end()) return it->second;
    const EdgeList& g = side->graph;
    for (size_t e = 0; e < g.size(); ++e)
      if ((g.src[e] == a && g.dst[e] == b) || (g.src[e] == b && g.dst[e] == a)) return true;
    return false;
  }
};

}  // namespace

void check_edits(const TrainedModel& model, const std::vector<Delta::Edge>& edits) {
  const infer::ModelParts& parts = model.parts();
  const ModelKind& kind = model_kind(parts.cfg.model);
  SideView users{&parts.ds.users, [&model](const std::string& id) { return model.user_index(id); }, {}, {}};
  SideView items{&parts.ds.items, [&model](const std::string& id) { return model.item_index(id); }, {}, {}};
  for (size_t k = 0; k < edits.size(); ++k) {
    const Delta::Edge& e = edits[k];
    const std::string at = "edits[" + std::to_string(k) + "]: ";
    const bool user_side = e.side == NodeSide::users;
    const std::string side_name = side_word(e.side);
    SideView& view = user_side ? users : items;
    const NodeSet& side = *view.side;
    // The lists read the user graph where its term joins the ranker's (infer/ranker_graph_term.h),
    // also beside a kind that reads none.
    const bool kind_reads = kind_reads_graph(kind, side_name);
    if (!kind_reads && !(user_side && (model.ranker_graph_term() || model.lists_cold())))
      throw ConfigError(at + "model = " + parts.cfg.model + " reads no " + side_name + " graph");
    if (side.graph_origin == GraphOrigin::Identity || side.graph_origin == GraphOrigin::None)
      throw ConfigError(at + "the model uses no " + side_name + " graph (graph." + side_name +
                        "_graph = identity): there is no graph to edit");
    if (kind.fit == FitMethod::closed_form && kind_reads)
      throw ConfigError(at + "model = " + parts.cfg.model +
                        " keeps scores solved on its graphs: an edited graph needs a new fit (symgnn train)");
    const bool add = e.op == EdgeOp::add;
    if (e.create && !add) throw ConfigError(at + "create: only an edge added creates a node");
    if (!e.features.empty()) {
      if (!e.create) throw ConfigError(at + "features: only for the node an edit creates (set create)");
      if (side.features.empty())
        throw ConfigError(at + "features: the model's " + side_name + "s have no side features");
      if (static_cast<int64_t>(e.features.size()) != side.features.cols)
        throw ConfigError(at + "features: " + std::to_string(e.features.size()) + " value(s); the model's " +
                          side_name + " features have " + std::to_string(side.features.cols));
      for (const double v : e.features)
        if (!std::isfinite(static_cast<float>(v))) throw ConfigError(at + "features: a value is not finite");
      if (view.index(e.a) >= 0)
        throw ConfigError(at + "features: " + data::quote(e.a) + " is already " +
                          (user_side ? "a user" : "an item") +
                          " (features are for the node the edit creates, its end a)");
    }
    if (e.a.empty() || e.b.empty()) throw ConfigError(at + "an empty " + side_name + " id");
    if (e.a == e.b)
      throw ConfigError(at + "(" + data::quote(e.a) + ", " + data::quote(e.b) + ") is a self-loop");
    // Compared as stored (float32): 1e-300 is above 0 as a double and 0 as the graph holds it.
    if (add && (!std::isfinite(static_cast<float>(e.weight)) || !(static_cast<float>(e.weight) > 0)))
      throw ConfigError(at + "weight " + data::number_text(e.weight) +
                        ": must be finite and above 0 (as a 32-bit float, which the graph holds)");
    const auto node = [&](const std::string& id) {
      int64_t i = view.index(id);
      if (i >= 0) return i;
      if (!e.create)
        throw ConfigError(at + data::quote(id) + " is no " + side_name + " of the model" +
                          (add ? " (set create to add it as a new " + side_name + ")" : std::string()));
      // The one id rule (data/id_rule.h): a node created here is written by export and the
      // lists as any other.
      if (const std::string bad = data::id_problem(id); !bad.empty())
        throw ConfigError(at + data::id_refusal(side_name, id, bad));
      view.created.push_back(id);
      return view.index(id);
    };
    const int64_t a = node(e.a), b = node(e.b);
    if (!add && !view.has_edge(a, b))
      throw ConfigError(at + "no edge (" + data::quote(e.a) + ", " + data::quote(e.b) + ") in the " +
                        side_name + " graph to remove");
    view.touched[std::minmax(a, b)] = add;
  }
}

TrainedModel edited_model(const TrainedModel& model, const std::vector<Delta::Edge>& edits) {
  const infer::ModelParts& parts = model.parts();
  Dataset ds = parts.ds;
  data::IdIndex users = data::id_index(ds.users), items = data::id_index(ds.items);
  for (const Delta::Edge& e : edits) {
    const bool user_side = e.side == NodeSide::users;
    NodeSet& side = user_side ? ds.users : ds.items;
    data::IdIndex& index = user_side ? users : items;
    // check_edits took every id: an unknown one is a node this edit creates.
    const auto node = [&](const std::string& id) {
      int64_t i = index.find(id);
      if (i >= 0) return i;
      i = index.add(id);
      infer::grow_side(side, index);
      if (id == e.a)  // its features, where given (zeros else)
        for (size_t c = 0; c < e.features.size(); ++c)
          side.features.values[static_cast<size_t>(i * side.features.cols) + c] =
              static_cast<float>(e.features[c]);
      return i;
    };
    const int64_t a = node(e.a), b = node(e.b);
    // A directed graph keeps the edit's direction too (a follows b); removing the pair
    // removes both directions, as from the graph the models read.
    EdgeList& links = side.directed;
    if (e.op == EdgeOp::add) {
      infer::set_pair(side.graph.src, side.graph.dst, side.graph.weight, a, b, static_cast<float>(e.weight));
      if (links.size() > 0)
        infer::set_link(links.src, links.dst, links.weight, a, b, static_cast<float>(e.weight));
    } else {
      infer::remove_pairs(side.graph.src, side.graph.dst, side.graph.weight, a, b, true);
      if (links.size() > 0) infer::remove_pairs(links.src, links.dst, links.weight, a, b, true);
    }
    links.num_nodes = links.size() > 0 ? side.count : 0;
  }
  // The same nodes: only the graphs change (their receptive field recomputed); nodes created:
  // every member grown and computed anew.
  if (ds.users.count == parts.ctx.n1 && ds.items.count == parts.ctx.n2)
    return TrainedModel(infer::regraphed_parts(parts, std::move(ds)));
  return TrainedModel(infer::rebuilt_parts(parts, std::move(ds)));
}

}  // namespace infer

}  // namespace symgnn
