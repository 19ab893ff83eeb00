// symgnn._core: the Python package's thin binding of the C++ library (python/symgnn/).
// Nothing is implemented twice: training is the library's one run, symgnn::fit
// (symgnn/fit.h), as the CLI's `train` runs it, so a model directory written from Python is
// the CLI's; prediction, ranking, similarity and evaluation are symgnn/trained_model.h and
// symgnn/recommend.h; the parameter table is the config's field list (symgnn/config.h).
// The GIL is released while C++ works; a fit's epoch callback (symgnn/progress.h) takes it
// back once per epoch to report progress and to check for Ctrl-C. The library prints
// nothing, so nothing is silenced; fits take turns (fit_mutex), calls on one model take
// turns (ModelHandle), and everything else runs concurrently.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/types.h>

#include <filesystem>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "fit/evaluation_json.h"
#include "fit/mlflow_run.h"
#include "infer/graph_journal.h"
#include "infer/unseen_test.h"
#include "models/sylvester/sylvester.h"
#include "runtime/runtime.h"
#include "symgnn/config.h"
#include "symgnn/data_rows.h"
#include "symgnn/error.h"
#include "symgnn/explain.h"
#include "symgnn/fit.h"
#include "symgnn/graph.h"
#include "symgnn/graph_edit.h"
#include "symgnn/item_filter.h"
#include "symgnn/model_dir.h"
#include "symgnn/model_kinds.h"
#include "symgnn/progress.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"
#include "tune/space.h"
#include "util/checksum.h"
#include "util/json_text.h"

namespace py = pybind11;
namespace fs = std::filesystem;
using namespace symgnn;

namespace {

/// Fits take turns: LibTorch's CPU random generator is process-wide, and a fit draws its
/// seeds' numbers from it (initial weights, dropout masks, sampled negatives), so two fits
/// at once would interleave their draws and neither would equal the same fit alone.
/// Everything else (loading, predicting, ranking, evaluating) runs concurrently, one call
/// at a time per model (ModelHandle). Taken after the GIL is released (a fit's epoch
/// callback takes the GIL back while holding it), so other Python threads run meanwhile.
std::mutex& fit_mutex() {
  static std::mutex m;
  return m;
}

/// A trained model and the lock of its calls: a model with several saved weight sets swaps
/// them into one network while it predicts, so calls on one model take turns.
struct ModelHandle {
  TrainedModel model;
  mutable std::mutex busy;
  explicit ModelHandle(TrainedModel m) : model(std::move(m)) {}
};

/// One row per config key: what the Python parameters are generated from.
py::list config_fields(const std::string& preset) {
  RunConfig cfg = preset_config(preset);
  py::list out;
  cfg.visit_sections([&](const char* section, auto& sec) {
    sec.visit([&](const char* name, auto& field, const char* doc, Check check) {
      using T = std::decay_t<decltype(field)>;
      py::dict row;
      row["key"] = std::string(section) + "." + name;
      row["section"] = section;
      row["name"] = name;
      row["doc"] = doc;
      if constexpr (std::is_same_v<T, bool>)
        row["type"] = "bool";
      else if constexpr (std::is_integral_v<T>)
        row["type"] = "int";
      else if constexpr (std::is_floating_point_v<T>)
        row["type"] = "float";
      else
        row["type"] = "str";
      row["default"] = field;
      row["min"] = check.min;
      row["max"] = check.max;
      row["choices"] = std::string(check.choices);
      out.append(row);
    });
  });
  return out;
}

/// The configuration a fit would use, as `key = value` text: the preset, the config file,
/// then the assignments; every value checked (ConfigError names the key).
std::string resolve_config(const std::string& preset, const std::string& config_file,
                           const std::vector<std::string>& sets, const std::string& variant) {
  RunConfig cfg = start_config(preset, config_file);
  for (const auto& s : sets) apply_override(cfg, s);
  if (!variant.empty()) set_variant(cfg, variant, "variant");
  check_config(cfg);
  return to_text(cfg);
}

/// Ratings, graphs and features by original ids, as Python passes arrays (symgnn/dataset.py):
/// what symgnn/data_rows.h reads as a ratings source's files.
using IdList = std::vector<std::string>;
using Numbers = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::vector<double> numbers(const Numbers& a, const char* what) {
  if (a.ndim() != 1) throw ConfigError(std::string(what) + ": expected a 1-d array of numbers");
  return std::vector<double>(a.data(), a.data() + a.size());
}

/// One side's edges and feature rows into `rows`: edges (a, b, weights) where `has_graph`;
/// feature rows (ids, an n x p matrix) where ids are given.
void side_rows(bool has_graph, const IdList& a, const IdList& b, const Numbers& w, const IdList& feature_ids,
               const Numbers& features, bool& rows_has_graph, std::vector<Delta::Edge>& edges,
               std::vector<Delta::Features>& feature_rows, const char* side) {
  rows_has_graph = has_graph;
  const std::vector<double> weights = numbers(w, side);
  if (a.size() != b.size() || a.size() != weights.size())
    throw ConfigError(std::string(side) + " graph: the edges' ends and weights differ in length");
  for (size_t k = 0; k < a.size(); ++k) edges.emplace_back(a[k], b[k], weights[k]);
  if (feature_ids.empty()) return;
  if (features.ndim() != 2 || static_cast<size_t>(features.shape(0)) != feature_ids.size())
    throw ConfigError(std::string(side) + " features: expected one row per id (" +
                      std::to_string(feature_ids.size()) + ")");
  const auto cols = static_cast<size_t>(features.shape(1));
  for (size_t r = 0; r < feature_ids.size(); ++r)
    feature_rows.emplace_back(
        feature_ids[r], std::vector<double>(features.data() + r * cols, features.data() + (r + 1) * cols));
}

/// A Python dict of arrays (symgnn/dataset.py, Dataset._rows) as DataRows.
DataRows data_rows(const py::dict& d) {
  DataRows rows;
  rows.name = d["name"].cast<std::string>();
  rows.users = d["users"].cast<IdList>();
  rows.items = d["items"].cast<IdList>();
  rows.ratings = numbers(d["ratings"].cast<Numbers>(), "ratings");
  rows.has_test = d["has_test"].cast<bool>();
  rows.test_users = d["test_users"].cast<IdList>();
  rows.test_items = d["test_items"].cast<IdList>();
  rows.test_ratings = numbers(d["test_ratings"].cast<Numbers>(), "test ratings");
  side_rows(d["has_user_graph"].cast<bool>(), d["user_edge_a"].cast<IdList>(),
            d["user_edge_b"].cast<IdList>(), d["user_edge_w"].cast<Numbers>(),
            d["user_feature_ids"].cast<IdList>(), d["user_features"].cast<Numbers>(), rows.has_user_graph,
            rows.user_edges, rows.user_features, "user");
  side_rows(d["has_item_graph"].cast<bool>(), d["item_edge_a"].cast<IdList>(),
            d["item_edge_b"].cast<IdList>(), d["item_edge_w"].cast<Numbers>(),
            d["item_feature_ids"].cast<IdList>(), d["item_features"].cast<Numbers>(), rows.has_item_graph,
            rows.item_edges, rows.item_features, "item");
  return rows;
}

/// symgnn::fit (symgnn/fit.h) of a config text, the GIL released; `on_epoch(dict)` once per
/// epoch with the GIL held (it may raise, e.g. KeyboardInterrupt from the signal check, to
/// stop). `rows` (a dict of arrays, or None): the data in memory (symgnn/data_rows.h) instead of
/// the files the config names; nothing is written unless `out` names a model directory.
/// `on_line(str)`: where the run's lines and its summary go with `verbose` (the GIL held; the
/// Python package's `symgnn` logger); None: standard error and output.
/// Returns the fitted model (FitResult::model, in memory) and metrics.json's text.
py::tuple fit_config(const std::string& config_text, const std::string& out, bool overwrite, bool verbose,
                     py::object on_epoch, py::object rows, py::object on_line,
                     const std::string& mlflow_dir) {
  RunConfig cfg;
  load_config_text(cfg, config_text, "config");
  std::optional<DataRows> in_memory;
  if (!rows.is_none()) in_memory = data_rows(rows.cast<py::dict>());
  // A borrowed handle: `on_epoch` outlives the call, and the callback is copied and
  // destroyed without the GIL, so it must own no Python reference.
  const py::handle callback = on_epoch;
  auto report = [callback](const ProgressEvent& e) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (callback.is_none()) return;
    py::dict d;
    d["run"] = e.run;
    d["runs"] = e.runs;
    d["epoch"] = e.epoch;
    d["max_epochs"] = e.max_epochs;
    d["loss"] = e.loss;
    for (const auto& [name, value] : e.figures) d[py::str(name)] = value;  // "train_rmse", "val_rmse", ...
    d["select"] = e.select;
    d["val"] = e.val;
    d["best_val"] = e.best_val;
    d["seconds"] = e.seconds;
    d["phase"] = e.phase;
    callback(d);
  };
  std::unique_ptr<ModelHandle> model;
  std::string metrics;
  std::vector<std::string> summary;
  const py::handle line_to = on_line;  // borrowed, as `callback`
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(fit_mutex());
    runtime::set_compute_threads(cfg.train.threads);
    FitOptions fo;
    fo.out_dir = out;
    fo.overwrite = overwrite;
    fo.on_epoch = report;
    // The run for an experiment tracker (fit/mlflow_run.h), as `symgnn train --mlflow-dir`.
    std::shared_ptr<fitting::MlflowRun> tracked;
    if (!mlflow_dir.empty()) {
      tracked = std::make_shared<fitting::MlflowRun>(mlflow_dir, cfg.model + " on " + cfg.data.source);
      fo.on_epoch = [tracked, report](const ProgressEvent& e) {
        tracked->epoch(e);
        report(e);
      };
    }
    if (verbose && !line_to.is_none())
      fo.log = [line_to](const std::string& line) {
        py::gil_scoped_acquire gil;
        line_to(line);
      };
    else if (verbose)
      fo.log = [](const std::string& line) { std::cerr << line << "\n"; };
    Dataset ds;
    if (in_memory) {
      ds = load_rows(*in_memory, cfg.data);
      fo.data = &ds;
    }
    FitResult r = fit(cfg, fo);
    summary = r.summary;
    metrics = json_text(r.metrics.to_json(), 2);
    if (tracked) tracked->finish(to_text(cfg), r.metrics.to_json(), out);
    // The model fit evaluated, moved out of the result (its only owner).
    if (r.model) model = std::make_unique<ModelHandle>(std::move(*r.model));
  }
  if (verbose)
    for (const std::string& line : summary) {
      if (line_to.is_none())
        std::cout << line << "\n";
      else
        line_to(line);
    }
  return py::make_tuple(model ? py::cast(std::move(model)) : py::none(), metrics);
}

/// The table of model kinds (symgnn/model_kinds.h), one dict a row.
py::list model_kinds() {
  py::list out;
  for (const ModelKind& k : kModelKinds) {
    py::dict row;
    row["name"] = k.name;
    row["section"] = k.section;
    row["fit"] = k.fit == FitMethod::trained ? "trained" : "closed_form";
    row["variants"] = k.variants;
    row["new_nodes"] = k.new_nodes;
    row["objectives"] = k.objectives;
    row["summary"] = k.summary;
    out.append(row);
  }
  return out;
}

/// The original ids of a side, in index order.
std::vector<std::string> ids_of(const NodeSet& side) {
  std::vector<std::string> v;
  v.reserve(static_cast<size_t>(side.count));
  for (int64_t k = 0; k < side.count; ++k) v.push_back(side.id_of(k));
  return v;
}

/// A dataset as Python sees it: ids and the rating lists (indices into the ids).
py::dict dataset_info(const Dataset& ds) {
  auto ratings = [](const RatingList& r) {
    return py::make_tuple(py::array_t<int64_t>(r.user.size(), r.user.data()),
                          py::array_t<int64_t>(r.item.size(), r.item.data()),
                          py::array_t<float>(r.value.size(), r.value.data()));
  };
  py::dict d;
  d["name"] = ds.name;
  d["user_ids"] = ids_of(ds.users);
  d["item_ids"] = ids_of(ds.items);
  d["train"] = ratings(ds.train);
  d["validation"] = ratings(ds.validation);
  d["test"] = ratings(ds.test);
  d["rating_min"] = ds.rating_min;
  d["rating_max"] = ds.rating_max;
  d["user_graph_edges"] = ds.users.graph.size();
  d["item_graph_edges"] = ds.items.graph.size();
  d["user_feature_columns"] = ds.users.features.cols;
  d["item_feature_columns"] = ds.items.features.cols;
  return d;
}

/// dataset_info of the source the data keys `sets` name, or of `rows` (a dict of arrays,
/// symgnn/data_rows.h) split by those keys.
py::dict load_dataset_info(const std::vector<std::string>& sets, py::object rows) {
  RunConfig cfg = preset_config("paper");
  for (const auto& s : sets) apply_override(cfg, s);
  std::optional<DataRows> in_memory;
  if (!rows.is_none()) in_memory = data_rows(rows.cast<py::dict>());
  Dataset ds;
  {
    py::gil_scoped_release release;
    ds = in_memory ? load_rows(*in_memory, cfg.data) : load_dataset(cfg.data);
  }
  return dataset_info(ds);
}

/// A side of the rating matrix by its Python name, "users" or "items".
NodeSide node_side(const std::string& side) {
  if (side == "users") return NodeSide::users;
  if (side == "items") return NodeSide::items;
  throw ConfigError("side must be users or items, got '" + side + "'");
}

std::vector<int64_t> as_indices(const py::array_t<int64_t, py::array::c_style | py::array::forcecast>& a) {
  return std::vector<int64_t>(a.data(), a.data() + a.size());
}

/// A side's graph as a SparseMatrix from COO arrays: At = D^-1/2 A D^-1/2 when
/// `normalize` (what Eq. 1 takes, as `symgnn sylvester` does), else A as given.
graph::SparseMatrix side_matrix(int64_t n, const std::vector<int64_t>& rows, const std::vector<int64_t>& cols,
                                const std::vector<double>& values, bool normalize, const char* which) {
  if (rows.size() != cols.size() || rows.size() != values.size())
    throw ConfigError(std::string(which) + ": rows, columns and values differ in length");
  NodeSet side;
  side.count = n;
  side.graph.num_nodes = n;
  side.graph_origin = GraphOrigin::File;
  for (size_t e = 0; e < rows.size(); ++e) {
    if (rows[e] < 0 || rows[e] >= n || cols[e] < 0 || cols[e] >= n)
      throw ConfigError(std::string(which) + ": entry (" + std::to_string(rows[e]) + ", " +
                        std::to_string(cols[e]) + ") outside the " + std::to_string(n) + " x " +
                        std::to_string(n) + " matrix");
    side.graph.add(rows[e], cols[e], static_cast<float>(values[e]));
  }
  if (normalize) return graph::normalized_adjacency(side);
  const auto len = static_cast<int64_t>(rows.size());
  return graph::from_coo(n, n, torch::tensor(rows, torch::kLong).view({len}),
                         torch::tensor(cols, torch::kLong).view({len}),
                         torch::tensor(values, torch::kDouble).view({len}).to(torch::kFloat));
}

py::tuple sylvester_solve(int64_t n1, std::vector<int64_t> r1, std::vector<int64_t> c1,
                          std::vector<double> v1, int64_t n2, std::vector<int64_t> r2,
                          std::vector<int64_t> c2, std::vector<double> v2,
                          py::array_t<double, py::array::c_style | py::array::forcecast> prior, double alpha,
                          const std::string& solver, double tol, int64_t max_iter, bool normalize) {
  if (prior.ndim() != 2 || prior.shape(0) != n1 || prior.shape(1) != n2)
    throw ConfigError("prior: expected a " + std::to_string(n1) + " x " + std::to_string(n2) + " matrix");
  const graph::SparseMatrix at1 = side_matrix(n1, r1, c1, v1, normalize, "user_graph");
  const graph::SparseMatrix at2 = side_matrix(n2, r2, c2, v2, normalize, "item_graph");
  const at::Tensor h = torch::from_blob(const_cast<double*>(prior.data()), {n1, n2}, torch::kDouble).clone();
  models::sylvester::SolverOptions opts;
  opts.alpha = alpha;
  opts.tol = tol;
  opts.max_iter = max_iter;
  models::sylvester::SolverResult r;
  {
    py::gil_scoped_release release;
    r = models::sylvester::solve(solver, at1, at2, h, opts);
  }
  const at::Tensor x = r.x.to(torch::kCPU, torch::kDouble).contiguous();
  py::array_t<double> out({n1, n2});
  std::copy(x.data_ptr<double>(), x.data_ptr<double>() + x.numel(), out.mutable_data());
  py::dict report;
  report["solver"] = r.solver;
  report["iterations"] = r.iterations;
  report["relative_residual"] = r.relative_residual;
  report["converged"] = r.converged;
  report["seconds"] = r.seconds;
  report["operator_applications"] = r.operator_applications;
  return py::make_tuple(out, report);
}

/// Python's exception classes (python/symgnn/_errors.py) for the C++ ones.
void register_errors() {
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    const py::module_ errors = py::module_::import("symgnn._errors");
    try {
      std::rethrow_exception(p);
    } catch (const DataError& e) {
      const std::string what = e.what();
      const bool missing = what.find("cannot open (missing or unreadable file)") != std::string::npos;
      PyErr_SetString(errors.attr(missing ? "MissingFileError" : "DataError").ptr(), e.what());
    } catch (const ConfigError& e) {
      PyErr_SetString(errors.attr("ConfigError").ptr(), e.what());
    } catch (const Error& e) {
      PyErr_SetString(errors.attr("Error").ptr(), e.what());
    } catch (const c10::Error& e) {
      // A LibTorch failure: its first line only (no C++ trace in Python).
      const std::string what = e.what_without_backtrace();
      PyErr_SetString(errors.attr("Error").ptr(), what.substr(0, what.find('\n')).c_str());
    }
  });
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

void add_user_rows(NewNodes& nodes, const EdgeRows& edges, const FeatureRows& features) {
  for (const auto& [a, b, w] : edges) nodes.rows.edges.emplace_back(a, b, w);
  for (const auto& [id, values] : features) nodes.rows.features.emplace_back(id, values);
  nodes.rows.edges_name = "edges";
  nodes.rows.features_name = "features";
}

}  // namespace

/// (side, op, a, b, weight, create, features) rows from Python as graph edits.
static std::vector<Delta::Edge> graph_edits_of(
    const std::vector<std::tuple<std::string, std::string, std::string, std::string, double, bool,
                                 std::vector<double>>>& rows) {
  std::vector<Delta::Edge> out;
  for (const auto& [side, op, a, b, w, create, features] : rows) {
    try {
      out.push_back(graph_edit(side, op, a, b, w));
    } catch (const ConfigError& e) {
      throw ConfigError("edits[" + std::to_string(out.size()) + "]: " + e.what());
    }
    out.back().create = create;
    out.back().features = features;
  }
  return out;
}

PYBIND11_MODULE(_core, m) {
  m.doc() = "symgnn's C++ core (use the symgnn package, not this module)";
  register_errors();
  m.def("config_fields", &config_fields, py::arg("preset"),
        "Every config key: key, section, name, type, default (under `preset`), doc, min, max, choices");
  m.def("preset_names", [] { return std::string(preset_names()); });
  m.def("default_preset", [] { return std::string(default_preset()); });
  m.def("resolve_config", &resolve_config, py::arg("preset"), py::arg("config_file"), py::arg("sets"),
        py::arg("variant") = "");
  m.def("fit", &fit_config, py::arg("config_text"), py::arg("out"), py::arg("overwrite"), py::arg("verbose"),
        py::arg("on_epoch"), py::arg("rows") = py::none(), py::arg("on_line") = py::none(),
        py::arg("mlflow_dir") = "");
  m.def("model_kinds", &model_kinds, "the table of model kinds (include/symgnn/model_kinds.h)");
  m.def(
      "read_space",
      [](const std::string& text, const std::string& where) {
        // symgnn tune's search-space reader (tune/space.h): one reader for the format.
        const tune::Space space =
            where.empty() ? tune::parse_space(text, "space") : tune::load_space_file(where);
        py::list out;
        for (const tune::Param& p : space.params) {
          py::dict d;
          d["key"] = p.key;
          d["kind"] = p.kind == tune::Kind::choice       ? "choice"
                      : p.kind == tune::Kind::uniform    ? "uniform"
                      : p.kind == tune::Kind::loguniform ? "loguniform"
                                                         : "int";
          d["choices"] = p.choices;
          d["lo"] = p.lo;
          d["hi"] = p.hi;
          out.append(d);
        }
        return out;
      },
      py::arg("text"), py::arg("path") = "",
      "the parameters of a search space (symgnn tune's format, docs/tuning.md): a file's `path`, else "
      "`text`");
  m.def("load_dataset", &load_dataset_info, py::arg("sets"), py::arg("rows") = py::none());
  m.def(
      "set_threads", [](int64_t n) { runtime::set_compute_threads(n); }, py::arg("n"));
  m.def(
      "keep_freed_memory", [] { runtime::keep_freed_memory(); },
      "keep freed memory in the heap, as the symgnn command does (src/runtime/runtime.cpp)");
  m.def("sylvester_solve", &sylvester_solve);
  m.def(
      "append_graph_journal",
      [](const std::string& dir,
         const std::vector<std::tuple<std::string, std::string, std::string, std::string, double, bool,
                                      std::vector<double>>>& rows,
         int64_t known) {
        // `known`: the records the model replayed; a batch is refused where another writer
        // appended since (the model would not be the directory's); -1: not known, unchecked.
        return infer::append_graph_journal(
            dir, graph_edits_of(rows), std::max<int64_t>(known, 0),
            [&](const std::vector<Delta::Edge>& unseen) {
              if (known >= 0 && !unseen.empty())
                throw Error(infer::graph_journal_path(dir) + ": " + std::to_string(unseen.size()) +
                            " graph edit(s) were journalled by another writer since this model was loaded: "
                            "load it again, then edit (nothing written)");
            });
      },
      py::arg("dir"), py::arg("edits"), py::arg("known") = -1,
      "appends a batch of graph edits to the model directory's journal; returns its record number");
  m.def("graph_journal_records", &infer::graph_journal_records, py::arg("dir"),
        "the number of records of the model directory's graph journal");
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
             NewNodes nodes;
             nodes.ratings = ratings;
             nodes.user_graph_file = user_graph;
             nodes.item_graph_file = item_graph;
             nodes.user_features_file = user_features;
             nodes.item_features_file = item_features;
             nodes.rows.ratings_name = rows_name;
             nodes.rows.ratings = new_rating_rows(rows);
             add_user_rows(nodes, user_edge_rows, user_feature_rows);
             (void)verbose;  // loading prints nothing: kept for the callers that pass it
             py::gil_scoped_release release;
             return std::make_unique<ModelHandle>(TrainedModel::load(path, device, nodes));
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
            NewNodes nodes;
            nodes.rows.ratings = new_rating_rows(rows);
            nodes.rows.ratings_name = rows_name;
            add_user_rows(nodes, user_edge_rows, user_feature_rows);
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(h.busy);
            return std::make_unique<ModelHandle>(h.model.with_new_nodes(nodes));
          },
          py::arg("rows"), py::arg("rows_name") = "new ratings", py::arg("user_edge_rows") = EdgeRows{},
          py::arg("user_feature_rows") = FeatureRows{},
          "this model grown by (user, item, rating) rows of new users, from the weights in memory")
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
          [](const ModelHandle& h,
             const std::vector<std::tuple<std::string, std::string, std::string, std::string, double, bool,
                                          std::vector<double>>>& rows) {
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
