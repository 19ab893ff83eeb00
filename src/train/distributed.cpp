#include "train/distributed.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/nn/module.h>
#include <torch/types.h>
#include <torch/utils.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <thread>
#include <vector>

#include "symgnn/error.h"

// Defined by CMakeLists.txt where the headers were found.
#ifndef SYMGNN_HAVE_GLOO
#define SYMGNN_HAVE_GLOO 0
#endif
#ifndef SYMGNN_HAVE_NCCL
#define SYMGNN_HAVE_NCCL 0
#endif

#if SYMGNN_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif
#if SYMGNN_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace symgnn::train {

namespace {

/// The first line of a LibTorch error (the rest is a backtrace).
std::string first_line(const std::exception& e) {
  std::string s = e.what();
  if (const size_t nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

/// Holds what is written to stderr (fd 2) while alive: c10d logs a failed rendezvous on
/// stderr in several lines before it throws, and symgnn's error is one line. What a
/// successful rendezvous logged is passed on (replay()).
class CapturedStderr {
 public:
  CapturedStderr() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = file_ ? ::dup(STDERR_FILENO) : -1;
    if (saved_ >= 0) ::dup2(::fileno(file_), STDERR_FILENO);
  }
  ~CapturedStderr() {
    restore();
    if (file_) std::fclose(file_);
  }
  CapturedStderr(const CapturedStderr&) = delete;
  CapturedStderr& operator=(const CapturedStderr&) = delete;
  /// Stops capturing and writes what was captured to stderr.
  void replay() {
    restore();
    if (!file_) return;
    std::rewind(file_);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) std::fwrite(buf, 1, n, stderr);
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    saved_ = -1;
  }
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

std::pair<int64_t, int64_t> shard_range(int64_t n, int64_t rank, int64_t world_size) {
  return {n * rank / world_size, n * (rank + 1) / world_size};
}

bool distributed_available() {
  return SYMGNN_HAVE_GLOO != 0;
}

#if SYMGNN_HAVE_GLOO

struct ProcessGroup::Impl {
  int64_t rank = 0, size = 1;
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
#if SYMGNN_HAVE_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;
#endif

  /// Runs one collective on `tensors`, turning a peer's death into a one-line error.
  template <typename Op>
  void collective(const char* what, Op op) {
    try {
      op();
    } catch (const std::exception& e) {
      throw Error("rank " + std::to_string(rank) + " of " + std::to_string(size) + ": " + what +
                  " failed (another process of the group died or the network failed): " + first_line(e));
    }
  }
  /// One collective over `t` in place: `op(group, tensors)` on NCCL for a CUDA tensor
  /// where the build has it, else on Gloo with the tensor staged through the CPU.
  template <typename Op>
  void on_tensor(const char* what, at::Tensor& t, Op op) {
    collective(what, [&] {
#if SYMGNN_HAVE_NCCL
      if (nccl && t.is_cuda()) {
        std::vector<at::Tensor> v{t};
        op(*nccl, v);
        return;
      }
#endif
      std::vector<at::Tensor> v{t.is_cpu() ? t : t.to(at::kCPU)};
      op(*gloo, v);
      if (!t.is_cpu()) t.copy_(v[0]);
    });
  }
};

ProcessGroup::ProcessGroup(const DistributedEnv& env, const std::string& device) : impl_(new Impl) {
  impl_->rank = env.rank;
  impl_->size = env.world_size;
  const auto timeout = std::chrono::seconds(env.timeout_seconds);
  const std::string master = env.master_addr + ":" + std::to_string(env.port);
  // "cuda" without an index: each process takes the GPU of its LOCAL_RANK.
  if (device == "cuda")
    c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)
        ->setDevice(c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(env.local_rank)));
  CapturedStderr log;  // c10d's own lines about a failed rendezvous: the error says it in one
  c10d::TCPStoreOptions so;
  so.port = static_cast<uint16_t>(env.port);
  so.isServer = env.rank == 0;
  // The store's own wait for the workers gives up silently at its timeout (LibTorch 1.13-2.x),
  // and rank 0 then waited in Gloo's connection for 30 minutes: join() below counts the
  // ranks itself and fails at the timeout.
  so.numWorkers = static_cast<size_t>(env.world_size);
  so.waitWorkers = false;
  so.timeout = timeout;
  try {
    impl_->store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, so);
  } catch (const std::exception& e) {
    if (env.rank == 0)
      throw ConfigError(
          "MASTER_ADDR:MASTER_PORT " + master + ": rank 0 could not serve the rendezvous or not all " +
          std::to_string(env.world_size) + " ranks joined within " + std::to_string(env.timeout_seconds) +
          " s (port in use? every rank started?): " + first_line(e));
    throw ConfigError("MASTER_ADDR:MASTER_PORT " + master + ": rank 0 unreachable within " +
                      std::to_string(env.timeout_seconds) +
                      " s (is it running, and the address right?): " + first_line(e));
  }
  join(env);
  try {
#if SYMGNN_HAVE_NCCL
    if (device.rfind("cuda", 0) == 0) {
      impl_->nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(impl_->store, static_cast<int>(env.rank),
                                                                static_cast<int>(env.world_size));
      log.replay();
      return;
    }
#endif
    auto opts = c10d::ProcessGroupGloo::Options::create(std::chrono::minutes(30));
    // Gloo's transport binds an address of this machine that the other ranks can reach:
    // loopback for a one-machine group, the interface in GLOO_SOCKET_IFNAME (PyTorch's
    // variable) when set, else the address the host name resolves to.
    if (is_loopback(env.master_addr))
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    else if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"))
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
    else
      opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    opts->timeout = std::chrono::minutes(30);
    impl_->gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, static_cast<int>(env.rank),
                                                              static_cast<int>(env.world_size), opts);
    log.replay();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw ConfigError("rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size) +
                      ": could not connect to the other ranks (via " + master + "): " + first_line(e));
  }
}

/// Every rank adds itself to a counter in the store and waits until all have: ConfigError
/// naming how many came when the timeout passes first.
void ProcessGroup::join(const DistributedEnv& env) {
  const std::string who = "rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(env.timeout_seconds);
  try {
    int64_t joined = impl_->store->add("symgnn/joined", 1);
    while (joined < env.world_size) {
      if (std::chrono::steady_clock::now() > deadline)
        throw ConfigError(
            who + ": only " + std::to_string(joined) + " of " + std::to_string(env.world_size) +
            " ranks joined at " + env.master_addr + ":" + std::to_string(env.port) + " within " +
            std::to_string(env.timeout_seconds) +
            " s (SYMGNN_DIST_TIMEOUT): start every rank, with the same MASTER_ADDR and MASTER_PORT");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      joined = impl_->store->add("symgnn/joined", 0);
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw ConfigError(who + ": the rendezvous at " + env.master_addr + ":" + std::to_string(env.port) +
                      " failed: " + first_line(e));
  }
}

void ProcessGroup::agree(const std::string& what, const std::string& value) {
  const std::string who = "rank " + std::to_string(impl_->rank) + " of " + std::to_string(impl_->size);
  const std::string key = "symgnn/agree/" + what + "/";
  try {
    impl_->store->set(key + std::to_string(impl_->rank), std::vector<uint8_t>(value.begin(), value.end()));
    for (int64_t r = 0; r < impl_->size; ++r) {
      if (r == impl_->rank) continue;
      const std::vector<uint8_t> other = impl_->store->get(key + std::to_string(r));
      if (std::string(other.begin(), other.end()) != value)
        throw ConfigError(who + ": its " + what + " differs from rank " + std::to_string(r) +
                          "'s: start every rank with the same arguments, config and data files");
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw ConfigError(who + ": comparing the " + what +
                      " with the other ranks failed (did one stop?): " + first_line(e));
  }
}

ProcessGroup::~ProcessGroup() = default;

int64_t ProcessGroup::rank() const {
  return impl_->rank;
}
int64_t ProcessGroup::size() const {
  return impl_->size;
}
std::string ProcessGroup::backend() const {
#if SYMGNN_HAVE_NCCL
  if (impl_->nccl) return "nccl";
#endif
  return "gloo";
}

void ProcessGroup::sum(at::Tensor& t) {
  impl_->on_tensor("all-reduce", t, [](auto& pg, std::vector<at::Tensor>& v) { pg.allreduce(v)->wait(); });
}

void ProcessGroup::broadcast(at::Tensor& t) {
  impl_->on_tensor("broadcast", t, [](auto& pg, std::vector<at::Tensor>& v) { pg.broadcast(v)->wait(); });
}

void ProcessGroup::barrier() {
  impl_->collective("barrier", [&] {
#if SYMGNN_HAVE_NCCL
    if (impl_->nccl) {
      impl_->nccl->barrier()->wait();
      return;
    }
#endif
    impl_->gloo->barrier()->wait();
  });
}

#else  // no c10d Gloo in this build

struct ProcessGroup::Impl {};

ProcessGroup::ProcessGroup(const DistributedEnv& env, const std::string&) {
  throw ConfigError("WORLD_SIZE=" + std::to_string(env.world_size) +
                    ": this build has no multi-process training (c10d Gloo headers not found at build "
                    "time: install libgloo-dev, scripts/setup.sh, and rebuild)");
}
ProcessGroup::~ProcessGroup() = default;
void ProcessGroup::join(const DistributedEnv&) {}
void ProcessGroup::agree(const std::string&, const std::string&) {}
int64_t ProcessGroup::rank() const {
  return 0;
}
int64_t ProcessGroup::size() const {
  return 1;
}
std::string ProcessGroup::backend() const {
  return "none";
}
void ProcessGroup::sum(at::Tensor&) {}
void ProcessGroup::broadcast(at::Tensor&) {}
void ProcessGroup::barrier() {}

#endif

void broadcast_module(ProcessGroup& group, torch::nn::Module& m) {
  torch::NoGradGuard no_grad;
  // One message per dtype would do; parameters are few and this runs once per run.
  for (auto& p : m.parameters()) {
    at::Tensor t = p.data();
    group.broadcast(t);
  }
  for (auto& b : m.buffers()) {
    at::Tensor t = b.data();
    group.broadcast(t);
  }
}

void average_gradients(ProcessGroup* group, const std::vector<at::Tensor>& params, double weight,
                       std::vector<double>& figures) {
  if (group == nullptr) return;
  torch::NoGradGuard no_grad;
  // One float64 buffer: one message per step, and the weighted sum rounds once to float.
  std::vector<at::Tensor> parts;
  at::Device device = at::kCPU;
  for (const auto& p : params)
    if (p.grad().defined()) {
      parts.push_back(p.grad().reshape(-1).to(at::kDouble));
      device = p.grad().device();
    }
  parts.push_back(torch::tensor(figures, torch::dtype(torch::kFloat64)).to(device));
  at::Tensor flat = torch::cat(parts).mul_(weight);
  group->sum(flat);
  int64_t offset = 0;
  for (const auto& p : params)
    if (p.grad().defined()) {
      at::Tensor g = p.grad();
      g.copy_(flat.narrow(0, offset, g.numel()).view(g.sizes()));
      offset += g.numel();
    }
  const at::Tensor f = flat.narrow(0, offset, static_cast<int64_t>(figures.size())).to(at::kCPU);
  for (size_t k = 0; k < figures.size(); ++k) figures[k] = f[static_cast<int64_t>(k)].item<double>();
}

}  // namespace symgnn::train
