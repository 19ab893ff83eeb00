/// @file
/// Benchmark of `Y = A X` (and its backward `dX = A^T dY`) for a fixed sparse A, the product
/// behind every CGE layer and Sylvester iteration.
///
/// Shapes: A is n x n, symmetric, ~nnz non-zeros (random graph, normalised weights); X is
/// n x d. Defaults: n = 3000, nnz ~ 60000, d = 64 (docs/models.md, "Performance facts").
/// Prints ms per call and GFLOP/s (2 nnz d flops per product) for each path; asserts
/// nothing about time.
///
/// Usage: bench_spmm [threads] [n] [nnz] [d] [reps]; threads default SYMGNN_THREADS or 2.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <tuple>

#include "symgnn/graph.h"

namespace {

using symgnn::graph::SparseMatrix;

/// index_select + index_add_ path: gather the rows of X each entry names, scale, then add
/// into the output rows; the backward is the same with the stored transpose.
class IndexAddSpmm : public torch::autograd::Function<IndexAddSpmm> {
 public:
  static at::Tensor product(const at::Tensor& row, const at::Tensor& col, const at::Tensor& val, int64_t rows,
                            const at::Tensor& x) {
    auto y = torch::zeros({rows, x.size(1)}, x.options());
    return y.index_add_(0, row, x.index_select(0, col) * val.unsqueeze(1));
  }
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x,
                            const SparseMatrix& a) {
    ctx->saved_data["row"] = a.t_row_idx;
    ctx->saved_data["col"] = a.t_col_idx;
    ctx->saved_data["val"] = a.t_values;
    ctx->saved_data["rows"] = a.cols;
    return product(a.row_idx, a.col_idx, a.values, a.rows, x);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list g) {
    return {product(ctx->saved_data["row"].toTensor(), ctx->saved_data["col"].toTensor(),
                    ctx->saved_data["val"].toTensor(), ctx->saved_data["rows"].toInt(), g[0]),
            at::Tensor()};
  }
};

/// Sparse CSR tensor matmul, with the transposed CSR tensor for the backward.
class CsrTensorSpmm : public torch::autograd::Function<CsrTensorSpmm> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& csr,
                            const at::Tensor& csr_t) {
    ctx->saved_data["csr_t"] = csr_t;
    return torch::mm(csr, x);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list g) {
    return {torch::mm(ctx->saved_data["csr_t"].toTensor(), g[0]), at::Tensor(), at::Tensor()};
  }
};

/// index_select, scale, then segment_reduce over each row's contiguous CSR segment.
class SegmentSpmm : public torch::autograd::Function<SegmentSpmm> {
 public:
  static at::Tensor product(const at::Tensor& ptr, const at::Tensor& col, const at::Tensor& val,
                            const at::Tensor& x) {
    return torch::segment_reduce(x.index_select(0, col) * val.unsqueeze(1), "sum", /*lengths=*/{},
                                 /*indices=*/{}, /*offsets=*/ptr, /*axis=*/0, /*unsafe=*/true, /*initial=*/0);
  }
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x,
                            const SparseMatrix& a) {
    ctx->saved_data["ptr"] = a.t_row_ptr;
    ctx->saved_data["col"] = a.t_col_idx;
    ctx->saved_data["val"] = a.t_values;
    return product(a.row_ptr, a.col_idx, a.values, x);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list g) {
    return {product(ctx->saved_data["ptr"].toTensor(), ctx->saved_data["col"].toTensor(),
                    ctx->saved_data["val"].toTensor(), g[0]),
            at::Tensor()};
  }
};

double seconds_per_call(const std::function<void()>& fn, int reps) {
  for (int i = 0; i < 3; ++i) fn();  // warm-up: allocator, thread pool, caches
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) fn();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count() / reps;
}

}  // namespace

int main(int argc, char** argv) {
  const char* env_threads = std::getenv("SYMGNN_THREADS");
  const int threads = argc > 1 ? std::atoi(argv[1]) : env_threads ? std::atoi(env_threads) : 2;
  const int64_t n = argc > 2 ? std::atoll(argv[2]) : 3000;
  const int64_t target_nnz = argc > 3 ? std::atoll(argv[3]) : 60000;
  const int64_t d = argc > 4 ? std::atoll(argv[4]) : 64;
  const int reps = argc > 5 ? std::atoi(argv[5]) : 50;
  at::set_num_threads(threads);
  torch::manual_seed(0);

  // Random symmetric graph: target_nnz / 2 random pairs, both directions, duplicates summed.
  const auto half = target_nnz / 2;
  auto src = torch::randint(n, {half}, torch::kLong);
  auto dst = torch::randint(n, {half}, torch::kLong);
  auto w = torch::rand({half});
  const SparseMatrix a =
      symgnn::graph::from_coo(n, n, torch::cat({src, dst}), torch::cat({dst, src}), torch::cat({w, w}));
  const int64_t nnz = a.nnz();
  const double flops = 2.0 * static_cast<double>(nnz) * static_cast<double>(d);

  const char* wait = std::getenv("OMP_WAIT_POLICY");
  std::printf(
      "spmm benchmark: A %lld x %lld, nnz %lld; X %lld x %lld; float32; intra-op threads %d; "
      "OMP_WAIT_POLICY=%s; %d reps\n",
      static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(nnz),
      static_cast<long long>(n), static_cast<long long>(d), at::get_num_threads(), wait ? wait : "(unset)",
      reps);
  std::printf("%-44s %12s %10s %14s %10s\n", "path", "fwd ms", "GFLOP/s", "fwd+bwd ms", "GFLOP/s");

  auto x = torch::randn({n, d});
  auto dy = torch::randn({n, d});
  auto xg = x.clone().requires_grad_(true);
  auto reference = a.to_dense().mm(x);

  auto report = [&](const std::string& name, const std::function<at::Tensor(const at::Tensor&)>& product) {
    try {
      const double err = (product(x) - reference).abs().max().item<double>();
      const double fwd = seconds_per_call([&] { product(x); }, reps);
      const double both = seconds_per_call(
          [&] {
            xg.mutable_grad() = at::Tensor();
            product(xg).backward(dy);
          },
          reps);
      std::printf("%-44s %12.3f %10.2f %14.3f %10.2f   (max |err| %.1e)\n", name.c_str(), fwd * 1e3,
                  flops / fwd * 1e-9, both * 1e3, 2 * flops / both * 1e-9, err);
    } catch (const std::exception& e) {
      std::string what = e.what();
      std::printf("%-44s unavailable: %s\n", name.c_str(), what.substr(0, what.find('\n')).c_str());
    }
  };

  auto coo = torch::sparse_coo_tensor(torch::stack({a.row_idx, a.col_idx}), a.values, {n, n}).coalesce();
  report("(1) torch::mm(sparse COO, X)", [&](const at::Tensor& v) { return torch::mm(coo, v); });
  report("(2) index_select + index_add_ (own bwd)",
         [&](const at::Tensor& v) { return IndexAddSpmm::apply(v, a); });
  at::Tensor csr, csr_t;
  try {
    csr = torch::sparse_csr_tensor(a.row_ptr, a.col_idx, a.values, {n, n}, torch::kFloat);
    csr_t = torch::sparse_csr_tensor(a.t_row_ptr, a.t_col_idx, a.t_values, {n, n}, torch::kFloat);
  } catch (const std::exception&) {
  }
  report("(3) torch::mm(sparse CSR, X) (own bwd)", [&](const at::Tensor& v) {
    TORCH_CHECK(csr.defined(), "sparse_csr_tensor not constructible");
    return CsrTensorSpmm::apply(v, csr, csr_t);
  });
  report("(4) index_select + segment_reduce (own bwd)",
         [&](const at::Tensor& v) { return SegmentSpmm::apply(v, a); });
  report("(5) embedding_bag sum, weights = values", [&](const at::Tensor& v) {
    return std::get<0>(torch::embedding_bag(v, a.col_idx, a.row_ptr, false, 0, false, a.values, true));
  });
  report("(6) graph::spmm (embedding_bag, own bwd)",
         [&](const at::Tensor& v) { return symgnn::graph::spmm(a, v); });
  const auto dense = a.to_dense();
  report("(ref) dense torch::mm (n x n) X", [&](const at::Tensor& v) { return torch::mm(dense, v); });
  std::printf("GFLOP/s counts 2 nnz d flops per product (the dense row counts the same useful flops).\n");
  return 0;
}
