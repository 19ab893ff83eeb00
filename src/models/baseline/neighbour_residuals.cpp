// The graphs' neighbour members (neighbour_residuals.h).
#include "models/baseline/neighbour_residuals.h"

#include <torch/types.h>

#include <algorithm>

namespace symgnn::models {
namespace {

/// CSR of (key, other, value) triples by key, others ascending within a key.
void index_by(const std::vector<int64_t>& key, const std::vector<int64_t>& other,
              const std::vector<double>& value, int64_t keys, std::vector<int64_t>& ptr,
              std::vector<int64_t>& idx, std::vector<double>& val) {
  ptr.assign(static_cast<size_t>(keys) + 1, 0);
  for (const int64_t k : key) ++ptr[static_cast<size_t>(k) + 1];
  for (size_t k = 1; k < ptr.size(); ++k) ptr[k] += ptr[k - 1];
  idx.resize(key.size());
  val.resize(key.size());
  std::vector<int64_t> next(ptr.begin(), ptr.end() - 1);
  for (size_t e = 0; e < key.size(); ++e) {
    const auto at = static_cast<size_t>(next[static_cast<size_t>(key[e])]++);
    idx[at] = other[e];
    val[at] = value[e];
  }
  std::vector<std::pair<int64_t, double>> row;
  for (size_t k = 0; k + 1 < ptr.size(); ++k) {
    const auto lo = static_cast<size_t>(ptr[k]), hi = static_cast<size_t>(ptr[k + 1]);
    row.clear();
    for (size_t e = lo; e < hi; ++e) row.emplace_back(idx[e], val[e]);
    std::sort(row.begin(), row.end());
    for (size_t e = lo; e < hi; ++e) idx[e] = row[e - lo].first, val[e] = row[e - lo].second;
  }
}

/// The value at (key, other) of a CSR built by index_by, or nullptr.
const double* find(const std::vector<int64_t>& ptr, const std::vector<int64_t>& idx,
                   const std::vector<double>& val, int64_t key, int64_t other) {
  if (key < 0 || key + 1 >= static_cast<int64_t>(ptr.size())) return nullptr;
  const auto first = idx.begin() + ptr[static_cast<size_t>(key)],
             last = idx.begin() + ptr[static_cast<size_t>(key) + 1];
  const auto it = std::lower_bound(first, last, other);
  return it != last && *it == other ? &val[static_cast<size_t>(it - idx.begin())] : nullptr;
}

}  // namespace

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
                                       NeighbourGraph items)
    : users_(std::move(users)), items_(std::move(items)) {
  const auto n1 = static_cast<int64_t>(b.user.size()), n2 = static_cast<int64_t>(b.item.size());
  std::vector<int64_t> u, i;
  std::vector<double> e;
  for (size_t k = 0; k < ratings.size(); ++k) {
    if (ratings.user[k] >= n1 || ratings.item[k] >= n2) continue;
    u.push_back(ratings.user[k]);
    i.push_back(ratings.item[k]);
    e.push_back(ratings.value[k] - b.predict(ratings.user[k], ratings.item[k]));
  }
  index_by(u, i, e, n1, by_user_ptr_, by_user_item_, by_user_value_);
  index_by(i, u, e, n2, by_item_ptr_, by_item_user_, by_item_value_);
}

const double* NeighbourResiduals::residual(int64_t u, int64_t i) const {
  return find(by_user_ptr_, by_user_item_, by_user_value_, u, i);
}

NeighbourSum NeighbourResiduals::user_sum(int64_t u, int64_t i) const {
  NeighbourSum s;
  if (u < 0 || u >= users_.nodes()) return s;
  for (int64_t k = users_.ptr[static_cast<size_t>(u)]; k < users_.ptr[static_cast<size_t>(u) + 1]; ++k)
    if (const double* r =
            find(by_user_ptr_, by_user_item_, by_user_value_, users_.idx[static_cast<size_t>(k)], i))
      s.sum += *r, s.count += 1;
  return s;
}

NeighbourSum NeighbourResiduals::item_sum(int64_t u, int64_t i) const {
  NeighbourSum s;
  if (i < 0 || i >= items_.nodes()) return s;
  for (int64_t k = items_.ptr[static_cast<size_t>(i)]; k < items_.ptr[static_cast<size_t>(i) + 1]; ++k)
    if (const double* r =
            find(by_user_ptr_, by_user_item_, by_user_value_, u, items_.idx[static_cast<size_t>(k)]))
      s.sum += *r, s.count += 1;
  return s;
}

std::vector<int64_t> NeighbourResiduals::user_neighbours(int64_t u) const {
  if (u < 0 || u >= users_.nodes()) return {};
  return {users_.idx.begin() + users_.ptr[static_cast<size_t>(u)],
          users_.idx.begin() + users_.ptr[static_cast<size_t>(u) + 1]};
}

void NeighbourResiduals::add_row(int64_t u, const NeighbourWeights& w, float* row, int64_t n2) const {
  std::vector<std::pair<int64_t, double>> rated;
  if (u >= 0 && u + 1 < static_cast<int64_t>(by_user_ptr_.size()))
    for (int64_t k = by_user_ptr_[static_cast<size_t>(u)]; k < by_user_ptr_[static_cast<size_t>(u) + 1]; ++k)
      rated.emplace_back(by_user_item_[static_cast<size_t>(k)], by_user_value_[static_cast<size_t>(k)]);
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
      if (v < 0 || v + 1 >= static_cast<int64_t>(by_user_ptr_.size())) continue;
      for (int64_t k = by_user_ptr_[static_cast<size_t>(v)]; k < by_user_ptr_[static_cast<size_t>(v) + 1];
           ++k) {
        const int64_t j = by_user_item_[static_cast<size_t>(k)];
        if (j < n2)
          sum[static_cast<size_t>(j)] += by_user_value_[static_cast<size_t>(k)],
              count[static_cast<size_t>(j)] += 1;
      }
    }
    add(w.user, w.user_shrinkage);
  }
  if (w.item != 0) {
    for (const auto& [j, e] : rated) {
      if (j < 0 || j >= items_.nodes()) continue;
      for (int64_t k = items_.ptr[static_cast<size_t>(j)]; k < items_.ptr[static_cast<size_t>(j) + 1]; ++k) {
        const int64_t i = items_.idx[static_cast<size_t>(k)];
        if (i < n2) sum[static_cast<size_t>(i)] += e, count[static_cast<size_t>(i)] += 1;
      }
    }
    add(w.item, w.item_shrinkage);
  }
}

}  // namespace symgnn::models
