// The parts of symgnn._core (module.cpp), one function per area of the library, each adding
// its functions and classes to the module, and what more than one part uses.
//   bind_fit.cpp    configs, fits, datasets, the model kinds, search spaces, threads
//   bind_graph.cpp  the Sylvester solve on graphs given as arrays, the graph journal
//   bind_model.cpp  TrainedModel (a fitted or loaded model) and its files
#pragma once

#include <pybind11/pybind11.h>

#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "symgnn/graph_edit.h"
#include "symgnn/trained_model.h"

void bind_fit(pybind11::module_& m);
void bind_graph(pybind11::module_& m);
void bind_model(pybind11::module_& m);

/// A trained model and the lock of its calls: a model with several saved weight sets swaps
/// them into one network while it predicts, so calls on one model take turns.
struct ModelHandle {
  symgnn::TrainedModel model;
  mutable std::mutex busy;
  explicit ModelHandle(symgnn::TrainedModel m) : model(std::move(m)) {}
};

/// The original ids of a side, in index order.
std::vector<std::string> ids_of(const symgnn::NodeSet& side);

/// Graph edits as Python passes them: (side, op, a, b, weight, create, features) rows.
using GraphEditRows = std::vector<
    std::tuple<std::string, std::string, std::string, std::string, double, bool, std::vector<double>>>;

/// `rows` as graph edits (symgnn/graph_edit.h).
std::vector<symgnn::Delta::Edge> graph_edits_of(const GraphEditRows& rows);
