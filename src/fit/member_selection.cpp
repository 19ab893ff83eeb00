#include "fit/member_selection.h"

#include <algorithm>
#include <cmath>

#include "blend/nnls.h"
#include "fit/judged_users.h"

namespace symgnn::fitting {
namespace {

/// Non-negative weights of `columns` fitted to t over the ratings `use` selects.
std::vector<double> weights_on(const std::vector<const std::vector<double>*>& columns,
                               const std::vector<double>& t, const std::vector<char>& use) {
  blend::Matrix g(columns.size(), columns.size());
  std::vector<double> c(columns.size(), 0.0);
  for (size_t e = 0; e < t.size(); ++e) {
    if (!use[e]) continue;
    for (size_t a = 0; a < columns.size(); ++a) {
      const double xa = (*columns[a])[e];
      c[a] += xa * t[e];
      for (size_t b = a; b < columns.size(); ++b) g(a, b) += xa * (*columns[b])[e];
    }
  }
  for (size_t a = 0; a < columns.size(); ++a)
    for (size_t b = 0; b < a; ++b) g(a, b) = g(b, a);
  return blend::nnls_normal(g, c);
}

/// Fold-wise differences a - b.
std::vector<double> minus(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d(a.size());
  for (size_t k = 0; k < a.size(); ++k) d[k] = a[k] - b[k];
  return d;
}

/// The RMSE over all ratings of the per-fold squared errors' sum (folds of unequal sizes).
double pooled(const std::vector<const std::vector<double>*>& columns, const std::vector<double>& t,
              int64_t folds) {
  double sse = 0;
  const auto n = static_cast<int64_t>(t.size());
  for (int64_t f = 0; f < folds; ++f) {
    std::vector<char> train(t.size());
    for (int64_t e = 0; e < n; ++e) train[static_cast<size_t>(e)] = e % folds != f;
    const std::vector<double> w = columns.empty() ? std::vector<double>{} : weights_on(columns, t, train);
    for (int64_t e = f; e < n; e += folds) {
      double p = 0;
      for (size_t k = 0; k < columns.size(); ++k) p += w[k] * (*columns[k])[static_cast<size_t>(e)];
      sse += (t[static_cast<size_t>(e)] - p) * (t[static_cast<size_t>(e)] - p);
    }
  }
  return n ? std::sqrt(sse / static_cast<double>(n)) : 0.0;
}

}  // namespace

std::vector<double> fold_errors(const std::vector<const std::vector<double>*>& columns,
                                const std::vector<double>& t, int64_t folds) {
  std::vector<double> out;
  const auto n = static_cast<int64_t>(t.size());
  for (int64_t f = 0; f < folds; ++f) {
    std::vector<char> train(t.size());
    for (int64_t e = 0; e < n; ++e) train[static_cast<size_t>(e)] = e % folds != f;
    const std::vector<double> w = columns.empty() ? std::vector<double>{} : weights_on(columns, t, train);
    double sse = 0;
    int64_t count = 0;
    for (int64_t e = f; e < n; e += folds, ++count) {
      double p = 0;
      for (size_t k = 0; k < columns.size(); ++k) p += w[k] * (*columns[k])[static_cast<size_t>(e)];
      sse += (t[static_cast<size_t>(e)] - p) * (t[static_cast<size_t>(e)] - p);
    }
    out.push_back(count ? std::sqrt(sse / static_cast<double>(count)) : 0.0);
  }
  return out;
}

MemberSelection select_members(const std::vector<MemberColumn>& columns, const std::vector<double>& t,
                               int64_t folds) {
  MemberSelection out;
  std::vector<const std::vector<double>*> kept;
  std::vector<size_t> order;  // kept's members, in the order they joined
  const std::vector<double> base = fold_errors(kept, t, folds);
  out.error_baseline = pooled(kept, t, folds);
  for (const MemberColumn& c : columns) {
    MemberChoice m;
    m.name = c.name;
    m.gain_alone = mean_of(minus(base, fold_errors({&c.values}, t, folds)));
    out.members.push_back(m);
  }
  std::vector<double> current = base;
  for (;;) {
    int best = -1;
    std::vector<double> best_gain;
    for (size_t k = 0; k < columns.size(); ++k) {
      if (out.members[k].kept) continue;
      std::vector<const std::vector<double>*> with = kept;
      with.push_back(&columns[k].values);
      const std::vector<double> gain = minus(current, fold_errors(with, t, folds));
      out.members[k].gain = mean_of(gain);
      out.members[k].gain_spread = sd_of(gain);
      if (best < 0 || mean_of(gain) > mean_of(best_gain)) best = static_cast<int>(k), best_gain = gain;
    }
    if (best < 0 || !(mean_of(best_gain) > standard_error(best_gain))) break;
    MemberChoice& m = out.members[static_cast<size_t>(best)];
    m.kept = true;
    kept.push_back(&columns[static_cast<size_t>(best)].values);
    order.push_back(static_cast<size_t>(best));
    for (size_t f = 0; f < current.size(); ++f) current[f] -= best_gain[f];
  }
  out.error_crossfit = pooled(kept, t, folds);
  if (!kept.empty()) {
    const std::vector<double> w = weights_on(kept, t, std::vector<char>(t.size(), 1));
    for (size_t k = 0; k < order.size(); ++k) {
      MemberChoice& m = out.members[order[k]];
      m.weight = w[k];
      m.kept = m.weight > 0;
    }
  }
  return out;
}

}  // namespace symgnn::fitting
