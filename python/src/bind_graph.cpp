// symgnn._core's graphs (bindings.h): the Sylvester solve of Eq. 1 on graphs given as COO
// arrays (as `symgnn sylvester`), and a model directory's graph journal.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/types.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bindings.h"
#include "infer/graph_journal.h"
#include "models/sylvester/sylvester.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"

namespace py = pybind11;
using namespace symgnn;

namespace {

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

}  // namespace

std::vector<Delta::Edge> graph_edits_of(const GraphEditRows& rows) {
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

void bind_graph(py::module_& m) {
  m.def("sylvester_solve", &sylvester_solve);
  m.def(
      "append_graph_journal",
      [](const std::string& dir, const GraphEditRows& rows, int64_t known) {
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
}
