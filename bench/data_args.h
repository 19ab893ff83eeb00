// The data options the dataset benchmarks share (bench_load, bench_memory,
// bench_batch_reach): --config FILE, --data SOURCE and --set key=value, read into the
// run configuration the way `symgnn train` reads them.
#pragma once

#include <string>

#include "symgnn/config.h"

namespace bench {

/// Applies option `a` with value `v` to cfg; false when `a` is none of the three.
inline bool apply_data_arg(symgnn::RunConfig& cfg, const std::string& a, const std::string& v) {
  if (a == "--config") {
    symgnn::load_config_file(cfg, v);
  } else if (a == "--data") {
    cfg.data.source = v;
  } else if (a == "--set") {
    symgnn::apply_override(cfg, v);
  } else {
    return false;
  }
  return true;
}

}  // namespace bench
