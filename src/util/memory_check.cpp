#include "util/memory_check.h"

#include <unistd.h>

#include <cmath>
#include <cstring>

namespace symgnn {

namespace {

std::string gib(double bytes) {
  return std::to_string(static_cast<long long>(std::ceil(bytes / (1024.0 * 1024 * 1024))));
}

}  // namespace

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0.0;
}

void require_memory(double bytes, const std::string& what, const std::string& detail,
                    const std::string& alternative) {
  const double have = physical_memory_bytes();
  if (have <= 0 || bytes <= have) return;
  throw Error(what + " needs about " + gib(bytes) + " GiB (" + detail + "); this machine has " + gib(have) +
              " GiB. " + alternative);
}

bool is_allocation_failure(const char* what) {
  // LibTorch: "DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes",
  // "CUDA out of memory. Tried to allocate ...".
  return std::strstr(what, "can't allocate memory") != nullptr ||
         std::strstr(what, "out of memory") != nullptr || std::strcmp(what, "std::bad_alloc") == 0;
}

std::string out_of_memory_message(const std::string& step, const char* detail) {
  std::string first(detail == nullptr ? "" : detail);
  if (const size_t nl = first.find('\n'); nl != std::string::npos) first.resize(nl);
  return "out of memory while " + step + (first.empty() ? std::string() : " (" + first + ")") +
         "; free memory, or use a smaller configuration (lowrank.hidden, fewer threads) or a machine with "
         "more";
}

}  // namespace symgnn
