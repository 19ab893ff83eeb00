// The network trained for ranking on a ranker's lists (ranker_network_term.h).
#include "infer/ranker_network_term.h"

#include <algorithm>
#include <vector>

#include "infer/ranker_graph_term.h"

namespace symgnn::infer {

void scaled_network_row(const float* row, int64_t n, float* out) {
  if (n <= 0) return;
  double sum = 0;
  float top = row[0];
  for (int64_t i = 0; i < n; ++i) {
    sum += static_cast<double>(row[i]);
    top = std::max(top, row[i]);
  }
  const double mean = sum / static_cast<double>(n);
  const double spread = static_cast<double>(top) - mean;
  for (int64_t i = 0; i < n; ++i)
    out[i] = spread > 0 ? static_cast<float>((static_cast<double>(row[i]) - mean) / spread) : 0.0f;
}

void add_network_term(float* row, int64_t n2, const float* network, int64_t network_items, double weight,
                      bool scaled) {
  const double scale = scaled ? 1.0 : ranker_row_scale(row, n2);
  const int64_t known = std::min(n2, network_items);
  std::vector<float> term(static_cast<size_t>(std::max<int64_t>(known, 0)));
  scaled_network_row(network, known, term.data());
  for (int64_t i = 0; i < n2; ++i) {
    const double t = i < known ? static_cast<double>(term[static_cast<size_t>(i)]) : 0.0;
    row[i] = static_cast<float>(static_cast<double>(row[i]) / scale + weight * t);
  }
}

}  // namespace symgnn::infer
