/// @file distributed_env.cpp
/// Reading torchrun's variables (train/distributed_env.h).
#include "train/distributed_env.h"

#include <cstdlib>
#include <limits>

#include "symgnn/error.h"

namespace symgnn::train {

namespace {

/// A non-negative integer environment variable; `fallback` when unset.
int64_t env_int(const char* name, int64_t fallback, int64_t max = std::numeric_limits<int32_t>::max()) {
  const char* v = std::getenv(name);
  if (v == nullptr) return fallback;
  const std::string s = v;
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos)
    throw ConfigError(std::string(name) + "=" + s + ": must be a non-negative integer");
  const int64_t n = std::stoll(s);
  if (n > max) throw ConfigError(std::string(name) + "=" + s + ": must be at most " + std::to_string(max));
  return n;
}

}  // namespace

DistributedEnv read_distributed_env() {
  DistributedEnv env;
  env.world_size = env_int("WORLD_SIZE", 1);
  if (env.world_size == 0) throw ConfigError("WORLD_SIZE=0: must be at least 1");
  if (env.world_size == 1) return env;
  const std::string ws = "WORLD_SIZE=" + std::to_string(env.world_size);
  for (const char* name : {"MASTER_ADDR", "MASTER_PORT", "RANK"})
    if (std::getenv(name) == nullptr)
      throw ConfigError(std::string(name) + " is not set (" + ws +
                        " asks for a multi-process run: set MASTER_ADDR, MASTER_PORT, RANK and "
                        "LOCAL_RANK too, or use train --nproc on one machine)");
  env.master_addr = std::getenv("MASTER_ADDR");
  if (env.master_addr.empty()) throw ConfigError("MASTER_ADDR is empty: the host name or address of rank 0");
  env.port = static_cast<int>(env_int("MASTER_PORT", 0, 65535));
  if (env.port == 0) throw ConfigError("MASTER_PORT=0: must be a port from 1 to 65535");
  env.rank = env_int("RANK", 0);
  if (env.rank >= env.world_size)
    throw ConfigError("RANK=" + std::to_string(env.rank) + ": must be less than " + ws);
  env.local_rank = env_int("LOCAL_RANK", env.rank);
  env.timeout_seconds = env_int("SYMGNN_DIST_TIMEOUT", 300);
  if (env.timeout_seconds == 0) throw ConfigError("SYMGNN_DIST_TIMEOUT=0: must be at least 1 (seconds)");
  return env;
}

}  // namespace symgnn::train
