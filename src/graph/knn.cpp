/// @file
/// Symmetric k-nearest-neighbour graph under cosine similarity:
/// `S = Xn Xn^T`, `Xn = X / max(||X_i||, eps)`; node i links to the k other nodes j with
/// the largest S_ij (ties: lower j first), and A = max(N, N^T) with weight 1.
///
/// Shapes: X is n x d; S is computed in row blocks of b rows (b x n at a time, so memory is
/// O(b n), never n x n); the result is an EdgeList over n nodes with both directions of
/// every edge stored once each, sorted by (src, dst). k >= n - 1 gives the complete graph.
///
/// Sparse rows (the training rating rows, n1 x n2 with nnz ratings) take another road to the
/// same graph: S_i. for one row i is accumulated over its columns c and, for each, the rows
/// holding c (a CSC copy), into a dense n-vector per thread, so nothing of size n x n2 exists;
/// the k best are picked by (similarity descending, index ascending), zeros included.
#include <ATen/Parallel.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <limits>
#include <tuple>
#include <vector>

#include "graph/knn_common.h"
#include "symgnn/graph.h"

namespace symgnn::graph {

namespace knn_detail {

at::Tensor unit_rows(const at::Tensor& x) {
  const at::Tensor xf = x.is_floating_point() ? x.detach() : x.detach().to(torch::kFloat);
  const double eps = 1e-12;
  return xf / xf.norm(2, {1}, /*keepdim=*/true).clamp_min(eps);
}

EdgeList trivial_graph(int64_t n) {
  EdgeList out;
  out.num_nodes = n;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (i != j) out.add(i, j, 1.0f);
  return out;
}

EdgeList symmetric_union(int64_t n, const at::Tensor& s_all, const at::Tensor& d_all) {
  // Linear keys of (i, j) and (j, i), sorted and deduplicated.
  const at::Tensor key = torch::cat({s_all * n + d_all, d_all * n + s_all});
  const at::Tensor uniq = std::get<0>(torch::unique_consecutive(std::get<0>(torch::sort(key)))).cpu();
  EdgeList out;
  out.num_nodes = n;
  const int64_t m = uniq.numel();
  const int64_t* keys = uniq.data_ptr<int64_t>();
  out.src.reserve(static_cast<size_t>(m));
  out.dst.reserve(static_cast<size_t>(m));
  out.weight.reserve(static_cast<size_t>(m));
  for (int64_t e = 0; e < m; ++e) out.add(keys[e] / n, keys[e] % n, 1.0f);
  return out;
}

}  // namespace knn_detail

namespace {

using knn_detail::symmetric_union;
using knn_detail::trivial_graph;
using knn_detail::unit_rows;

/// Mask (rows x n) of each row's k largest entries, exactly k per row. topk alone leaves
/// the choice among entries equal to the k-th value to the kernel; taking them in column
/// order makes the graph the same on every device and thread count.
at::Tensor top_k_mask(const at::Tensor& s, int64_t k) {
  const at::Tensor kth = std::get<0>(s.topk(k, /*dim=*/1)).select(1, k - 1).unsqueeze(1);
  const at::Tensor above = s > kth;
  const at::Tensor still_needed = k - above.sum(1, /*keepdim=*/true);
  const at::Tensor at_kth = s == kth;
  const at::Tensor rank_among_ties = at_kth.cumsum(1);
  return above | (at_kth & (rank_among_ties <= still_needed));
}

/// The k nearest other rows of each row in [first, n) of the unit-normalised xn: (src, dst)
/// index tensors, src ascending.
std::pair<at::Tensor, at::Tensor> nearest(const at::Tensor& xn, int64_t first, int64_t k, int64_t block) {
  const int64_t n = xn.size(0);
  std::vector<at::Tensor> src, dst;
  for (int64_t b = first; b < n; b += block) {
    const int64_t e = std::min(n, b + block);
    at::Tensor s = xn.slice(0, b, e).mm(xn.t());                    // (e - b) x n
    s.diagonal(b).fill_(-std::numeric_limits<double>::infinity());  // entries (r, b + r): self
    const at::Tensor nz = top_k_mask(s, k).nonzero();               // [m, 2]: (row in block, col)
    src.push_back(nz.select(1, 0) + b);
    dst.push_back(nz.select(1, 1));
  }
  if (src.empty()) return {torch::empty({0}, torch::kLong), torch::empty({0}, torch::kLong)};
  return {torch::cat(src), torch::cat(dst)};
}

/// The sparse rows unit-normalised (double), with their transpose for the column walk.
struct UnitRows {
  int64_t n = 0;
  const SparseRows* x = nullptr;
  std::vector<double> value;          // xn entries in x's CSR order
  std::vector<int64_t> t_ptr, t_row;  // CSC: the rows holding each column, ascending
  std::vector<double> t_value;
  std::vector<char> zero;  // rows with no nonzero entry
};

UnitRows unit_rows(const SparseRows& x) {
  UnitRows u;
  u.n = x.rows();
  u.x = &x;
  const size_t nnz = x.col.size();
  TORCH_CHECK(x.value.size() == nnz && x.row_ptr.back() == static_cast<int64_t>(nnz),
              "knn_graph: sparse rows with ", nnz, " columns but ", x.value.size(), " values");
  u.value.resize(nnz);
  u.zero.assign(static_cast<size_t>(u.n), 1);
  for (int64_t i = 0; i < u.n; ++i) {
    double sq = 0;
    for (int64_t e = x.row_ptr[i]; e < x.row_ptr[i + 1]; ++e)
      sq += static_cast<double>(x.value[e]) * x.value[e];
    const double inv = 1.0 / std::max(std::sqrt(sq), 1e-12);
    for (int64_t e = x.row_ptr[i]; e < x.row_ptr[i + 1]; ++e) {
      u.value[e] = x.value[e] * inv;
      if (x.value[e] != 0.0f) u.zero[static_cast<size_t>(i)] = 0;
    }
  }
  u.t_ptr.assign(static_cast<size_t>(x.cols) + 1, 0);
  for (int64_t c : x.col) {
    TORCH_CHECK(c >= 0 && c < x.cols, "knn_graph: column ", c, " outside [0, ", x.cols, ")");
    ++u.t_ptr[static_cast<size_t>(c) + 1];
  }
  for (size_t c = 0; c < static_cast<size_t>(x.cols); ++c) u.t_ptr[c + 1] += u.t_ptr[c];
  u.t_row.resize(nnz);
  u.t_value.resize(nnz);
  std::vector<int64_t> fill(u.t_ptr.begin(), u.t_ptr.end() - 1);
  for (int64_t i = 0; i < u.n; ++i)  // rows ascending: each column's list is sorted by row
    for (int64_t e = x.row_ptr[i]; e < x.row_ptr[i + 1]; ++e) {
      const auto at = static_cast<size_t>(fill[static_cast<size_t>(x.col[e])]++);
      u.t_row[at] = i;
      u.t_value[at] = u.value[e];
    }
  return u;
}

/// Per-thread scratch: similarities of one row to all rows, and which were touched.
struct Scratch {
  std::vector<double> sim;
  std::vector<int64_t> touched;
  std::vector<std::pair<double, int64_t>> ranked;  // (-similarity, row): ascending = best first
};

/// Row i's k best other rows into out[0..k): similarity descending, index ascending, the
/// rows it shares no column with counting as similarity 0 (as in the dense product).
void nearest_row(const UnitRows& u, int64_t i, int64_t k, Scratch& s, int64_t* out) {
  const SparseRows& x = *u.x;
  for (int64_t e = x.row_ptr[i]; e < x.row_ptr[i + 1]; ++e) {
    const double a = u.value[e];
    const auto c = static_cast<size_t>(x.col[e]);
    for (int64_t f = u.t_ptr[c]; f < u.t_ptr[c + 1]; ++f) {
      const int64_t j = u.t_row[f];
      if (s.sim[j] == 0.0) s.touched.push_back(j);  // again if a sum came back to 0: deduplicated below
      s.sim[j] += a * u.t_value[f];
    }
  }
  s.ranked.clear();
  std::sort(s.touched.begin(), s.touched.end());
  s.touched.erase(std::unique(s.touched.begin(), s.touched.end()), s.touched.end());
  for (int64_t j : s.touched)
    if (j != i && s.sim[j] > 0.0) s.ranked.emplace_back(-s.sim[j], j);
  int64_t taken = 0;
  const auto take_best = [&](int64_t want) {
    const auto end = s.ranked.begin() + std::min<int64_t>(want, static_cast<int64_t>(s.ranked.size()));
    std::partial_sort(s.ranked.begin(), end, s.ranked.end());
    for (auto it = s.ranked.begin(); it != end; ++it) out[taken++] = it->second;
  };
  take_best(k);
  // Fewer than k positive: the rows at similarity 0 in index order, then the negative ones.
  for (int64_t j = 0; j < u.n && taken < k; ++j)
    if (j != i && s.sim[j] == 0.0) out[taken++] = j;
  if (taken < k) {
    s.ranked.clear();
    for (int64_t j : s.touched)
      if (j != i && s.sim[j] < 0.0) s.ranked.emplace_back(-s.sim[j], j);
    take_best(k - taken);
  }
  for (int64_t j : s.touched) s.sim[j] = 0.0;
  s.touched.clear();
}

/// The k nearest other rows of every row in [first, n): n_rows x k row indices.
std::vector<int64_t> nearest_sparse(const UnitRows& u, int64_t first, int64_t k) {
  std::vector<int64_t> out(static_cast<size_t>((u.n - first) * k));
  at::parallel_for(first, u.n, 64, [&](int64_t b, int64_t e) {
    Scratch s;
    s.sim.assign(static_cast<size_t>(u.n), 0.0);
    for (int64_t i = b; i < e; ++i) nearest_row(u, i, k, s, &out[static_cast<size_t>((i - first) * k)]);
  });
  return out;
}

}  // namespace

EdgeList knn_graph(const SparseRows& x, int64_t k) {
  TORCH_CHECK(k >= 1, "knn_graph: k must be >= 1, got ", k);
  const int64_t n = x.rows();
  if (n <= 1 || k >= n - 1) return trivial_graph(n);
  const std::vector<int64_t> nb = nearest_sparse(unit_rows(x), 0, k);
  const at::Tensor dst = torch::tensor(nb, torch::kLong);
  const at::Tensor src = torch::arange(n, torch::kLong).repeat_interleave(k);
  return symmetric_union(n, src, dst);
}

EdgeList knn_out_edges(const SparseRows& x, int64_t first, int64_t k) {
  TORCH_CHECK(k >= 1, "knn_out_edges: k must be >= 1");
  const int64_t n = x.rows();
  TORCH_CHECK(first >= 0 && first <= n, "knn_out_edges: first row ", first, " outside [0, ", n, "]");
  EdgeList out;
  out.num_nodes = n;
  if (n <= 1 || first == n) return out;
  const int64_t kk = std::min(k, n - 1);
  const UnitRows u = unit_rows(x);
  const std::vector<int64_t> nb = nearest_sparse(u, first, kk);
  for (int64_t i = first; i < n; ++i)
    if (!u.zero[static_cast<size_t>(i)])  // a zero query row is equally far from everything
      for (int64_t r = 0; r < kk; ++r) out.add(i, nb[static_cast<size_t>((i - first) * kk + r)], 1.0f);
  return out;
}

EdgeList knn_graph(const at::Tensor& x, int64_t k, int64_t block) {
  TORCH_CHECK(x.dim() == 2, "knn_graph: x must be n x d, got ", x.dim(), "-D");
  TORCH_CHECK(k >= 1, "knn_graph: k must be >= 1, got ", k);
  TORCH_CHECK(block >= 1, "knn_graph: block must be >= 1, got ", block);
  const int64_t n = x.size(0);
  if (n <= 1 || k >= n - 1) return trivial_graph(n);

  torch::NoGradGuard no_grad;
  const auto [s_all, d_all] = nearest(unit_rows(x), 0, k, block);
  return symmetric_union(n, s_all, d_all);
}

EdgeList knn_out_edges(const at::Tensor& x, int64_t first, int64_t k, int64_t block) {
  TORCH_CHECK(x.dim() == 2, "knn_out_edges: x must be n x d, got ", x.dim(), "-D");
  TORCH_CHECK(k >= 1 && block >= 1, "knn_out_edges: k and block must be >= 1");
  const int64_t n = x.size(0);
  TORCH_CHECK(first >= 0 && first <= n, "knn_out_edges: first row ", first, " outside [0, ", n, "]");
  EdgeList out;
  out.num_nodes = n;
  if (n <= 1 || first == n) return out;
  torch::NoGradGuard no_grad;
  const at::Tensor xn = unit_rows(x);
  const auto [src, dst] = nearest(xn, first, std::min(k, n - 1), block);
  // A zero query row is equally far from everything: it gets no edges rather than the
  // first k nodes by the tie rule.
  const at::Tensor zero = (xn.norm(2, {1}) == 0).cpu();
  const at::Tensor s = src.cpu(), d = dst.cpu();
  const int64_t* sp = s.data_ptr<int64_t>();
  const int64_t* dp = d.data_ptr<int64_t>();
  const bool* zp = zero.data_ptr<bool>();
  for (int64_t e = 0; e < s.numel(); ++e)
    if (!zp[sp[e]]) out.add(sp[e], dp[e], 1.0f);
  return out;
}

}  // namespace symgnn::graph
