// symgnn._core's configs, fits and datasets (bindings.h): the config table and its
// presets, symgnn::fit of a config text, datasets from files or arrays, the table of model
// kinds, search spaces, and the process's threads and heap.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "bindings.h"
#include "fit/mlflow_run.h"
#include "runtime/runtime.h"
#include "symgnn/config.h"
#include "symgnn/data_rows.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"
#include "symgnn/model_kinds.h"
#include "symgnn/progress.h"
#include "tune/space.h"
#include "util/json_text.h"

namespace py = pybind11;
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

}  // namespace

void bind_fit(py::module_& m) {
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
}
