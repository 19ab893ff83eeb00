#include "models/kernels/pair_rows.h"

#include <ATen/ATen.h>

namespace symgnn::models {

void check_pair_ids(const at::Tensor& ids, int64_t n, const char* kernel, const char* what) {
  if (ids.numel() == 0) return;
  const auto [lo, hi] = at::aminmax(ids);
  TORCH_CHECK(lo.item<int64_t>() >= 0 && hi.item<int64_t>() < n, kernel, ": ", what, " ids outside [0, ", n,
              ")");
}

}  // namespace symgnn::models
