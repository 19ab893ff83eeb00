/// @file distributed_env.h
/// torchrun's rendezvous variables, read and checked before any process group exists.
/// Torch-free, so that the multi-process start-up's input is fuzzed
/// (fuzz/fuzz_command_inputs.cpp) like the files are.
#pragma once

#include <cstdint>
#include <string>

namespace symgnn::train {

/// torchrun's rendezvous convention, read from the environment.
struct DistributedEnv {
  int64_t rank = 0;
  int64_t world_size = 1;  // 1: a single process, no process group
  int64_t local_rank = 0;  // the rank on this machine (picks the GPU)
  std::string master_addr;
  int port = 0;
  /// Seconds to wait for every rank at the rendezvous (SYMGNN_DIST_TIMEOUT, default 300).
  int64_t timeout_seconds = 300;
};

/// Reads MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE and LOCAL_RANK. WORLD_SIZE unset or 1
/// is a single process (the other variables are then ignored); otherwise every variable
/// must be set and well-formed (LOCAL_RANK defaults to RANK), with RANK < WORLD_SIZE:
/// ConfigError naming the variable.
DistributedEnv read_distributed_env();

}  // namespace symgnn::train
