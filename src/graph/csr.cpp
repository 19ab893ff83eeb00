/// @file
/// Fixed sparse matrices and their product with dense ones: `Y = A X`, `dX = A^T dY`.
///
/// Shapes: A is rows x cols with nnz entries, stored as CSR (row_ptr [rows+1], col_idx,
/// values [nnz]) and, alongside, the CSR of A^T; X is cols x d; Y is rows x d.
///
/// The product is `embedding_bag(X, col_idx, row_ptr, mode = sum, per_sample_weights =
/// values)`: a bag per row of A summing the rows of X it names, scaled by the entries.
/// bench/bench_spmm.cpp (3000 x 3000, 60k non-zeros, d = 64, 1-2 threads, loaded machine):
/// this path 0.3-0.5 ms forward and 0.7-1.1 ms forward+backward, against torch::mm on a
/// sparse COO tensor 1.3-3.5 / 2.9-9.5 ms, sparse CSR matmul 1.3-4.6 / 4.9-11 ms,
/// index_select + index_add_ 8-13 / 31-53 ms and segment_reduce 10-20 / 24-58 ms. It is one
/// device-agnostic ATen op (CPU and CUDA kernels) for float and double that writes each
/// output row from one bag (no atomics). Its own backward (dX = A^T dY with the stored
/// transpose) replaces embedding_bag's, which re-sorts the indices on every call (9-16 ms).
#include <torch/autograd.h>
#include <torch/types.h>

#include <array>
#include <tuple>

#include "symgnn/graph.h"

namespace symgnn::graph {

namespace {

constexpr int64_t kModeSum = 0;  // embedding_bag's mode code for "sum"

/// row_ptr from the (sorted) row of each entry: counts per row, prefix-summed.
at::Tensor row_ptr_from_rows(const at::Tensor& rows_sorted, int64_t rows) {
  auto counts = torch::bincount(rows_sorted, /*weights=*/{}, /*minlength=*/rows);
  auto ptr = torch::zeros({rows + 1}, rows_sorted.options());
  if (rows > 0) ptr.slice(0, 1).copy_(counts.cumsum(0));
  return ptr;
}

/// Y = A X with A given by its CSR arrays; X is 2-D and contiguous.
at::Tensor csr_product(const at::Tensor& row_ptr, const at::Tensor& col_idx, const at::Tensor& values,
                       int64_t rows, const at::Tensor& x) {
  if (col_idx.numel() == 0) return torch::zeros({rows, x.size(1)}, x.options());
  return std::get<0>(torch::embedding_bag(x, col_idx, row_ptr, /*scale_grad_by_freq=*/false, kModeSum,
                                          /*sparse=*/false, values, /*include_last_offset=*/true));
}

const char* const kFields[] = {"row_ptr",   "col_idx",   "values",   "row_idx",
                               "t_row_ptr", "t_col_idx", "t_values", "t_row_idx"};

std::array<at::Tensor*, 8> fields(SparseMatrix& m) {
  return {&m.row_ptr,   &m.col_idx,   &m.values,   &m.row_idx,
          &m.t_row_ptr, &m.t_col_idx, &m.t_values, &m.t_row_idx};
}

std::array<const at::Tensor*, 8> fields(const SparseMatrix& m) {
  return {&m.row_ptr,   &m.col_idx,   &m.values,   &m.row_idx,
          &m.t_row_ptr, &m.t_col_idx, &m.t_values, &m.t_row_idx};
}

/// Custom autograd node: the forward never tracks A; the backward multiplies by A^T
/// through this same node, so second derivatives work too.
class SpmmFunction : public torch::autograd::Function<SpmmFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x,
                            const SparseMatrix& a) {
    SparseMatrix copy = a;
    const auto f = fields(copy);
    for (size_t i = 0; i < f.size(); ++i) ctx->saved_data[kFields[i]] = *f[i];
    ctx->saved_data["rows"] = a.rows;
    ctx->saved_data["cols"] = a.cols;
    return csr_product(a.row_ptr, a.col_idx, a.values, a.rows, x);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    SparseMatrix a;
    a.rows = ctx->saved_data["rows"].toInt();
    a.cols = ctx->saved_data["cols"].toInt();
    const auto f = fields(a);
    for (size_t i = 0; i < f.size(); ++i) {
      const auto& saved = ctx->saved_data[kFields[i]];
      if (saved.isTensor()) *f[i] = saved.toTensor();
    }
    // O(1) when from_coo stored the transpose; a sort otherwise.
    const SparseMatrix a_t = a.transpose();
    return {SpmmFunction::apply(grad_out[0].contiguous(), a_t), at::Tensor()};
  }
};

}  // namespace

int64_t SparseMatrix::nnz() const {
  if (identity) return rows;
  return col_idx.defined() ? col_idx.numel() : 0;
}

at::Tensor SparseMatrix::to_dense() const {
  if (identity) {
    const auto opts = values.defined() ? values.options() : torch::TensorOptions().dtype(torch::kFloat);
    return torch::eye(rows, opts);
  }
  TORCH_CHECK(values.defined(), "SparseMatrix::to_dense: matrix has no values (build it with from_coo)");
  auto dense = torch::zeros({rows, cols}, values.options());
  if (nnz() > 0) dense.index_put_({row_idx, col_idx}, values, /*accumulate=*/true);
  return dense;
}

SparseMatrix SparseMatrix::to(const at::Device& device) const {
  SparseMatrix m = *this;
  const auto from = fields(*this);
  const auto f = fields(m);
  for (size_t i = 0; i < f.size(); ++i) {
    if (!f[i]->defined()) continue;
    // A symmetric matrix's transpose is the matrix itself (from_coo): it stays one copy.
    *f[i] = i >= 4 && from[i]->is_same(*from[i - 4]) ? *f[i - 4] : f[i]->to(device);
  }
  return m;
}

SparseMatrix SparseMatrix::transpose() const {
  if (identity) return *this;
  if (!t_row_ptr.defined()) return from_coo(cols, rows, col_idx, row_idx, values);
  SparseMatrix t;
  t.rows = cols;
  t.cols = rows;
  t.row_ptr = t_row_ptr;
  t.col_idx = t_col_idx;
  t.values = t_values;
  t.row_idx = t_row_idx;
  t.t_row_ptr = row_ptr;
  t.t_col_idx = col_idx;
  t.t_values = values;
  t.t_row_idx = row_idx;
  return t;
}

SparseMatrix from_coo(int64_t rows, int64_t cols, const at::Tensor& row, const at::Tensor& col,
                      const at::Tensor& values) {
  TORCH_CHECK(rows >= 0 && cols >= 0, "from_coo: negative shape ", rows, " x ", cols);
  TORCH_CHECK(row.dim() == 1 && col.dim() == 1 && values.dim() == 1,
              "from_coo: row, col, values must be 1-D");
  TORCH_CHECK(row.numel() == col.numel() && row.numel() == values.numel(), "from_coo: row (", row.numel(),
              "), col (", col.numel(), ") and values (", values.numel(), ") differ in length");
  TORCH_CHECK(values.is_floating_point(), "from_coo: values must be floating point, got ", values.dtype());
  const auto device = values.device();
  const at::Tensor r = row.to(device, torch::kLong);
  const at::Tensor c = col.to(device, torch::kLong);
  const at::Tensor v = values.detach();
  if (r.numel() > 0) {
    TORCH_CHECK(r.min().item<int64_t>() >= 0 && r.max().item<int64_t>() < rows,
                "from_coo: row index outside [0, ", rows, ")");
    TORCH_CHECK(c.min().item<int64_t>() >= 0 && c.max().item<int64_t>() < cols,
                "from_coo: column index outside [0, ", cols, ")");
  }

  // Sorting by the linear key row * cols + col yields row-major order; equal keys are
  // duplicates, summed through the inverse map of unique_consecutive.
  auto build = [&](const at::Tensor& major, const at::Tensor& minor, int64_t n_major, int64_t n_minor,
                   at::Tensor& ptr_out, at::Tensor& idx_out, at::Tensor& val_out, at::Tensor& major_out) {
    const at::Tensor key = major * n_minor + minor;
    at::Tensor sorted, order;
    std::tie(sorted, order) = torch::sort(key);
    at::Tensor uniq, inverse, counts;
    std::tie(uniq, inverse, counts) = torch::unique_consecutive(sorted, /*return_inverse=*/true);
    val_out = torch::zeros({uniq.numel()}, v.options()).index_add_(0, inverse, v.index_select(0, order));
    major_out = n_minor > 0 ? torch::div(uniq, n_minor, "floor") : uniq;
    idx_out = n_minor > 0 ? torch::remainder(uniq, n_minor) : uniq;
    ptr_out = row_ptr_from_rows(major_out, n_major);
  };

  SparseMatrix m;
  m.rows = rows;
  m.cols = cols;
  build(r, c, rows, cols, m.row_ptr, m.col_idx, m.values, m.row_idx);
  build(c, r, cols, rows, m.t_row_ptr, m.t_col_idx, m.t_values, m.t_row_idx);
  // A symmetric matrix (an undirected graph's normalised adjacency) is its own transpose:
  // the stored transpose shares its tensors, half the graph's bytes in every context.
  if (rows == cols && at::equal(m.row_ptr, m.t_row_ptr) && at::equal(m.col_idx, m.t_col_idx) &&
      at::equal(m.values, m.t_values)) {
    m.t_row_ptr = m.row_ptr;
    m.t_col_idx = m.col_idx;
    m.t_values = m.values;
    m.t_row_idx = m.row_idx;
  }
  return m;
}

SparseMatrix identity(int64_t n) {
  TORCH_CHECK(n >= 0, "identity: negative size ", n);
  SparseMatrix m;
  m.rows = n;
  m.cols = n;
  m.identity = true;
  return m;
}

at::Tensor spmm(const SparseMatrix& a, const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 1 || x.dim() == 2, "spmm: x must be 1-D or 2-D, got ", x.dim(), "-D");
  TORCH_CHECK(x.size(0) == a.cols, "spmm: A is ", a.rows, " x ", a.cols, " but x has ", x.size(0), " rows");
  if (a.identity) return x;
  TORCH_CHECK(a.values.defined(), "spmm: matrix has no values (build it with from_coo)");
  TORCH_CHECK(x.scalar_type() == a.values.scalar_type(), "spmm: x is ", x.dtype(), " but A holds ",
              a.values.dtype(), "; build A with values of the same dtype");
  TORCH_CHECK(x.device() == a.values.device(), "spmm: x is on ", x.device(), " but A on ", a.values.device());
  const bool vector = x.dim() == 1;
  const at::Tensor x2 = (vector ? x.unsqueeze(1) : x).contiguous();
  // Without a gradient to track, skip the autograd node and its saved state (~0.1 ms).
  at::Tensor y = x2.requires_grad() && at::GradMode::is_enabled()
                     ? SpmmFunction::apply(x2, a)
                     : csr_product(a.row_ptr, a.col_idx, a.values, a.rows, x2);
  return vector ? y.squeeze(1) : y;
}

}  // namespace symgnn::graph
