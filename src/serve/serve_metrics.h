// The counters of GET /metrics, in Prometheus' text format (docs/serve.md): requests by
// route and status, a latency histogram by route, and the loaded model versions. Fixed
// tables of atomics: recording a request takes no lock. The routes, their order and labels
// are routes.h's table.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "serve/routes.h"

namespace symgnn::serve {

class ServeMetrics {
 public:
  /// One answered request: its route, HTTP status and seconds from arrival to the answer.
  void record(Route route, int status, double seconds);
  /// The text of GET /metrics; `versions`: (model name, version) pairs of the models now served.
  std::string prometheus_text(const std::vector<std::pair<std::string, int64_t>>& versions) const;

  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1.0,  2.5};
  static constexpr std::array<int, 10> kStatuses = {200, 400, 401, 403, 404, 405, 413, 500, 503, 0};

 private:
  static constexpr int kRoutes = static_cast<int>(Route::count);
  static size_t status_slot(int status);
  std::array<std::array<std::atomic<int64_t>, kStatuses.size()>, kRoutes> requests_{};
  std::array<std::array<std::atomic<int64_t>, kBuckets.size() + 1>, kRoutes> buckets_{};
  std::array<std::atomic<int64_t>, kRoutes> micros_sum_{};
};

}  // namespace symgnn::serve
