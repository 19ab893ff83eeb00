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

TrainedModel apply_graph_edits(const TrainedModel& model, const std::vector<GraphEdit>& edits) {
  const infer::ModelParts& parts = model.parts();
  const ModelKind& kind = model_kind(parts.cfg.model);
  Dataset ds = parts.ds;
  data::IdIndex users = data::id_index(ds.users), items = data::id_index(ds.items);
  for (size_t k = 0; k < edits.size(); ++k) {
    const GraphEdit& e = edits[k];
    const std::string at = "edits[" + std::to_string(k) + "]: ";
    if (e.side != "user" && e.side != "item")
      throw ConfigError(at + "side " + data::quote(e.side) + ": must be user or item");
    if (e.op != "add" && e.op != "remove")
      throw ConfigError(at + "op " + data::quote(e.op) + ": must be add or remove");
    NodeSet& side = e.side == "user" ? ds.users : ds.items;
    // The lists read the user graph where its term joins the ranker's (infer/ranker_graph_term.h),
    // also beside a kind that reads none.
    const bool kind_reads = kind_reads_graph(kind, e.side);
    if (!kind_reads && !(e.side == "user" && model.ranker_graph_term()))
      throw ConfigError(at + "model = " + parts.cfg.model + " reads no " + e.side + " graph");
    if (side.graph_origin == GraphOrigin::Identity || side.graph_origin == GraphOrigin::None)
      throw ConfigError(at + "the model uses no " + e.side + " graph (graph." + e.side +
                        "_graph = identity): there is no graph to edit");
    if (kind.fit == FitMethod::closed_form && kind_reads)
      throw ConfigError(at + "model = " + parts.cfg.model +
                        " keeps scores solved on its graphs: an edited graph needs a new fit (symgnn train)");
    if (e.create && e.op != "add") throw ConfigError(at + "create: only an edge added creates a node");
    if (!e.features.empty()) {
      if (!e.create) throw ConfigError(at + "features: only for the node an edit creates (set create)");
      if (side.features.empty())
        throw ConfigError(at + "features: the model's " + e.side + "s have no side features");
      if (static_cast<int64_t>(e.features.size()) != side.features.cols)
        throw ConfigError(at + "features: " + std::to_string(e.features.size()) + " value(s); the model's " +
                          e.side + " features have " + std::to_string(side.features.cols));
      for (const double v : e.features)
        if (!std::isfinite(static_cast<float>(v))) throw ConfigError(at + "features: a value is not finite");
      if ((e.side == "user" ? users : items).find(e.a) >= 0)
        throw ConfigError(at + "features: " + data::quote(e.a) + " is already " +
                          (e.side == "user" ? "a user" : "an item") +
                          " (features are for the node the edit creates, its end a)");
    }
    data::IdIndex& index = e.side == "user" ? users : items;
    if (e.a.empty() || e.b.empty()) throw ConfigError(at + "an empty " + e.side + " id");
    if (e.a == e.b)
      throw ConfigError(at + "(" + data::quote(e.a) + ", " + data::quote(e.b) + ") is a self-loop");
    // Compared as stored (float32): 1e-300 is above 0 as a double and 0 as the graph holds it.
    if (e.op == "add" &&
        (!std::isfinite(static_cast<float>(e.weight)) || !(static_cast<float>(e.weight) > 0)))
      throw ConfigError(at + "weight " + data::number_text(e.weight) +
                        ": must be finite and above 0 (as a 32-bit float, which the graph holds)");
    const auto node = [&](const std::string& id) {
      int64_t i = index.find(id);
      if (i >= 0) return i;
      if (!e.create)
        throw ConfigError(
            at + data::quote(id) + " is no " + e.side + " of the model" +
            (e.op == "add" ? " (set create to add it as a new " + e.side + ")" : std::string()));
      // The one id rule (data/id_rule.h): a node created here is written by export and the
      // lists as any other.
      if (const std::string bad = data::id_problem(id); !bad.empty())
        throw ConfigError(at + data::id_refusal(e.side, id, bad));
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
    if (e.op == "add") {
      infer::set_pair(side.graph.src, side.graph.dst, side.graph.weight, a, b, static_cast<float>(e.weight));
      if (links.size() > 0)
        infer::set_link(links.src, links.dst, links.weight, a, b, static_cast<float>(e.weight));
    } else if (!infer::remove_pairs(side.graph.src, side.graph.dst, side.graph.weight, a, b, true)) {
      throw ConfigError(at + "no edge (" + data::quote(e.a) + ", " + data::quote(e.b) + ") in the " + e.side +
                        " graph to remove");
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
