// The item k-NN member's neighbourhoods (similar_items.h).
#include "models/baseline/similar_items.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace symgnn::models {

double co_rated_pairs(const SparseRows& by_user) {
  double pairs = 0;
  for (int64_t u = 0; u < by_user.rows(); ++u) {
    const auto n =
        static_cast<double>(by_user.ptr[static_cast<size_t>(u) + 1] - by_user.ptr[static_cast<size_t>(u)]);
    pairs += n * n;
  }
  return pairs;
}

SparseRows similar_items(const SparseRows& by_user, const SparseRows& by_item, int64_t k, double shrinkage) {
  const int64_t n2 = by_item.rows();
  SparseRows out;
  out.ptr.assign(static_cast<size_t>(n2) + 1, 0);
  if (k <= 0 || n2 <= 0 || by_user.empty() || co_rated_pairs(by_user) > kMaxCoRatedPairs) return out;
  std::vector<std::vector<std::pair<int64_t, double>>> rows(static_cast<size_t>(n2));
  at::parallel_for(0, n2, 64, [&](int64_t lo, int64_t hi) {
    // Sums over the co-raters of (i, j), kept for the touched j only and cleared after each i.
    std::vector<double> xy(static_cast<size_t>(n2), 0.0), xx(xy.size(), 0.0), yy(xy.size(), 0.0);
    std::vector<int64_t> count(xy.size(), 0), touched;
    for (int64_t i = lo; i < hi; ++i) {
      touched.clear();
      for (int64_t a = by_item.ptr[static_cast<size_t>(i)]; a < by_item.ptr[static_cast<size_t>(i) + 1];
           ++a) {
        const int64_t u = by_item.idx[static_cast<size_t>(a)];
        const double ei = by_item.value[static_cast<size_t>(a)];
        if (u < 0 || u >= by_user.rows()) continue;
        for (int64_t b = by_user.ptr[static_cast<size_t>(u)]; b < by_user.ptr[static_cast<size_t>(u) + 1];
             ++b) {
          const auto j = static_cast<size_t>(by_user.idx[static_cast<size_t>(b)]);
          if (static_cast<int64_t>(j) == i || static_cast<int64_t>(j) >= n2) continue;
          const double ej = by_user.value[static_cast<size_t>(b)];
          if (count[j]++ == 0) touched.push_back(static_cast<int64_t>(j));
          xy[j] += ei * ej;
          xx[j] += ei * ei;
          yy[j] += ej * ej;
        }
      }
      auto& row = rows[static_cast<size_t>(i)];
      for (const int64_t jj : touched) {
        const auto j = static_cast<size_t>(jj);
        const auto n = static_cast<double>(count[j]);
        if (n >= 2 && xx[j] > 0 && yy[j] > 0) {
          const double s = xy[j] / std::sqrt(xx[j] * yy[j]) * (n - 1) / (n - 1 + shrinkage);
          if (s > 0) row.emplace_back(jj, s);
        }
        xy[j] = xx[j] = yy[j] = 0;
        count[j] = 0;
      }
      const auto larger = [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
      };
      if (static_cast<int64_t>(row.size()) > k) {
        std::nth_element(row.begin(), row.begin() + k, row.end(), larger);
        row.resize(static_cast<size_t>(k));
      }
      std::sort(row.begin(), row.end());
    }
  });
  for (int64_t i = 0; i < n2; ++i) {
    for (const auto& [j, s] : rows[static_cast<size_t>(i)]) {
      out.idx.push_back(j);
      out.value.push_back(s);
    }
    out.ptr[static_cast<size_t>(i) + 1] = static_cast<int64_t>(out.idx.size());
    rows[static_cast<size_t>(i)] = {};
  }
  return out;
}

SparseRows transpose(const SparseRows& rows, int64_t columns) {
  SparseRows t;
  t.ptr.assign(static_cast<size_t>(std::max<int64_t>(columns, 0)) + 1, 0);
  for (const int64_t j : rows.idx)
    if (j >= 0 && j < columns) ++t.ptr[static_cast<size_t>(j) + 1];
  for (size_t j = 1; j < t.ptr.size(); ++j) t.ptr[j] += t.ptr[j - 1];
  t.idx.resize(static_cast<size_t>(t.ptr.back()));
  t.value.resize(t.idx.size());
  std::vector<int64_t> next(t.ptr.begin(), t.ptr.end() - 1);
  // Rows are visited in ascending order, so each transposed row comes out ascending.
  for (int64_t i = 0; i < rows.rows(); ++i)
    for (int64_t k = rows.ptr[static_cast<size_t>(i)]; k < rows.ptr[static_cast<size_t>(i) + 1]; ++k) {
      const int64_t j = rows.idx[static_cast<size_t>(k)];
      if (j < 0 || j >= columns) continue;
      const auto at = static_cast<size_t>(next[static_cast<size_t>(j)]++);
      t.idx[at] = i;
      t.value[at] = rows.value[static_cast<size_t>(k)];
    }
  return t;
}

}  // namespace symgnn::models
