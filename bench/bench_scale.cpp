// Scale benchmark (issue 14, docs/scale.md): the low-rank G model (the paper's reading,
// hidden 32) on Douban and on generated sets of 1 M, 5 M, 10 M (ml10m-like) and 100 M
// (netflix-like) ratings. Prints figures; asserts nothing. For each set:
//   1. end to end, as a user runs it: `symgnn train` as a child process, seconds per epoch
//      (history.csv: the median of the epochs after the first), the process's peak resident memory
//      (wait4's ru_maxrss) and that peak per training rating; then the same with
//      `--nproc 2` (two processes, one thread each) beside one process with one thread;
//   2. in this process, on the same data: one training step (forward, backward, AdamW) of
//      symgnn's LowRankModel split into its stages, the same model written naively with
//      torch's own sparse ops (bench/naive_lowrank.h), and a roofline estimate of the
//      step from its FLOPs and bytes against this machine's measured matrix-multiply rate
//      and memory bandwidth.
// Generated sets are made once with `symgnn data generate` under --work and reused.
//
//   OMP_WAIT_POLICY=PASSIVE build/bench/bench_scale [--sets douban,1m,5m,10m,100m]
//       [--work /tmp/symgnn-scale] [--epochs 4] [--threads 1] [--naive-max 10000000]
//       [--no-nproc] [--no-inprocess] [--device cpu|cuda] [--cache-mib N] [--set KEY=VALUE ...]
// --set (repeatable) passes config overrides to the `symgnn train` children, e.g.
// `--set train.objective=joint` for the cost of the ranking objective beside the rating one
// (docs/recommend.md); the in-process stages always measure the rating objective.
// With --device cuda the machine's rates are the GPU's (a float32 matrix product and a
// copy on the device), every timed region ends with a device synchronisation, the cache of
// the roofline is the GPU's L2 (--cache-mib, e.g. 50 for an H100: LibTorch's C++ API does
// not report it), and the peak memory of a run is the CUDA caching allocator's.
#include <sys/resource.h>
#include <sys/wait.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "naive_lowrank.h"
#include "runtime/runtime.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "train/history_csv.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace symgnn;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Options {
  std::vector<std::string> sets = {"douban", "1m", "5m", "10m", "100m"};
  std::string work = "/tmp/symgnn-scale";
  std::string data_dir;
  std::string symgnn;
  std::string device = "cpu";
  int epochs = 4;
  int threads = 1;
  int64_t naive_max = 10000000;
  double cache_mib = 0;  // 0: the CPU's last-level cache from sysfs
  bool nproc = true;
  bool inprocess = true;
  std::vector<std::string> sets_extra;  // --set overrides for the train children
  bool cuda() const { return device.rfind("cuda", 0) == 0; }
};

/// Waits for the device's queued work, so that a host clock read after it counts it.
void sync(const Options& o) {
  if (o.cuda()) torch::cuda::synchronize();
}

/// A set: a file the loaders read, or the arguments of `symgnn data generate`.
struct SetSpec {
  std::string name;
  std::string source;                 // non-empty: an existing file
  std::vector<std::string> generate;  // else: generated under work/name
};

SetSpec spec_of(const std::string& name, const Options& o) {
  if (name == "douban") return {name, o.data_dir + "/monti/douban.mat", {}};
  if (name == "1m") return {name, "", {"--users", "20000", "--items", "5000", "--ratings", "1000000"}};
  if (name == "5m") return {name, "", {"--users", "100000", "--items", "20000", "--ratings", "5000000"}};
  if (name == "10m") return {name, "", {"--preset", "ml10m-like"}};
  if (name == "100m") return {name, "", {"--preset", "netflix-like"}};
  std::fprintf(stderr, "bench_scale: unknown set '%s' (douban, 1m, 5m, 10m, 100m)\n", name.c_str());
  std::exit(2);
}

struct ChildResult {
  int status = -1;
  double wall = 0;
  int64_t peak_rss = 0;  // bytes, the largest of the process and its waited-for children
};

/// Runs argv as a child process and waits: exit status, wall seconds, peak RSS.
ChildResult run_child(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);  // or the child's exit would print this process's buffered lines again
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    if (!log.empty()) {
      (void)!freopen(log.c_str(), "w", stdout);
      (void)!freopen(log.c_str(), "a", stderr);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  ChildResult r;
  struct rusage ru {};
  wait4(pid, &r.status, 0, &ru);
  r.wall = seconds_since(t0);
  r.peak_rss = static_cast<int64_t>(ru.ru_maxrss) * 1024;  // kilobytes on Linux
  // Linux's wait4 reports the larger of the child's peak and its waited-for children's:
  // under --nproc, the largest rank's peak.
  return r;
}

/// Median of history.csv's `seconds` column over the epochs after the first: the steady
/// state. The first epochs also grow the heap that later ones reuse (runtime/runtime.h,
/// keep_freed_memory), which at 5 M ratings made the second epoch 1.8 s against 0.6 s for
/// the third and fourth.
double seconds_per_epoch(const std::string& history) {
  const train::HistoryTable t = train::read_history_csv(history);
  const int col = t.column("seconds");
  if (col < 0) throw DataError(history, 0, "no seconds column");
  std::vector<double> s;
  for (const auto& row : t.rows) s.push_back(row[static_cast<size_t>(col)]);
  if (s.size() > 1) s.erase(s.begin());
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end());
  const size_t m = s.size() / 2;
  return s.size() % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/// The data arguments of `symgnn train` for a set, generating it first when needed.
std::vector<std::string> data_args(const SetSpec& s, const Options& o) {
  if (!s.source.empty()) return {"--data", s.source};
  const std::string dir = o.work + "/" + s.name;
  if (!fs::exists(dir + "/data.conf")) {
    std::vector<std::string> args = {o.symgnn, "data", "generate", "--out", dir, "--overwrite"};
    args.insert(args.end(), s.generate.begin(), s.generate.end());
    std::printf("  generating %s ...\n", dir.c_str());
    std::fflush(stdout);
    const ChildResult g = run_child(args, o.work + "/" + s.name + "-generate.log");
    if (g.status != 0) {
      std::printf("  generation failed (see %s-generate.log)\n", (o.work + "/" + s.name).c_str());
      return {};
    }
    std::printf("  generated in %.1f s\n", g.wall);
  }
  return {"--config", dir + "/data.conf"};
}

struct TrainFigures {
  bool ok = false;
  double s_per_epoch = 0, wall = 0;
  int64_t peak = 0;         // the process's peak resident memory
  int64_t device_peak = 0;  // on CUDA: the caching allocator's peak (metrics.json)
};

/// metrics.json's peak_memory_bytes: on CUDA, the caching allocator's allocated peak.
int64_t metrics_peak(const std::string& path) {
  std::ifstream in(path);
  if (!in) return 0;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() && j.contains("peak_memory_bytes") ? j["peak_memory_bytes"].get<int64_t>() : 0;
}

TrainFigures train_cli(const std::vector<std::string>& data, const Options& o, const std::string& tag,
                       int nproc, int threads) {
  const std::string out = o.work + "/runs/" + tag;
  std::vector<std::string> args = {o.symgnn, "train"};
  args.insert(args.end(), data.begin(), data.end());
  for (const char* a : {"--preset", "paper", "--set", "lowrank.variant=G", "--set", "lowrank.hidden=32",
                        "--progress", "lines", "--overwrite"})
    args.push_back(a);
  args.insert(args.end(), {"--epochs", std::to_string(o.epochs), "--threads", std::to_string(threads),
                           "--out", out, "--set", "train.device=" + o.device});
  if (nproc > 1) args.insert(args.end(), {"--nproc", std::to_string(nproc)});
  for (const std::string& kv : o.sets_extra) args.insert(args.end(), {"--set", kv});
  fs::create_directories(o.work + "/runs");
  const ChildResult r = run_child(args, out + ".log");
  TrainFigures f;
  f.wall = r.wall;
  f.peak = r.peak_rss;
  f.ok = r.status == 0;
  if (f.ok) f.s_per_epoch = seconds_per_epoch(out + "/run0/history.csv");
  if (f.ok && o.cuda()) f.device_peak = metrics_peak(out + "/metrics.json");
  return f;
}

// ---- the machine: matrix-multiply rate and memory bandwidth, measured -----------------

struct Machine {
  double flops = 0;      // FLOP/s of a large float32 matrix product
  double bandwidth = 0;  // bytes/s of a large copy (read + write)
  double cache = 0;      // last-level cache bytes (gathers from larger tables miss it)
};

/// The last-level cache of one core's cache hierarchy, as the kernel reports it
/// (/sys/devices/system/cpu/cpu0/cache/indexN/size, "32768K"); glibc's sysconf reads CPUID,
/// which in this machine's virtual CPU sums the host's caches (320 MiB for a 32 MiB L3).
/// sysconf only where sysfs has no figure.
double last_level_cache() {
  double best = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string size;
    if (!(in >> size) || size.empty()) continue;
    double bytes = std::atof(size.c_str());
    if (size.back() == 'K') bytes *= 1024;
    if (size.back() == 'M') bytes *= 1024 * 1024;
    best = std::max(best, bytes);
  }
  if (best > 0) return best;
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return static_cast<double>(l3 > 0 ? l3 : (l2 > 0 ? l2 : 8 << 20));
}

Machine measure_machine(const Options& o) {
  Machine m;
  const auto on = torch::TensorOptions().device(at::Device(o.device));
  const int64_t n = o.cuda() ? 8192 : 2048;  // big enough to reach the unit's rate
  const at::Tensor a = torch::randn({n, n}, on), b = torch::randn({n, n}, on);
  at::Tensor c = torch::mm(a, b);
  sync(o);
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    c = torch::mm(a, b);
    sync(o);
    best = std::min(best, seconds_since(t0));
  }
  m.flops = 2.0 * double(n) * double(n) * double(n) / best;
  const int64_t len = o.cuda() ? (int64_t{512} << 20) : (int64_t{64} << 20);  // 2 GB / 256 MB each
  const at::Tensor x = torch::rand({len}, on), y = torch::empty_like(x);
  y.copy_(x);
  sync(o);
  best = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    y.copy_(x);
    sync(o);
    best = std::min(best, seconds_since(t0));
  }
  m.bandwidth = 2.0 * static_cast<double>(x.numel()) * 4 / best;
  m.cache = o.cache_mib > 0 ? o.cache_mib * (1 << 20) : last_level_cache();
  return m;
}

// ---- the roofline of one training step of the low-rank G model ------------------------

/// Sums, over the step's operations, max(FLOPs / rate, bytes / bandwidth): the time no
/// implementation on this machine can beat for that sequence of operations. Bytes are the
/// compulsory traffic (each operand read once, each result written once), plus one row per
/// entry for gathers from a table larger than the last-level cache.
struct Roofline {
  const Machine& m;
  double d;
  double flops = 0, bytes = 0, seconds = 0;
  void op(double f, double b) {
    flops += f;
    bytes += b;
    seconds += std::max(f / m.flops, b / m.bandwidth);
  }
  double row_gather(double entries, double table_rows) const {
    return table_rows * d * 4 > m.cache ? entries * d * 4 : table_rows * d * 4;
  }
  void gemm(double n, double k, double c) { op(2 * n * k * c, 4 * (n * k + k * c + n * c)); }
  void spmm(double nnz, double n_out, double n_in) {
    op(2 * nnz * d, nnz * 12 + n_out * 8 + row_gather(nnz, n_in) + n_out * d * 4);
  }
  void elementwise(double n, double passes) { op(n * passes / 3, 4 * n * passes); }
};

/// One step (forward, backward, AdamW) of lowrank-G with d, L layers, K classes.
Roofline step_roofline(const Machine& mach, const models::ModelContext& ctx, int64_t d_, int64_t layers,
                       int64_t params) {
  Roofline r{mach, static_cast<double>(d_)};
  const double d = static_cast<double>(d_), k = static_cast<double>(ctx.h.size());
  const double pairs = static_cast<double>(ctx.train_users.numel());
  for (int side = 0; side < 2; ++side) {
    const double n = static_cast<double>(side == 0 ? ctx.n1 : ctx.n2);
    const double n_other = static_cast<double>(side == 0 ? ctx.n2 : ctx.n1);
    const auto& at = side == 0 ? ctx.at1 : ctx.at2;
    const double a_nnz = at.identity ? 0 : static_cast<double>(at.nnz());
    // forward and backward (twice the products for the input and the weight gradients)
    for (int pass = 0; pass < 3; ++pass) {
      r.gemm(n, d, d);  // Uh = MLP(E)
      for (int64_t l = 0; l < layers; ++l) {
        r.gemm(n, d, d);
        if (pass < 2 && a_nnz > 0) r.spmm(a_nnz, n, n);  // At y forward; At^T dY backward
        r.elementwise(n * d, 4);
      }
      // the K products by Theta_k, on whichever side has fewer rows (prior_aggregation.h)
      for (int c = 0; c < static_cast<int>(k); ++c) r.gemm(std::min(n, n_other), d, d);
      r.gemm(n, k * d, d);  // the prior's MLP
      r.elementwise(n * d * (k + 3), 2);
    }
    r.spmm(pairs, n, n_other);  // norm(H_k) Uh_other, all classes: forward
    r.spmm(pairs, n_other, n);  // and backward (the transpose)
  }
  const double n1 = static_cast<double>(ctx.n1), n2 = static_cast<double>(ctx.n2);
  // decoder <U1_i, U2_j>: forward reads both rows, backward writes both gradients
  r.op(2 * pairs * d, pairs * 20 + r.row_gather(pairs, n1) + r.row_gather(pairs, n2));
  r.op(4 * pairs * d, pairs * 20 + 2 * (r.row_gather(pairs, n1) + r.row_gather(pairs, n2)));
  r.elementwise(pairs, 6);                                                   // MSE and its gradient
  r.op(12 * static_cast<double>(params), 28 * static_cast<double>(params));  // AdamW
  return r;
}

// ---- in-process timing -----------------------------------------------------------------

struct StepTimes {
  double loss = 0, backward = 0, step = 0, total = 0;  // step: zero_grad and the optimiser
};

StepTimes time_symgnn(const models::ModelContext& ctx, int repeats, int64_t* params, const Options& o) {
  RunConfig cfg = preset_config("paper");
  cfg.lowrank.variant = "G";
  cfg.lowrank.hidden = 32;
  torch::manual_seed(1);
  auto model = models::make_model(cfg, ctx);
  model->to(at::Device(o.device));
  *params = 0;
  for (const auto& p : model->parameters()) *params += p.numel();
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(0.01));
  StepTimes t;
  for (int i = -1; i < repeats; ++i) {
    const auto t0 = Clock::now();
    model->train();
    opt.zero_grad();
    sync(o);
    const auto t1 = Clock::now();
    at::Tensor loss = model->training_loss(ctx.train_users, ctx.train_items, ctx.train_values, nullptr);
    sync(o);
    const auto t2 = Clock::now();
    loss.backward();
    sync(o);
    const auto t3 = Clock::now();
    opt.step();
    sync(o);
    const auto t4 = Clock::now();
    if (i < 0) continue;  // warm-up
    t.loss += std::chrono::duration<double>(t2 - t1).count();
    t.backward += std::chrono::duration<double>(t3 - t2).count();
    t.step += std::chrono::duration<double>(t4 - t3).count() + std::chrono::duration<double>(t1 - t0).count();
  }
  t.loss /= repeats, t.backward /= repeats, t.step /= repeats;
  t.total = t.loss + t.backward + t.step;
  return t;
}

double time_naive(const models::ModelContext& ctx, int repeats, const Options& o) {
  torch::manual_seed(1);
  auto naive = std::make_shared<bench::NaiveLowRankG>(ctx, 32, 2);
  naive->to(at::Device(o.device));
  torch::optim::AdamW opt(naive->parameters(), torch::optim::AdamWOptions(0.01));
  double total = 0;
  for (int i = -1; i < repeats; ++i) {
    const auto t0 = Clock::now();
    opt.zero_grad();
    naive->loss(ctx.train_users, ctx.train_items, ctx.train_values).backward();
    opt.step();
    sync(o);
    if (i >= 0) total += seconds_since(t0);
  }
  return total / repeats;
}

std::string mib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const char* env_data = std::getenv("SYMGNN_DATA_DIR");
  o.data_dir = env_data ? env_data : "../shared/data";
  o.symgnn = (fs::path(argv[0]).parent_path().parent_path() / "symgnn").string();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_scale: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--sets") {
      o.sets.clear();
      std::stringstream ss(value());
      for (std::string s; std::getline(ss, s, ',');) o.sets.push_back(s);
    } else if (a == "--work") {
      o.work = value();
    } else if (a == "--data-dir") {
      o.data_dir = value();
    } else if (a == "--epochs") {
      o.epochs = std::stoi(value());
    } else if (a == "--threads") {
      o.threads = std::stoi(value());
    } else if (a == "--naive-max") {
      o.naive_max = std::stoll(value());
    } else if (a == "--device") {
      o.device = value();
    } else if (a == "--cache-mib") {
      o.cache_mib = std::stod(value());
    } else if (a == "--no-nproc") {
      o.nproc = false;
    } else if (a == "--no-inprocess") {
      o.inprocess = false;
    } else if (a == "--set") {
      o.sets_extra.push_back(value());
    } else {
      std::fprintf(stderr, "bench_scale: unknown option %s (see the comment at the top of bench_scale.cpp)\n",
                   a.c_str());
      return 2;
    }
  }
  fs::create_directories(o.work);
  runtime::set_compute_threads(o.threads);
  runtime::keep_freed_memory();
  // End to end first, each run a fresh child process. A child's peak resident memory
  // (wait4's ru_maxrss) starts from what it inherits at fork, so the children are started
  // while this process is small, before it loads any set or measures the machine.
  // The baseline, a run on the embedded 300 x 300 set, is what every run pays whatever
  // its size (LibTorch, OpenBLAS, the program, and that inheritance); the per-rating
  // figure leaves it out.
  const TrainFigures base = train_cli({"--data", "synthetic", "--no-compare"}, o, "baseline", 1, o.threads);
  const int64_t baseline = base.ok ? base.peak : 0;
  struct SetRuns {
    std::vector<std::string> data;
    TrainFigures one, two;
  };
  std::vector<SetRuns> runs;
  for (const auto& name : o.sets) {
    const SetSpec s = spec_of(name, o);
    SetRuns r;
    if (!s.source.empty() && !fs::exists(s.source)) {
      std::printf("%s skipped: %s not found (set SYMGNN_DATA_DIR)\n", name.c_str(), s.source.c_str());
    } else {
      r.data = data_args(s, o);
      if (!r.data.empty()) {
        r.one = train_cli(r.data, o, name + "-1proc", 1, o.threads);
        if (r.one.ok && o.nproc) r.two = train_cli(r.data, o, name + "-2proc", 2, 1);
      }
    }
    runs.push_back(r);
  }

  const Machine mach = measure_machine(o);
  std::printf(
      "machine (%s): %.1f GFLOP/s (float32 mm), %.1f GB/s (copy), last-level cache %.0f MiB; "
      "%d thread(s); model lowrank-G (paper preset), hidden 32, 2 CGE layers\n",
      o.device.c_str(), mach.flops / 1e9, mach.bandwidth / 1e9, mach.cache / (1 << 20), o.threads);
  std::printf("baseline: peak %s for `symgnn train` on the embedded 300 x 300 set\n", mib(baseline).c_str());
  for (size_t i = 0; i < o.sets.size(); ++i) {
    const std::string& name = o.sets[i];
    const SetRuns& r = runs[i];
    if (r.data.empty()) continue;
    std::printf("\n== %s\n", name.c_str());
    int64_t n_train = 0;
    if (o.inprocess) {
      RunConfig cfg = preset_config("paper");
      if (r.data[0] == "--data")
        cfg.data.source = r.data[1];
      else
        load_config_file(cfg, r.data[1]);
      const auto t0 = Clock::now();
      Dataset ds = load_dataset(cfg.data);
      graph::resolve_graphs(ds, cfg.graph);
      const models::ModelContext ctx = models::make_context(ds).to(at::Device(o.device));
      runtime::keep_large_blocks_in_heap();  // as train_sweep does before training
      n_train = static_cast<int64_t>(ds.train.size());
      std::printf(
          "  %lld users x %lld items, %lld training ratings, user graph %lld / item graph %lld entries "
          "(loaded in %.1f s)\n",
          static_cast<long long>(ctx.n1), static_cast<long long>(ctx.n2), static_cast<long long>(n_train),
          static_cast<long long>(ctx.at1.nnz()), static_cast<long long>(ctx.at2.nnz()), seconds_since(t0));
      const int repeats = n_train > 20000000 ? 1 : 3;
      int64_t params = 0;
      const StepTimes t = time_symgnn(ctx, repeats, &params, o);
      const Roofline roof = step_roofline(mach, ctx, 32, 2, params);
      std::printf("  symgnn step %.4f s = forward+loss %.4f + backward %.4f + optimiser %.4f\n", t.total,
                  t.loss, t.backward, t.step);
      std::printf("  roofline    %.5f s (%.2f GFLOP, %.2f GB): measured / roofline = %.1fx\n", roof.seconds,
                  roof.flops / 1e9, roof.bytes / 1e9, t.total / roof.seconds);
      if (n_train <= o.naive_max) {
        const double naive = time_naive(ctx, repeats, o);
        std::printf("  naive torch %.4f s (sparse COO mm, index_select): symgnn is %.1fx faster\n", naive,
                    naive / t.total);
      } else {
        std::printf("  naive torch skipped above --naive-max %lld ratings\n",
                    static_cast<long long>(o.naive_max));
      }
    }
    if (!r.one.ok) {
      std::printf("  symgnn train failed (see %s/runs/%s-1proc.log)\n", o.work.c_str(), name.c_str());
      continue;
    }
    std::printf("  train, 1 process x %d thread(s): %.4f s/epoch, peak %s", o.threads, r.one.s_per_epoch,
                mib(r.one.peak).c_str());
    if (n_train > 0)
      std::printf(", %.0f bytes per training rating above the baseline",
                  double(r.one.peak - baseline) / double(n_train));
    if (r.one.device_peak > 0)
      std::printf(", GPU peak %s = %.0f bytes per training rating", mib(r.one.device_peak).c_str(),
                  n_train > 0 ? double(r.one.device_peak) / double(n_train) : 0.0);
    std::printf(" (%d epochs, %.1f s wall)\n", o.epochs, r.one.wall);
    if (o.nproc && r.two.ok)
      std::printf(
          "  train, 2 processes x 1 thread: %.3f s/epoch (%.2fx of 1 process), peak %s per process, "
          "%.1f s wall\n",
          r.two.s_per_epoch, r.one.s_per_epoch / r.two.s_per_epoch, mib(r.two.peak).c_str(), r.two.wall);
    else if (o.nproc)
      std::printf("  train --nproc 2 failed (see %s/runs/%s-2proc.log)\n", o.work.c_str(), name.c_str());
    std::fflush(stdout);
  }
  return 0;
}
