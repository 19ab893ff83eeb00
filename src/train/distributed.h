// Multi-process data-parallel training (docs/scale.md, "Several processes and machines").
// Every rank builds the same full-graph model from all training ratings with the same
// seeds, so forward passes (dropout masks included) agree; what is split is the loss: rank
// r scores its contiguous shard of the training pairs, and after backward each gradient is
// weighted by the shard's share of all pairs and summed over the ranks. That is the
// one-process gradient of the mean loss up to float summation order, so every rank takes
// the same optimiser step and the parameters stay equal. The engine is PyTorch's own c10d
// (ProcessGroupGloo on CPU, ProcessGroupNCCL for CUDA where the build has it); its heavy
// headers stay in distributed.cpp.
#pragma once

#include <ATen/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "train/distributed_env.h"

namespace torch::nn {
class Module;
}

namespace symgnn::train {


/// One process's membership of the training group. Every call is collective: all ranks
/// make the same calls in the same order.
class ProcessGroup {
 public:
  /// Joins the group (rank 0 serves the rendezvous store at MASTER_ADDR:MASTER_PORT).
  /// `device`: the training device ("cpu", "cuda", "cuda:N"); NCCL serves CUDA where the
  /// build has it, Gloo everything else. ConfigError when the master cannot be reached or
  /// not every rank arrives within env.timeout_seconds, or when this build has no c10d.
  ProcessGroup(const DistributedEnv& env, const std::string& device);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int64_t rank() const;
  int64_t size() const;
  /// "gloo" or "nccl".
  std::string backend() const;

  /// t <- the sum of every rank's t, in place (any device; staged through the CPU for Gloo).
  void sum(at::Tensor& t);
  /// t <- rank 0's t, in place.
  void broadcast(at::Tensor& t);
  /// Returns when every rank has called it.
  void barrier();
  /// Checks that every rank gives the same `value` (a hash of the run's config, of its
  /// data): ConfigError naming `what` where one differs, on every rank, instead of ranks
  /// that train different models and wait for each other forever.
  void agree(const std::string& what, const std::string& value);

 private:
  void join(const DistributedEnv& env);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The rank's shard [begin, end) of n training pairs: contiguous, sizes differing by at
/// most one, covering all n over the ranks.
std::pair<int64_t, int64_t> shard_range(int64_t n, int64_t rank, int64_t world_size);

/// Every parameter and buffer of `m` set to rank 0's (one message).
void broadcast_module(ProcessGroup& group, torch::nn::Module& m);

/// The data-parallel reduction after backward: each gradient of `params` and each value of
/// `figures` (the step's loss, its squared error, ...) multiplied by `weight` (this rank's
/// share of the loss pairs) and summed over the ranks, in one all-reduce. Nothing happens
/// without a group (a single process: the figures are already global).
void average_gradients(ProcessGroup* group, const std::vector<at::Tensor>& params, double weight,
                       std::vector<double>& figures);

/// Whether this build can form a process group (c10d with Gloo).
bool distributed_available();

}  // namespace symgnn::train
