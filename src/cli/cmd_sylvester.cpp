// `symgnn sylvester`: solve Eq. 1 for two graphs and a prior, write X or its top-k per row.
#include <ATen/ATen.h>

#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli/commands.h"
#include "models/sylvester/completion.h"
#include "models/sylvester/sylvester.h"
#include "runtime/runtime.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "util/atomic_file.h"
#include "util/memory_check.h"

namespace symgnn::cli {

namespace syl = models::sylvester;

namespace {

struct SylvesterOptions {
  std::string ratings, user_graph, item_graph, alpha, solver, tol, max_iter, prior = "centred", out;
  int64_t top_k = 0;
};

/// X as CSV: a header "user,<item ids>", then one row per user "<id>,x_1,...,x_n2".
void write_matrix(std::ostream& os, const at::Tensor& x, const Dataset& ds) {
  const at::Tensor xc = x.cpu().contiguous();
  const double* p = xc.data_ptr<double>();
  os << "user";
  for (int64_t j = 0; j < ds.items.count; ++j) os << ',' << ds.items.id_of(j);
  os << '\n' << std::setprecision(9);
  for (int64_t i = 0; i < ds.users.count; ++i) {
    os << ds.users.id_of(i);
    for (int64_t j = 0; j < ds.items.count; ++j) os << ',' << p[i * ds.items.count + j];
    os << '\n';
  }
}

/// "user,item,score": the k largest scores of each user among the entries H leaves empty.
void write_top_k(std::ostream& os, const at::Tensor& x, const at::Tensor& observed, int64_t k,
                 const Dataset& ds) {
  const at::Tensor masked = x.masked_fill(observed, -std::numeric_limits<double>::infinity());
  const auto [scores, items] = masked.topk(std::min(k, ds.items.count), /*dim=*/1);  // n1 x k
  const at::Tensor s = scores.cpu().contiguous(), it = items.cpu().contiguous();
  const int64_t kk = s.size(1);
  os << "user,item,score\n" << std::setprecision(9);
  for (int64_t i = 0; i < ds.users.count; ++i)
    for (int64_t r = 0; r < kk; ++r) {
      const double v = s.data_ptr<double>()[i * kk + r];
      if (v == -std::numeric_limits<double>::infinity()) break;  // the user has rated everything
      os << ds.users.id_of(i) << ',' << ds.items.id_of(it.data_ptr<int64_t>()[i * kk + r]) << ',' << v
         << '\n';
    }
}

void run_sylvester(CommonOptions opts, const SylvesterOptions& so) {
  if (!so.ratings.empty() && !opts.data.empty())
    throw UsageError("sylvester: give either --data or --ratings, not both");
  if (so.ratings.empty() && opts.data.empty() && (!so.user_graph.empty() || !so.item_graph.empty()))
    throw UsageError("sylvester: --user-graph and --item-graph need --ratings FILE");
  if (so.top_k < 0)
    throw ConfigError("--top-k = " + std::to_string(so.top_k) + ": must be >= 1 (leave it out to write X)");
  // The flags of this command go before the user's --set (which wins), like the shared ones.
  // Every training rating goes into H: nothing is carved out for validation here.
  std::vector<std::string> sets = {"data.val_fraction=0"};
  if (!so.ratings.empty()) sets.push_back("data.source=" + so.ratings);
  if (!so.user_graph.empty()) sets.push_back("data.user_graph_file=" + so.user_graph);
  if (!so.item_graph.empty()) sets.push_back("data.item_graph_file=" + so.item_graph);
  if (!so.alpha.empty()) sets.push_back("sylvester.alpha=" + so.alpha);
  if (!so.tol.empty()) sets.push_back("sylvester.tol=" + so.tol);
  if (!so.max_iter.empty()) sets.push_back("sylvester.max_iter=" + so.max_iter);
  if (!so.solver.empty()) sets.push_back("sylvester.solver=" + so.solver);
  sets.insert(sets.end(), opts.sets.begin(), opts.sets.end());
  opts.sets = sets;
  RunConfig cfg = make_config(opts);
  apply_runtime(cfg);
  const std::string solver = cfg.sylvester.solver;
  runtime::check_device(cfg.train.device, "train.device");
  const at::Device device(cfg.train.device);

  Dataset ds = load_dataset(cfg.data);
  for (const std::string& note : graph::resolve_graphs(ds, cfg.graph)) std::cerr << note << "\n";
  const graph::SparseMatrix at1 = graph::normalized_adjacency(ds.users).to(device);
  const graph::SparseMatrix at2 = graph::normalized_adjacency(ds.items).to(device);
  const bool centred = so.prior == "centred";
  double mean = 0.0;
  if (centred) {
    for (float v : ds.train.value) mean += v;
    mean /= std::max<size_t>(1, ds.train.size());
  }
  const auto [h, mask] = syl::prior_matrices(ds.users.count, ds.items.count, {&ds.train}, mean, device);

  syl::SolverOptions sopts;
  sopts.alpha = cfg.sylvester.alpha;
  sopts.tol = cfg.sylvester.tol;
  sopts.max_iter = cfg.sylvester.max_iter;
  const syl::SolverResult r = syl::solve(solver, at1, at2, h, sopts);
  std::cout << "solved X = a At1 X At2^T + (1-a) H for " << ds.name << " (" << ds.users.count << " x "
            << ds.items.count << ", H from " << ds.train.size() << " training ratings"
            << (centred ? ", centred by their mean " + std::to_string(mean) : std::string(", as given"))
            << ")\n"
            << "solver " << r.solver << ", a = " << sopts.alpha << ": " << r.iterations << " iterations, "
            << r.operator_applications << " operator applications, relative residual " << std::scientific
            << std::setprecision(3) << r.relative_residual << std::defaultfloat << ", " << std::fixed
            << std::setprecision(3) << r.seconds << " s" << std::defaultfloat
            << (r.converged ? "" : "  (NOT converged: raise --max-iter or --tol)") << "\n";
  if (so.out.empty()) return;
  write_file_atomic(
      so.out,
      [&](std::ostream& os) {
        if (so.top_k > 0)
          write_top_k(os, r.x, mask > 0.5, so.top_k, ds);
        else
          write_matrix(os, r.x, ds);
      },
      Integrity::none);
  std::cout << (so.top_k > 0 ? "top-" + std::to_string(so.top_k) + " unobserved items per user"
                             : std::string("X"))
            << " written to " << so.out << "\n";
}

}  // namespace

void add_sylvester_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "sylvester",
      "solve the classic Sylvester equation (paper Eq. 1) X = a At1 X At2^T + (1-a) H\n"
      "for a user graph, an item graph and a prior H built from training ratings, and write X\n"
      "(CSV, users x items, with ids) or the top-k unobserved items per user.\n"
      "H: the training ratings minus their mean (--prior centred) or as given (--prior raw),\n"
      "0 where unobserved. Graphs: from the data source, from --user-graph/--item-graph edge\n"
      "lists, else k-NN from side features, else the identity (see graph.* keys).\n\n"
      "Examples:\n"
      "  symgnn sylvester --data ../shared/data/monti/flixster.mat --alpha 0.8 --out X.csv\n"
      "  symgnn sylvester --data ../shared/data/monti/douban.mat --solver exact --top-k 10 --out top10.csv\n"
      "  symgnn sylvester --ratings ratings.csv --user-graph friends.csv --item-graph similar.csv \\\n"
      "      --prior raw --solver cg --tol 1e-10 --top-k 5 --out recommendations.csv\n"
      "  symgnn sylvester --data ../shared/data/ml-100k --set graph.knn_k=10 --solver fixed_point");
  auto opts = std::make_shared<CommonOptions>();
  auto so = std::make_shared<SylvesterOptions>();
  add_common_options(cmd, *opts);
  cmd->add_option("--ratings", so->ratings, "ratings file 'user,item,rating' (instead of --data)");
  cmd->add_option("--user-graph", so->user_graph,
                  "user edge list 'a,b[,w]' in original ids (with --ratings)");
  cmd->add_option("--item-graph", so->item_graph,
                  "item edge list 'a,b[,w]' in original ids (with --ratings)");
  cmd->add_option("--alpha", so->alpha, "a in [0, 1) (default: sylvester.alpha = 0.8)");
  cmd->add_option("--solver", so->solver,
                  "fixed_point, cg (conjugate gradient, default), cr (conjugate residual) or exact "
                  "(eigendecomposition, n up to a few thousand)");
  cmd->add_option("--tol", so->tol, "stop at this relative residual (default: sylvester.tol = 1e-8)");
  cmd->add_option("--max-iter", so->max_iter, "iteration limit (default: sylvester.max_iter)");
  cmd->add_option("--prior", so->prior, "H from the ratings: centred (minus their mean, default) or raw")
      ->check(CLI::IsMember({"centred", "raw"}));
  cmd->add_option("--out", so->out, "write X (CSV with ids) here, atomically");
  cmd->add_option("--top-k", so->top_k, "with --out: write the K largest unobserved scores per user instead")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()));
  cmd->callback([opts, so] { with_memory_context("solving Eq. 1", [&] { run_sylvester(*opts, *so); }); });
}

}  // namespace symgnn::cli
