// The graphs' neighbour members (neighbour_residuals.h).
#include "models/baseline/neighbour_residuals.h"

#include <torch/types.h>

#include <algorithm>

namespace symgnn::models {
namespace {

/// CSR of (key, other, value) triples by key, others ascending within a key.
SparseRows index_by(const std::vector<int64_t>& key, const std::vector<int64_t>& other,
                    const std::vector<double>& value, int64_t keys) {
  SparseRows out;
  std::vector<int64_t>& ptr = out.ptr;
  ptr.assign(static_cast<size_t>(keys) + 1, 0);
  for (const int64_t k : key) ++ptr[static_cast<size_t>(k) + 1];
  for (size_t k = 1; k < ptr.size(); ++k) ptr[k] += ptr[k - 1];
  out.idx.resize(key.size());
  out.value.resize(key.size());
  std::vector<int64_t> next(ptr.begin(), ptr.end() - 1);
  for (size_t e = 0; e < key.size(); ++e) {
    const auto at = static_cast<size_t>(next[static_cast<size_t>(key[e])]++);
    out.idx[at] = other[e];
    out.value[at] = value[e];
  }
  std::vector<std::pair<int64_t, double>> row;
  for (size_t k = 0; k + 1 < ptr.size(); ++k) {
    const auto lo = static_cast<size_t>(ptr[k]), hi = static_cast<size_t>(ptr[k + 1]);
    row.clear();
    for (size_t e = lo; e < hi; ++e) row.emplace_back(out.idx[e], out.value[e]);
    std::sort(row.begin(), row.end());
    for (size_t e = lo; e < hi; ++e) out.idx[e] = row[e - lo].first, out.value[e] = row[e - lo].second;
  }
  return out;
}

/// The value at (key, other) of `rows`, or nullptr.
const double* find(const SparseRows& rows, int64_t key, int64_t other) {
  if (key < 0 || key >= rows.rows()) return nullptr;
  const auto first = rows.idx.begin() + rows.ptr[static_cast<size_t>(key)],
             last = rows.idx.begin() + rows.ptr[static_cast<size_t>(key) + 1];
  const auto it = std::lower_bound(first, last, other);
  return it != last && *it == other ? &rows.value[static_cast<size_t>(it - rows.idx.begin())] : nullptr;
}

/// g transposed (the same nodes; each row ascending).
NeighbourGraph transposed(const NeighbourGraph& g) {
  NeighbourGraph t;
  const int64_t n = g.nodes();
  t.ptr.assign(static_cast<size_t>(n) + 1, 0);
  for (const int64_t j : g.idx)
    if (j >= 0 && j < n) ++t.ptr[static_cast<size_t>(j) + 1];
  for (size_t k = 1; k < t.ptr.size(); ++k) t.ptr[k] += t.ptr[k - 1];
  t.idx.resize(static_cast<size_t>(t.ptr.back()));
  std::vector<int64_t> next(t.ptr.begin(), t.ptr.end() - 1);
  // Rows in ascending order give each transposed row its entries ascending.
  for (int64_t r = 0; r < n; ++r)
    for (int64_t k = g.ptr[static_cast<size_t>(r)]; k < g.ptr[static_cast<size_t>(r) + 1]; ++k) {
      const int64_t j = g.idx[static_cast<size_t>(k)];
      if (j >= 0 && j < n) t.idx[static_cast<size_t>(next[static_cast<size_t>(j)]++)] = r;
    }
  return t;
}

}  // namespace

NeighbourGraph neighbour_graph(const graph::SparseMatrix& at, const graph::SparseMatrix& links,
                               LinkDirection direction) {
  if (direction == LinkDirection::both || !links.row_ptr.defined()) return neighbour_graph(at);
  const NeighbourGraph out = neighbour_graph(links);
  return direction == LinkDirection::out ? out : transposed(out);
}

NeighbourGraph neighbour_graph(const graph::SparseMatrix& at) {
  NeighbourGraph g;
  g.ptr.assign(static_cast<size_t>(at.rows) + 1, 0);
  if (at.identity || !at.row_ptr.defined() || at.nnz() == 0) return g;
  const at::Tensor rp = at.row_ptr.to(at::kCPU).to(at::kLong).contiguous();
  const at::Tensor ci = at.col_idx.to(at::kCPU).to(at::kLong).contiguous();
  const int64_t* p = rp.data_ptr<int64_t>();
  const int64_t* c = ci.data_ptr<int64_t>();
  for (int64_t r = 0; r < at.rows; ++r) {
    const size_t start = g.idx.size();
    for (int64_t e = p[r]; e < p[r + 1]; ++e)
      if (c[e] != r) g.idx.push_back(c[e]);
    std::sort(g.idx.begin() + static_cast<std::ptrdiff_t>(start), g.idx.end());
    g.idx.erase(std::unique(g.idx.begin() + static_cast<std::ptrdiff_t>(start), g.idx.end()), g.idx.end());
    g.ptr[static_cast<size_t>(r) + 1] = static_cast<int64_t>(g.idx.size());
  }
  return g;
}

NeighbourResiduals::NeighbourResiduals(const RatingList& ratings, const Biases& b, NeighbourGraph users,
                                       NeighbourGraph items, int64_t knn_neighbours)
    : users_(std::move(users)) {
  set_item_graph(std::move(items));
  const auto n1 = static_cast<int64_t>(b.user.size()), n2 = static_cast<int64_t>(b.item.size());
  std::vector<int64_t> u, i;
  std::vector<double> e;
  for (size_t k = 0; k < ratings.size(); ++k) {
    if (ratings.user[k] >= n1 || ratings.item[k] >= n2) continue;
    u.push_back(ratings.user[k]);
    i.push_back(ratings.item[k]);
    e.push_back(ratings.value[k] - b.predict(ratings.user[k], ratings.item[k]));
  }
  by_user_ = index_by(u, i, e, n1);
  by_item_ = index_by(i, u, e, n2);
  if (knn_neighbours > 0) set_similar_items(models::similar_items(by_user_, by_item_, knn_neighbours));
}

void NeighbourResiduals::set_item_graph(NeighbourGraph items) {
  items_ = std::move(items);
  items_of_ = transposed(items_);
}

void NeighbourResiduals::set_similar_items(SparseRows similar) {
  const int64_t n2 = by_item_.rows();
  similar.ptr.resize(static_cast<size_t>(std::min(similar.rows(), n2)) + 1);
  similar.idx.resize(static_cast<size_t>(similar.ptr.back()));
  similar.value.resize(similar.idx.size());
  similar.ptr.resize(static_cast<size_t>(n2) + 1, similar.ptr.back());
  similar_ = std::move(similar);
  similar_of_ = transpose(similar_, n2);
}

const double* NeighbourResiduals::residual(int64_t u, int64_t i) const {
  return find(by_user_, u, i);
}

NeighbourSum NeighbourResiduals::user_sum(int64_t u, int64_t i) const {
  NeighbourSum s;
  if (u < 0 || u >= users_.nodes()) return s;
  for (int64_t k = users_.ptr[static_cast<size_t>(u)]; k < users_.ptr[static_cast<size_t>(u) + 1]; ++k)
    if (const double* r = find(by_user_, users_.idx[static_cast<size_t>(k)], i)) s.sum += *r, s.count += 1;
  return s;
}

NeighbourSum NeighbourResiduals::item_sum(int64_t u, int64_t i) const {
  NeighbourSum s;
  if (i < 0 || i >= items_.nodes()) return s;
  for (int64_t k = items_.ptr[static_cast<size_t>(i)]; k < items_.ptr[static_cast<size_t>(i) + 1]; ++k)
    if (const double* r = find(by_user_, u, items_.idx[static_cast<size_t>(k)])) s.sum += *r, s.count += 1;
  return s;
}

NeighbourSum NeighbourResiduals::knn_sum(int64_t u, int64_t i) const {
  NeighbourSum s;
  if (i < 0 || i >= similar_.rows()) return s;
  for (int64_t k = similar_.ptr[static_cast<size_t>(i)]; k < similar_.ptr[static_cast<size_t>(i) + 1]; ++k)
    if (const double* r = find(by_user_, u, similar_.idx[static_cast<size_t>(k)])) {
      const double w = similar_.value[static_cast<size_t>(k)];
      s.sum += w * *r, s.count += w;
    }
  return s;
}

std::vector<int64_t> NeighbourResiduals::user_neighbours(int64_t u) const {
  if (u < 0 || u >= users_.nodes()) return {};
  return {users_.idx.begin() + users_.ptr[static_cast<size_t>(u)],
          users_.idx.begin() + users_.ptr[static_cast<size_t>(u) + 1]};
}

std::vector<int64_t> NeighbourResiduals::item_neighbours(int64_t i) const {
  if (i < 0 || i >= items_.nodes()) return {};
  return {items_.idx.begin() + items_.ptr[static_cast<size_t>(i)],
          items_.idx.begin() + items_.ptr[static_cast<size_t>(i) + 1]};
}

void NeighbourResiduals::add_row(int64_t u, const NeighbourWeights& w, float* row, int64_t n2) const {
  std::vector<std::pair<int64_t, double>> rated;
  if (u >= 0 && u < by_user_.rows())
    for (int64_t k = by_user_.ptr[static_cast<size_t>(u)]; k < by_user_.ptr[static_cast<size_t>(u) + 1]; ++k)
      rated.emplace_back(by_user_.idx[static_cast<size_t>(k)], by_user_.value[static_cast<size_t>(k)]);
  add_row(user_neighbours(u), rated, w, row, n2);
}

void NeighbourResiduals::add_row(const std::vector<int64_t>& neighbours,
                                 const std::vector<std::pair<int64_t, double>>& rated,
                                 const NeighbourWeights& w, float* row, int64_t n2) const {
  std::vector<double> sum(static_cast<size_t>(n2)), count(static_cast<size_t>(n2));
  const auto add = [&](double weight, double shrinkage) {
    for (int64_t j = 0; j < n2; ++j)
      if (count[static_cast<size_t>(j)] > 0)
        row[j] += static_cast<float>(weight * sum[static_cast<size_t>(j)] /
                                     (shrinkage + count[static_cast<size_t>(j)]));
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(count.begin(), count.end(), 0.0);
  };
  if (w.user != 0) {
    for (const int64_t v : neighbours) {
      if (v < 0 || v >= by_user_.rows()) continue;
      for (int64_t k = by_user_.ptr[static_cast<size_t>(v)]; k < by_user_.ptr[static_cast<size_t>(v) + 1];
           ++k) {
        const int64_t j = by_user_.idx[static_cast<size_t>(k)];
        if (j < n2)
          sum[static_cast<size_t>(j)] += by_user_.value[static_cast<size_t>(k)],
              count[static_cast<size_t>(j)] += 1;
      }
    }
    add(w.user, w.user_shrinkage);
  }
  if (w.item != 0) {
    for (const auto& [j, e] : rated) {
      if (j < 0 || j >= items_of_.nodes()) continue;
      for (int64_t k = items_of_.ptr[static_cast<size_t>(j)]; k < items_of_.ptr[static_cast<size_t>(j) + 1];
           ++k) {
        const int64_t i = items_of_.idx[static_cast<size_t>(k)];
        if (i < n2) sum[static_cast<size_t>(i)] += e, count[static_cast<size_t>(i)] += 1;
      }
    }
    add(w.item, w.item_shrinkage);
  }
  if (w.knn != 0) {
    for (const auto& [j, e] : rated) {
      if (j < 0 || j >= similar_of_.rows()) continue;
      for (int64_t k = similar_of_.ptr[static_cast<size_t>(j)];
           k < similar_of_.ptr[static_cast<size_t>(j) + 1]; ++k) {
        const int64_t i = similar_of_.idx[static_cast<size_t>(k)];
        const double s = similar_of_.value[static_cast<size_t>(k)];
        if (i < n2) sum[static_cast<size_t>(i)] += s * e, count[static_cast<size_t>(i)] += s;
      }
    }
    add(w.knn, w.knn_shrinkage);
  }
}

}  // namespace symgnn::models
