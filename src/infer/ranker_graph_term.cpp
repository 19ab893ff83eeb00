// The user graph's term on a ranker's lists (ranker_graph_term.h).
#include "infer/ranker_graph_term.h"

#include <algorithm>
#include <cmath>

namespace symgnn::infer {

double ranker_row_scale(const float* row, int64_t n2) {
  double most = 0;
  for (int64_t i = 0; i < n2; ++i) most = std::max(most, static_cast<double>(std::fabs(row[i])));
  return most > 0 && std::isfinite(most) ? most : 1.0;
}

void mix_user_graph_term(float* row, const float* linked, int64_t n2, double weight) {
  const double scale = ranker_row_scale(row, n2);
  for (int64_t i = 0; i < n2; ++i)
    row[i] =
        static_cast<float>(static_cast<double>(row[i]) / scale + weight * static_cast<double>(linked[i]));
}

void add_user_graph_term(std::vector<float>& rows, const std::vector<int64_t>& users, int64_t n2,
                         const ColdLists& linked, double weight, double shrinkage, LinkDirection direction) {
  const std::vector<float> term = linked.linked_rows(users, shrinkage, direction);
  const auto width = static_cast<size_t>(n2);
  for (size_t r = 0; r < users.size(); ++r)
    mix_user_graph_term(rows.data() + r * width, term.data() + r * width, n2, weight);
}

}  // namespace symgnn::infer
