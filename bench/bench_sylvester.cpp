// Benchmark (prints figures; not a test): the Sylvester solvers on one dataset's graphs.
//
//   bench_sylvester [--data ../shared/data/monti/flixster.mat] [--alpha 0.8] [--tol 1e-8]
//                   [--threads 2] [--solvers fixed_point,cg,cr,exact]
//
// H is the centred training ratings (models/sylvester/completion.h), At1/At2 the dataset's
// normalised graphs. For each solver: wall time, iterations, operator applications (one
// = At1 X At2^T, two sparse n x n products), final relative residual and the error
// relative to the exact (eigendecomposition) solution; then CG's speed-up over the fixed
// point. Run with OMP_WAIT_POLICY=PASSIVE on a shared machine (docs/models.md, "Performance facts").
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <thread>

#include "models/sylvester/completion.h"
#include "models/sylvester/sylvester.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "util/strings.h"

namespace syl = symgnn::models::sylvester;

int main(int argc, char** argv) {
  const char* env = std::getenv("SYMGNN_DATA_DIR");
  std::string data = std::string(env ? env : "../shared/data") + "/monti/flixster.mat";
  double alpha = 0.8, tol = 1e-8;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string solvers = "fixed_point,cg,cr,exact";
  CLI::App app{"Sylvester solver benchmark"};
  app.add_option("--data", data, "dataset source (default: flixster.mat)");
  app.add_option("--alpha", alpha, "a");
  app.add_option("--tol", tol, "relative residual to reach");
  app.add_option("--threads", threads, "intra-op threads");
  app.add_option("--solvers", solvers, "comma-separated solvers to run");
  CLI11_PARSE(app, argc, argv);
  try {
    at::set_num_threads(threads);
    symgnn::RunConfig cfg;
    cfg.data.source = data;
    symgnn::Dataset ds = symgnn::load_dataset(cfg.data);
    symgnn::graph::resolve_graphs(ds, cfg.graph);
    const symgnn::graph::SparseMatrix at1 = symgnn::graph::normalized_adjacency(ds.users);
    const symgnn::graph::SparseMatrix at2 = symgnn::graph::normalized_adjacency(ds.items);
    double mean = 0.0;
    for (float v : ds.train.value) mean += v;
    mean /= static_cast<double>(std::max<size_t>(1, ds.train.size()));
    const auto [h, mask] = syl::prior_matrices(ds.users.count, ds.items.count, {&ds.train}, mean, at::kCPU);
    std::printf(
        "%s: %lld x %lld, nnz(At1) = %lld, nnz(At2) = %lld, %zu training ratings, a = %g, tol = %g, "
        "%d threads\n",
        ds.name.c_str(), static_cast<long long>(ds.users.count), static_cast<long long>(ds.items.count),
        static_cast<long long>(at1.nnz()), static_cast<long long>(at2.nnz()), ds.train.size(), alpha, tol,
        at::get_num_threads());

    syl::SolverOptions opts;
    opts.alpha = alpha;
    opts.tol = tol;
    opts.max_iter = 100000;
    std::map<std::string, syl::SolverResult> results;
    for (const std::string& s : symgnn::split(solvers, ',')) results[s] = syl::solve(s, at1, at2, h, opts);
    // The exact solution is the accuracy reference; without it, the tightest iterate.
    at::Tensor ref;
    if (results.count("exact")) {
      ref = results["exact"].x;
    } else {
      syl::SolverOptions tight = opts;
      tight.tol = 1e-13;
      ref = syl::solve_conjugate_gradient(at1, at2, h, tight).x;
    }
    std::printf(
        "\n| solver | time (s) | iterations | operator applications | s / application | "
        "relative residual | rel. error vs exact |\n|---|---|---|---|---|---|---|\n");
    for (const std::string& s : symgnn::split(solvers, ',')) {
      const auto& r = results[s];
      const double err = (r.x - ref).norm().item<double>() / ref.norm().item<double>();
      std::printf(
          "| %s | %.3f | %lld | %lld | %s | %.2e | %.2e |\n", s.c_str(), r.seconds,
          static_cast<long long>(r.iterations), static_cast<long long>(r.operator_applications),
          r.operator_applications > 0 && s != "exact"
              ? std::to_string(r.seconds / static_cast<double>(r.operator_applications)).substr(0, 6).c_str()
              : "-",
          r.relative_residual, err);
    }
    if (results.count("fixed_point") && results.count("cg")) {
      const auto& fp = results["fixed_point"];
      const auto& cg = results["cg"];
      std::printf(
          "\nCG over fixed point: %.2fx faster, %.2fx fewer operator applications\n", fp.seconds / cg.seconds,
          static_cast<double>(fp.operator_applications) / static_cast<double>(cg.operator_applications));
    }
  } catch (const symgnn::Error& e) {
    std::cerr << "bench_sylvester: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
