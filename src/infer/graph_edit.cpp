// apply_graph_edits (symgnn/graph_edit.h): each edit checked against the model's data, the
// graphs changed symmetrically, the members rebuilt on them (infer/model_parts.h).
#include "symgnn/graph_edit.h"

#include <cmath>

#include "data/id_rule.h"
#include "data/parsers.h"
#include "data/text_reader.h"
#include "infer/edge_rows.h"
#include "infer/model_parts.h"
#include "infer/new_ratings.h"
#include "symgnn/error.h"
#include "symgnn/model_kinds.h"
#include "symgnn/trained_model.h"

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
  const infer::ModelParts& parts = model.parts();
  const ModelKind& kind = model_kind(parts.cfg.model);
  Dataset ds = parts.ds;
  data::IdIndex users = data::id_index(ds.users), items = data::id_index(ds.items);
  for (size_t k = 0; k < edits.size(); ++k) {
    const Delta::Edge& e = edits[k];
    const std::string at = "edits[" + std::to_string(k) + "]: ";
    const bool user_side = e.side == NodeSide::users;
    const std::string side_name = side_word(e.side);
    NodeSet& side = user_side ? ds.users : ds.items;
    // The lists read the user graph where its term joins the ranker's (infer/ranker_graph_term.h),
    // also beside a kind that reads none.
    const bool kind_reads = kind_reads_graph(kind, side_name);
    if (!kind_reads && !(user_side && model.ranker_graph_term()))
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
      if ((user_side ? users : items).find(e.a) >= 0)
        throw ConfigError(at + "features: " + data::quote(e.a) + " is already " +
                          (user_side ? "a user" : "an item") +
                          " (features are for the node the edit creates, its end a)");
    }
    data::IdIndex& index = user_side ? users : items;
    if (e.a.empty() || e.b.empty()) throw ConfigError(at + "an empty " + side_name + " id");
    if (e.a == e.b)
      throw ConfigError(at + "(" + data::quote(e.a) + ", " + data::quote(e.b) + ") is a self-loop");
    // Compared as stored (float32): 1e-300 is above 0 as a double and 0 as the graph holds it.
    if (add && (!std::isfinite(static_cast<float>(e.weight)) || !(static_cast<float>(e.weight) > 0)))
      throw ConfigError(at + "weight " + data::number_text(e.weight) +
                        ": must be finite and above 0 (as a 32-bit float, which the graph holds)");
    const auto node = [&](const std::string& id) {
      int64_t i = index.find(id);
      if (i >= 0) return i;
      if (!e.create)
        throw ConfigError(at + data::quote(id) + " is no " + side_name + " of the model" +
                          (add ? " (set create to add it as a new " + side_name + ")" : std::string()));
      // The one id rule (data/id_rule.h): a node created here is written by export and the
      // lists as any other.
      if (const std::string bad = data::id_problem(id); !bad.empty())
        throw ConfigError(at + data::id_refusal(side_name, id, bad));
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
    if (add) {
      infer::set_pair(side.graph.src, side.graph.dst, side.graph.weight, a, b, static_cast<float>(e.weight));
      if (links.size() > 0)
        infer::set_link(links.src, links.dst, links.weight, a, b, static_cast<float>(e.weight));
    } else if (!infer::remove_pairs(side.graph.src, side.graph.dst, side.graph.weight, a, b, true)) {
      throw ConfigError(at + "no edge (" + data::quote(e.a) + ", " + data::quote(e.b) + ") in the " +
                        side_name + " graph to remove");
    } else if (links.size() > 0) {
      infer::remove_pairs(links.src, links.dst, links.weight, a, b, true);
    }
    links.num_nodes = links.size() > 0 ? side.count : 0;
  }
  // The same nodes: only the graphs change (their receptive field recomputed); nodes created:
  // every member grown and computed anew.
  if (ds.users.count == parts.ctx.n1 && ds.items.count == parts.ctx.n2)
    return TrainedModel(infer::regraphed_parts(parts, std::move(ds)));
  return TrainedModel(infer::rebuilt_parts(parts, std::move(ds)));
}

}  // namespace symgnn
