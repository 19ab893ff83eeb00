/// @file
/// Symmetric k-nearest-neighbour graph under cosine similarity:
/// `S = Xn Xn^T`, `Xn = X / max(||X_i||, eps)`; node i links to the k other nodes j with
/// the largest S_ij (ties: lower j first), and A = max(N, N^T) with weight 1.
///
/// Shapes: X is n x d; S is computed in row blocks of b rows (b x n at a time, so memory is
/// O(b n), never n x n); the result is an EdgeList over n nodes with both directions of
/// every edge stored once each, sorted by (src, dst). k >= n - 1 gives the complete graph.
#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <tuple>
#include <vector>

#include "symgnn/graph.h"

namespace symgnn::graph {

namespace {

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

at::Tensor unit_rows(const at::Tensor& x) {
  const at::Tensor xf = x.is_floating_point() ? x.detach() : x.detach().to(torch::kFloat);
  const double eps = 1e-12;
  return xf / xf.norm(2, {1}, /*keepdim=*/true).clamp_min(eps);
}

}  // namespace

EdgeList knn_graph(const at::Tensor& x, int64_t k, int64_t block) {
  TORCH_CHECK(x.dim() == 2, "knn_graph: x must be n x d, got ", x.dim(), "-D");
  TORCH_CHECK(k >= 1, "knn_graph: k must be >= 1, got ", k);
  TORCH_CHECK(block >= 1, "knn_graph: block must be >= 1, got ", block);
  const int64_t n = x.size(0);
  EdgeList out;
  out.num_nodes = n;
  if (n <= 1) return out;

  if (k >= n - 1) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (i != j) out.add(i, j, 1.0f);
    return out;
  }

  torch::NoGradGuard no_grad;
  const auto [s_all, d_all] = nearest(unit_rows(x), 0, k, block);
  // Union of both directions: linear keys of (i, j) and (j, i), sorted and deduplicated.
  const at::Tensor key = torch::cat({s_all * n + d_all, d_all * n + s_all});
  const at::Tensor uniq = std::get<0>(torch::unique_consecutive(std::get<0>(torch::sort(key)))).cpu();

  const int64_t m = uniq.numel();
  const int64_t* keys = uniq.data_ptr<int64_t>();
  out.src.reserve(static_cast<size_t>(m));
  out.dst.reserve(static_cast<size_t>(m));
  out.weight.reserve(static_cast<size_t>(m));
  for (int64_t e = 0; e < m; ++e) out.add(keys[e] / n, keys[e] % n, 1.0f);
  return out;
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
