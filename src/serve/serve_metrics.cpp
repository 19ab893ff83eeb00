#include "serve/serve_metrics.h"

#include <cstdio>
#include <sstream>

namespace symgnn::serve {

size_t ServeMetrics::status_slot(int status) {
  for (size_t k = 0; k + 1 < kStatuses.size(); ++k)
    if (kStatuses[k] == status) return k;
  return kStatuses.size() - 1;  // any other status
}

void ServeMetrics::record(Route route, int status, double seconds) {
  const auto r = static_cast<size_t>(route);
  requests_[r][status_slot(status)].fetch_add(1, std::memory_order_relaxed);
  size_t b = 0;
  while (b < kBuckets.size() && seconds > kBuckets[b]) ++b;
  buckets_[r][b].fetch_add(1, std::memory_order_relaxed);
  micros_sum_[r].fetch_add(static_cast<int64_t>(seconds * 1e6), std::memory_order_relaxed);
}

std::string ServeMetrics::prometheus_text(
    const std::vector<std::pair<std::string, int64_t>>& versions) const {
  std::ostringstream out;
  out << "# HELP symgnn_requests_total Requests answered, by route and HTTP status.\n"
         "# TYPE symgnn_requests_total counter\n";
  for (int r = 0; r < kRoutes; ++r)
    for (size_t s = 0; s < kStatuses.size(); ++s) {
      const int64_t n = requests_[static_cast<size_t>(r)][s].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out << "symgnn_requests_total{route=\"" << route_label(static_cast<Route>(r)) << "\",status=\""
          << (kStatuses[s] == 0 ? std::string("other") : std::to_string(kStatuses[s])) << "\"} " << n << "\n";
    }
  out << "# HELP symgnn_request_seconds Time from a request's arrival to its answer, by route.\n"
         "# TYPE symgnn_request_seconds histogram\n";
  for (int r = 0; r < kRoutes; ++r) {
    const auto& b = buckets_[static_cast<size_t>(r)];
    int64_t total = 0;
    for (const auto& c : b) total += c.load(std::memory_order_relaxed);
    if (total == 0) continue;
    const std::string label = std::string("route=\"") + route_label(static_cast<Route>(r)) + "\"";
    int64_t cumulative = 0;
    for (size_t k = 0; k < kBuckets.size(); ++k) {
      cumulative += b[k].load(std::memory_order_relaxed);
      char le[32];
      std::snprintf(le, sizeof le, "%g", kBuckets[k]);
      out << "symgnn_request_seconds_bucket{" << label << ",le=\"" << le << "\"} " << cumulative << "\n";
    }
    out << "symgnn_request_seconds_bucket{" << label << ",le=\"+Inf\"} " << total << "\n";
    out << "symgnn_request_seconds_sum{" << label << "} "
        << static_cast<double>(micros_sum_[static_cast<size_t>(r)].load(std::memory_order_relaxed)) / 1e6
        << "\n";
    out << "symgnn_request_seconds_count{" << label << "} " << total << "\n";
  }
  out << "# HELP symgnn_model_version Version of each served model (1 at start, +1 per reload).\n"
         "# TYPE symgnn_model_version gauge\n";
  for (const auto& [name, version] : versions)
    out << "symgnn_model_version{model=\"" << name << "\"} " << version << "\n";
  return out.str();
}

}  // namespace symgnn::serve
