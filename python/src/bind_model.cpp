// symgnn._core's TrainedModel (bindings.h): a model loaded from its directory or fitted,
// with new users' rows in memory, and everything asked of it (predict, recommend, rank,
// evaluate, similar, explain, graph edits, save); and reading a file symgnn wrote.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bindings.h"
#include "fit/evaluation_json.h"
#include "infer/unseen_test.h"
#include "symgnn/config.h"
#include "symgnn/error.h"
#include "symgnn/explain.h"
#include "symgnn/graph_edit.h"
#include "symgnn/item_filter.h"
#include "symgnn/model_dir.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"
#include "util/checksum.h"
#include "util/json_text.h"

namespace py = pybind11;
using namespace symgnn;

namespace {

/// A side of the rating matrix by its Python name, "users" or "items".
NodeSide node_side(const std::string& side) {
  if (side == "users") return NodeSide::users;
  if (side == "items") return NodeSide::items;
  throw ConfigError("side must be users or items, got '" + side + "'");
}

std::vector<int64_t> as_indices(const py::array_t<int64_t, py::array::c_style | py::array::forcecast>& a) {
  return std::vector<int64_t>(a.data(), a.data() + a.size());
}

/// (user, item, rating) triples as Python passes new ratings in memory (symgnn/model.py).
using RatingRows = std::vector<std::tuple<std::string, std::string, double>>;

std::vector<Delta::Rating> new_rating_rows(const RatingRows& rows) {
  std::vector<Delta::Rating> out;
  out.reserve(rows.size());
  for (const auto& [user, item, rating] : rows) out.push_back({user, item, rating});
  return out;
}

/// A new user's graph edges (user, neighbour, weight) and feature rows (user, values), as
/// Python passes them in memory (symgnn/_new_ratings.py), into `nodes`.
using EdgeRows = std::vector<std::tuple<std::string, std::string, double>>;
using FeatureRows = std::vector<std::pair<std::string, std::vector<double>>>;

void add_user_rows(Delta& rows, const EdgeRows& edges, const FeatureRows& features) {
  for (const auto& [a, b, w] : edges) rows.edges.emplace_back(a, b, w);
  for (const auto& [id, values] : features) rows.features.emplace_back(id, values);
  rows.edges_name = "edges";
  rows.features_name = "features";
}

/// The change Python gives in memory: ratings rows named `rows_name`, a new user's edges and features.
Delta delta_of(const RatingRows& rows, const std::string& rows_name, const EdgeRows& edges,
               const FeatureRows& features) {
  Delta d;
  d.ratings = new_rating_rows(rows);
  d.ratings_name = rows_name;
  add_user_rows(d, edges, features);
  return d;
}

}  // namespace

/// The original ids of a side, in index order.
std::vector<std::string> ids_of(const NodeSet& side) {
  std::vector<std::string> v;
  v.reserve(static_cast<size_t>(side.count));
  for (int64_t k = 0; k < side.count; ++k) v.push_back(side.id_of(k));
  return v;
}

void bind_model(py::module_& m) {
  m.def(
      "read_verified_file", [](const std::string& path) { return py::bytes(read_verified_file(path)); },
      py::arg("path"),
      "a file symgnn wrote, checked against its folder's checksums.sha256 (src/util/checksum.h)");

  py::class_<ModelHandle>(m, "TrainedModel")
      .def(py::init([](const std::string& path, const std::string& device, const std::string& ratings,
                       const std::string& user_graph, const std::string& item_graph,
                       const std::string& user_features, const std::string& item_features,
                       const RatingRows& rows, const std::string& rows_name, bool verbose,
                       const EdgeRows& user_edge_rows, const FeatureRows& user_feature_rows) {
             NewNodeFiles files;
             files.ratings = ratings;
             files.user_graph_file = user_graph;
             files.item_graph_file = item_graph;
             files.user_features_file = user_features;
             files.item_features_file = item_features;
             const Delta delta = delta_of(rows, rows_name, user_edge_rows, user_feature_rows);
             (void)verbose;  // loading prints nothing: kept for the callers that pass it
             py::gil_scoped_release release;
             return std::make_unique<ModelHandle>(TrainedModel::load(path, device, files, delta));
           }),
           py::arg("path"), py::arg("device") = "cpu", py::arg("new_ratings") = "",
           py::arg("new_user_graph") = "", py::arg("new_item_graph") = "", py::arg("new_user_features") = "",
           py::arg("new_item_features") = "", py::arg("rows") = RatingRows{},
           py::arg("rows_name") = "new ratings", py::arg("verbose") = true,
           py::arg("user_edge_rows") = EdgeRows{}, py::arg("user_feature_rows") = FeatureRows{})
      .def(
          "with_new_ratings",
          [](const ModelHandle& h, const RatingRows& rows, const std::string& rows_name,
             const EdgeRows& user_edge_rows, const FeatureRows& user_feature_rows) {
            const Delta delta = delta_of(rows, rows_name, user_edge_rows, user_feature_rows);
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(h.busy);
            return std::make_unique<ModelHandle>(std::move(*apply(h.model, delta, Keep::model).model));
          },
          py::arg("rows"), py::arg("rows_name") = "new ratings", py::arg("user_edge_rows") = EdgeRows{},
          py::arg("user_feature_rows") = FeatureRows{},
          "this model grown by (user, item, rating) rows of new users, from the weights in memory "
          "(the door, symgnn/update.h)")
      .def(
          "recommend_new_user",
          [](const ModelHandle& h, const RatingRows& rows, const std::string& rows_name,
             const EdgeRows& edges, const FeatureRows& features, int64_t k, bool include_seen) {
            const Delta delta = delta_of(rows, rows_name, edges, features);
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(h.busy);
            // The same function as serve's new users: folded in where the members can, else grown.
            const UserUpdate user = std::move(*apply(h.model, delta, Keep::user).user);
            RecommendOptions ro;
            ro.k = k;
            ro.include_seen = include_seen;
            const UserRecommendations r = recommend(user, ro);
            std::vector<std::string> items;
            for (const int64_t i : r.items) items.push_back(user.model().dataset().items.id_of(i));
            return std::make_tuple(items, r.scores, short_list_note(r, user.id, k, ""));
          },
          py::arg("rows"), py::arg("rows_name"), py::arg("edges"), py::arg("features"), py::arg("k"),
          py::arg("include_seen"),
          "one user's list from their rows in memory (apply(..., Keep::user), symgnn/update.h): item ids, "
          "predicted ratings and the note of a short list")
      .def(
          "save",
          [](const ModelHandle& h, const std::string& path, const std::string& metrics_json) {
            ModelDirFiles files;
            files.metrics_json = metrics_json;
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(h.busy);
            return save_model_dir(h.model, path, files);
          },
          py::arg("path"), py::arg("metrics_json") = "",
          "this model (as fitted) written as a model directory (symgnn/model_dir.h); the files written")
      .def_property_readonly("users", [](const ModelHandle& h) { return h.model.users(); })
      .def_property_readonly("items", [](const ModelHandle& h) { return h.model.items(); })
      .def_property_readonly("name", [](const ModelHandle& h) { return h.model.name(); })
      .def_property_readonly("rating_min", [](const ModelHandle& h) { return h.model.rating_min(); })
      .def_property_readonly("rating_max", [](const ModelHandle& h) { return h.model.rating_max(); })
      .def_property_readonly("global_mean", [](const ModelHandle& h) { return h.model.global_mean(); })
      .def("config_text",
           [](const ModelHandle& h) {
             RunConfig c = h.model.config();
             return to_text(c);
           })
      .def("user_ids", [](const ModelHandle& h) { return ids_of(h.model.dataset().users); })
      .def("item_ids", [](const ModelHandle& h) { return ids_of(h.model.dataset().items); })
      .def("seen_items",
           [](const ModelHandle& h, int64_t u) { return h.model.seen_items().at(static_cast<size_t>(u)); })
      .def("predict",
           [](const ModelHandle& h,
              const py::array_t<int64_t, py::array::c_style | py::array::forcecast>& users,
              const py::array_t<int64_t, py::array::c_style | py::array::forcecast>& items) {
             const std::vector<int64_t> u = as_indices(users), i = as_indices(items);
             std::vector<float> p;
             {
               py::gil_scoped_release release;
               std::lock_guard<std::mutex> lock(h.busy);
               p = h.model.predict(u, i);
             }
             return py::array_t<float>(p.size(), p.data());
           })
      .def(
          "fallback",
          [](const ModelHandle& h,
             const py::array_t<int64_t, py::array::c_style | py::array::forcecast>& users,
             const py::array_t<int64_t, py::array::c_style | py::array::forcecast>& items,
             const std::string& policy) {
            // infer/unseen_test.h's fallback of evaluate and `predict --unknown` (index -1: no node).
            const std::vector<int64_t> u = as_indices(users), i = as_indices(items);
            const infer::Fallback fallback(h.model.dataset(), h.model.global_mean(), policy);
            std::vector<float> p(u.size());
            for (size_t k = 0; k < u.size(); ++k) p[k] = fallback(u[k], i[k]);
            return py::array_t<float>(p.size(), p.data());
          },
          py::arg("users"), py::arg("items"), py::arg("policy"),
          "ratings of pairs with an unknown id (-1) by the fallback `policy` (data.unknown_test)")
      .def(
          "recommend",
          [](const ModelHandle& h,
             const py::array_t<int64_t, py::array::c_style | py::array::forcecast>& users, int64_t k,
             bool include_seen, const std::vector<std::string>& exclude,
             const std::vector<std::pair<std::string, std::string>>& exclude_for, bool has_items,
             const std::vector<std::string>& items,
             const std::vector<std::pair<std::string, std::string>>& where,
             const std::string& item_attributes) {
            const std::vector<int64_t> u = as_indices(users);
            RecommendOptions ro;
            ro.k = k;
            ro.include_seen = include_seen;
            // The filter by ids (symgnn/item_filter.h), named by the keyword arguments.
            ItemFilterSpec spec;
            spec.exclude = exclude;
            spec.exclude_for = exclude_for;
            spec.has_items = has_items;
            spec.items = items;
            spec.where = where;
            spec.where_name = "where";
            spec.attributes_name = "item_attributes=, a file of item attributes";
            std::vector<UserRecommendations> r;
            {
              py::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(h.busy);
              ItemAttributes attributes;
              if (!item_attributes.empty()) attributes = read_item_attributes(item_attributes);
              ro.filter = make_item_filter(h.model, spec, &attributes);
              r = recommend(h.model, u, ro);
            }
            // Each list with its note: "" for k items, else why it is shorter.
            py::list out;
            for (const auto& x : r)
              out.append(py::make_tuple(
                  x.user, x.items, x.scores,
                  short_list_note(x, h.model.dataset().users.id_of(x.user), k, ro.filter.what)));
            return out;
          },
          py::arg("users"), py::arg("k"), py::arg("include_seen"),
          py::arg("exclude") = std::vector<std::string>{},
          py::arg("exclude_for") = std::vector<std::pair<std::string, std::string>>{},
          py::arg("has_items") = false, py::arg("items") = std::vector<std::string>{},
          py::arg("where") = std::vector<std::pair<std::string, std::string>>{},
          py::arg("item_attributes") = "")
      .def(
          "rank",
          [](const ModelHandle& h, int64_t user, const std::vector<int64_t>& items) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(h.busy);
            const UserRecommendations r = rank_items(h.model, user, items);
            return std::make_pair(r.items, r.scores);
          },
          py::arg("user"), py::arg("items"), "the candidates of one user in the model's order (rank_items)")
      .def("evaluate",
           [](const ModelHandle& h, const std::vector<int64_t>& ks, double relevant_min, bool popularity) {
             EvaluateOptions eo;
             eo.ks = ks;
             eo.relevant_min = relevant_min;
             Evaluation ev;
             {
               py::gil_scoped_release release;
               std::lock_guard<std::mutex> lock(h.busy);
               ev = popularity ? evaluate_popularity(h.model, eo) : evaluate(h.model, eo);
             }
             return json_text(fitting::evaluation_json(ev));
           })
      .def("similar",
           [](const ModelHandle& h, const std::string& side, int64_t index, int64_t k) {
             const NodeSide s = node_side(side);
             std::vector<SimilarNode> near;
             {
               py::gil_scoped_release release;
               std::lock_guard<std::mutex> lock(h.busy);
               near = h.model.similar(s, index, k);
             }
             py::list out;
             for (const SimilarNode& n : near) out.append(py::make_tuple(n.index, n.similarity));
             return out;
           })
      .def(
          "edit_graph",
          [](const ModelHandle& h, const GraphEditRows& rows) {
            const std::vector<Delta::Edge> edits = graph_edits_of(rows);
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(h.busy);
            return std::make_unique<ModelHandle>(apply_graph_edits(h.model, edits));
          },
          py::arg("edits"),
          "this model with (side, op, a, b, weight, create, features) graph edits applied "
          "(symgnn/graph_edit.h)")
      .def(
          "explain",
          [](const ModelHandle& h, int64_t user, int64_t item, const std::string& target, int64_t top,
             int64_t candidates) {
            ExplainOptions eo;
            eo.target = target;
            eo.top = top;
            eo.candidates = candidates;
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(h.busy);
            return explanation_json(explain(h.model, user, item, eo)).dump();
          },
          py::arg("user"), py::arg("item"), py::arg("target"), py::arg("top"), py::arg("candidates"),
          "why the model scores the item for the user (symgnn/explain.h), as JSON text")
      .def("similarity_basis",
           [](const ModelHandle& h, const std::string& side) {
             const NodeSide s = node_side(side);
             // The first call computes the representations (a forward pass): no GIL.
             py::gil_scoped_release release;
             std::lock_guard<std::mutex> lock(h.busy);
             return h.model.similarity_basis(s);
           })
      .def("new_nodes", [](const ModelHandle& h) {
        const NewRatingsSummary& s = h.model.new_ratings();
        py::dict d;
        d["ratings"] = s.ratings;
        d["new_users"] = s.new_users;
        d["new_items"] = s.new_items;
        d["user_edges"] = s.user_edges;
        d["item_edges"] = s.item_edges;
        d["user_features"] = s.user_features;
        d["item_features"] = s.item_features;
        return d;
      });
}
