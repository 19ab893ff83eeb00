#include "train/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "symgnn/error.h"
#include "train/checkpoint.h"
#include "train/memory.h"
#include "train/seeds.h"
#include "util/atomic_file.h"

namespace fs = std::filesystem;

namespace symgnn::train {

double rmse(const at::Tensor& pred, const at::Tensor& target, float lo, float hi) {
  if (target.numel() == 0) return std::numeric_limits<double>::quiet_NaN();
  auto diff = pred.detach().to(torch::kFloat64).clamp(lo, hi) - target.to(torch::kFloat64);
  return std::sqrt(diff.pow(2).mean().item<double>());
}

namespace {

using Clock = std::chrono::steady_clock;

at::Tensor index_tensor(const std::vector<int64_t>& v, const at::Device& d) {
  return torch::tensor(v, torch::dtype(torch::kInt64)).to(d);
}
at::Tensor value_tensor(const std::vector<float>& v, const at::Device& d) {
  return torch::tensor(v, torch::dtype(torch::kFloat32)).to(d);
}

/// Validation and test pairs concatenated, so one forward pass scores both.
struct EvalSet {
  at::Tensor users, items, values;
  int64_t n_val = 0;
};

EvalSet make_eval_set(const Dataset& ds, const at::Device& d) {
  std::vector<int64_t> u = ds.validation.user, i = ds.validation.item;
  std::vector<float> v = ds.validation.value;
  u.insert(u.end(), ds.test.user.begin(), ds.test.user.end());
  i.insert(i.end(), ds.test.item.begin(), ds.test.item.end());
  v.insert(v.end(), ds.test.value.begin(), ds.test.value.end());
  return EvalSet{index_tensor(u, d), index_tensor(i, d), value_tensor(v, d),
                 static_cast<int64_t>(ds.validation.size())};
}

using TensorMap = ModuleState;

void set_lr(torch::optim::AdamW& opt, double lr) {
  for (auto& g : opt.param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
}

/// Everything that must survive an interruption for a resumed run to equal an
/// uninterrupted one.
struct RunState {
  int64_t epoch = 0;  // epochs completed
  double lr = 0;
  double best_val = std::numeric_limits<double>::infinity();
  double test_at_best = std::numeric_limits<double>::quiet_NaN();
  int64_t best_epoch = 0;
  int64_t since_best = 0;
  int64_t since_lr = 0;
  double seconds = 0;
  int64_t peak_memory = 0;
  TensorMap best;
  at::Tensor best_test_pred;  // test predictions at the best epoch, for ensembles
  at::Tensor best_val_pred;   // validation predictions at the best epoch, for blends
  std::vector<EpochRecord> history;
  TensorMap ema;                   // train.ema > 0: the moving average of the weights
  at::Tensor avg_test_sum;         // train.average_last: sum of the averaged test predictions
  int64_t avg_count = 0;           // checkpoints averaged so far
  std::vector<TensorMap> members;  // their weights (the saved model averages them)
};

void write_states(torch::serialize::OutputArchive& a, const std::vector<TensorMap>& states) {
  a.write("count", c10::IValue(static_cast<int64_t>(states.size())));
  for (size_t k = 0; k < states.size(); ++k) {
    torch::serialize::OutputArchive one;
    for (const auto& [key, v] : states[k]) one.write(key, v);
    a.write(std::to_string(k), one);
  }
}

/// Reads what write_states wrote, each state with the keys and devices of `like`.
std::vector<TensorMap> read_states(torch::serialize::InputArchive& a, const TensorMap& like,
                                   const std::string& path) {
  std::vector<TensorMap> out;
  const int64_t n = read_int(a, "count", path);
  for (int64_t k = 0; k < n; ++k) {
    torch::serialize::InputArchive one;
    a.read(std::to_string(k), one);
    TensorMap m;
    for (const auto& [key, v] : like) {
      at::Tensor t;
      one.read(key, t);
      m[key] = t.to(v.device());
    }
    out.push_back(std::move(m));
  }
  return out;
}

at::Tensor history_tensor(const std::vector<EpochRecord>& h) {
  auto t = torch::zeros({static_cast<int64_t>(h.size()), 8}, torch::kFloat64);
  auto a = t.accessor<double, 2>();
  for (size_t k = 0; k < h.size(); ++k) {
    const auto& r = h[k];
    const double row[8] = {double(r.epoch), r.loss, r.train_rmse, r.val_rmse,
                           r.test_rmse,     r.lr,   r.seconds,    double(r.peak_memory_bytes)};
    for (int c = 0; c < 8; ++c) a[static_cast<int64_t>(k)][c] = row[c];
  }
  return t;
}

std::vector<EpochRecord> history_from(const at::Tensor& t) {
  std::vector<EpochRecord> h;
  auto c = t.to(torch::kCPU).to(torch::kFloat64).contiguous();
  auto a = c.accessor<double, 2>();
  for (int64_t k = 0; k < c.size(0); ++k)
    h.push_back(EpochRecord{static_cast<int64_t>(a[k][0]), a[k][1], a[k][2], a[k][3], a[k][4], a[k][5],
                            a[k][6], static_cast<int64_t>(a[k][7])});
  return h;
}

void save_checkpoint(const std::string& path, const std::string& config_text, int64_t run,
                     models::RatingModel& model, torch::optim::AdamW& opt, const RunState& st) {
  torch::serialize::OutputArchive a;
  a.write("format", c10::IValue(std::string(kCheckpointFormat)));
  a.write("config", c10::IValue(config_text));
  a.write("run", c10::IValue(run));
  a.write("epoch", c10::IValue(st.epoch));
  a.write("lr", c10::IValue(st.lr));
  a.write("best_val", c10::IValue(st.best_val));
  a.write("test_at_best", c10::IValue(st.test_at_best));
  a.write("best_epoch", c10::IValue(st.best_epoch));
  a.write("since_best", c10::IValue(st.since_best));
  a.write("since_lr", c10::IValue(st.since_lr));
  a.write("seconds", c10::IValue(st.seconds));
  a.write("peak_memory", c10::IValue(st.peak_memory));
  a.write("history", history_tensor(st.history));
  a.write("best_test_pred", st.best_test_pred.defined() ? st.best_test_pred : torch::zeros({0}));
  a.write("best_val_pred", st.best_val_pred.defined() ? st.best_val_pred : torch::zeros({0}));
  a.write("avg_test_sum", st.avg_test_sum.defined() ? st.avg_test_sum : torch::zeros({0}));
  a.write("avg_count", c10::IValue(st.avg_count));
  torch::serialize::OutputArchive ema, members;
  write_states(ema, st.ema.empty() ? std::vector<TensorMap>{} : std::vector<TensorMap>{st.ema});
  write_states(members, st.members);
  a.write("ema", ema);
  a.write("members", members);
  torch::serialize::OutputArchive weights, best, optim;
  write_module_state(weights, model);
  for (const auto& [k, v] : st.best) best.write(k, v);
  opt.save(optim);
  a.write("weights", weights);
  a.write("best", best);
  a.write("optimizer", optim);
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    a.write("rng_cpu", gen.get_state());
  }
  save_archive_atomic(a, path);
}

void load_checkpoint(const std::string& path, const std::string& config_text, int64_t run,
                     models::RatingModel& model, torch::optim::AdamW& opt, RunState& st,
                     const at::Device& dev) {
  torch::serialize::InputArchive a;
  load_archive(a, path, dev);
  const std::string format = read_string(a, "format", path);
  if (format != kCheckpointFormat)
    throw CheckpointError(path + ": format '" + format + "', expected '" + kCheckpointFormat + "'");
  if (read_string(a, "config", path) != config_text)
    throw CheckpointError(path +
                          ": checkpoint was written with a different configuration; resume with the same "
                          "config and flags (see the config recorded in the checkpoint directory)");
  if (read_int(a, "run", path) != run) throw CheckpointError(path + ": checkpoint belongs to another run");
  st.epoch = read_int(a, "epoch", path);
  st.lr = read_double(a, "lr", path);
  st.best_val = read_double(a, "best_val", path);
  st.test_at_best = read_double(a, "test_at_best", path);
  st.best_epoch = read_int(a, "best_epoch", path);
  st.since_best = read_int(a, "since_best", path);
  st.since_lr = read_int(a, "since_lr", path);
  st.seconds = read_double(a, "seconds", path);
  st.peak_memory = read_int(a, "peak_memory", path);
  at::Tensor hist, rng;
  torch::serialize::InputArchive weights, best, optim;
  try {
    a.read("history", hist);
    a.read("best_test_pred", st.best_test_pred);
    a.read("best_val_pred", st.best_val_pred);
    a.read("avg_test_sum", st.avg_test_sum);
    if (st.avg_test_sum.numel() == 0) st.avg_test_sum = at::Tensor();
    st.avg_count = read_int(a, "avg_count", path);
    torch::serialize::InputArchive ema, members;
    a.read("ema", ema);
    a.read("members", members);
    const TensorMap like = module_state(model);
    const auto ema_states = read_states(ema, like, path);
    st.ema = ema_states.empty() ? TensorMap{} : ema_states.front();
    st.members = read_states(members, like, path);
    a.read("rng_cpu", rng);
    a.read("weights", weights);
    a.read("best", best);
    a.read("optimizer", optim);
    read_module_state(weights, model, path);
    opt.load(optim);
    st.best.clear();
    for (const auto& [k, v] : module_state(model)) {
      at::Tensor t;
      best.read(k, t);
      st.best[k] = t.to(v.device());
    }
  } catch (const c10::Error& e) {
    std::string what = e.what_without_backtrace();
    if (const auto nl = what.find('\n'); nl != std::string::npos) what = what.substr(0, nl);
    throw CheckpointError(path + ": checkpoint does not match the model (" + what + ")");
  }
  st.history = history_from(hist);
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(rng.to(torch::kCPU));
}

void write_history_csv(const std::string& path, const std::vector<EpochRecord>& h) {
  std::ostringstream os;
  os << "epoch,loss,train_rmse,val_rmse,test_rmse,lr,seconds,peak_memory_bytes\n";
  os.precision(8);
  for (const auto& r : h)
    os << r.epoch << "," << r.loss << "," << r.train_rmse << "," << r.val_rmse << "," << r.test_rmse << ","
       << r.lr << "," << r.seconds << "," << r.peak_memory_bytes << "\n";
  write_text_atomic(path, os.str());
}

std::string fmt(double v, int prec = 4) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(prec);
  os << v;
  return os.str();
}

}  // namespace

namespace {

/// The weights that evaluation and the saved model use: the moving average when
/// train.ema > 0, else the trained ones. Swapped in for the scope of this object.
class EvalWeights {
 public:
  EvalWeights(torch::nn::Module& m, const TensorMap& ema) : m_(m), active_(!ema.empty()) {
    if (!active_) return;
    trained_ = module_state(m);
    set_module_state(m, ema);
  }
  ~EvalWeights() {
    if (active_) set_module_state(m_, trained_);
  }
  EvalWeights(const EvalWeights&) = delete;
  EvalWeights& operator=(const EvalWeights&) = delete;

 private:
  torch::nn::Module& m_;
  bool active_;
  TensorMap trained_;
};

/// ema <- d ema + (1 - d) w with d = min(decay, (1 + t) / (10 + t)): the short warm-up
/// keeps the average from remembering the random start (TensorFlow's num_updates rule).
void update_ema(TensorMap& ema, torch::nn::Module& m, double decay, int64_t t) {
  const double d = std::min(decay, (1.0 + static_cast<double>(t)) / (10.0 + static_cast<double>(t)));
  torch::NoGradGuard no_grad;
  for (const auto& p : m.named_parameters()) ema.at(p.key()).mul_(d).add_(p.value().detach(), 1.0 - d);
  for (const auto& b : m.named_buffers()) ema.at("buffer:" + b.key()).copy_(b.value());
}

/// Whether the checkpoint after `epoch` (1-based) of `epochs` is one of the averaged ones.
bool in_average_window(const TrainConfig& tc, int64_t epoch) {
  const int64_t back = tc.epochs - epoch;
  return back >= 0 && back % tc.average_every == 0 && back / tc.average_every < tc.average_last;
}

/// The training ratings plus the validation ratings, with no validation split: what the
/// retrain protocol's final model trains on.
Dataset merge_validation(const Dataset& ds) {
  Dataset all = ds;
  const RatingList& v = ds.validation;
  for (size_t e = 0; e < v.size(); ++e) all.train.add(v.user[e], v.item[e], v.value[e]);
  all.validation = RatingList{};
  return all;
}

/// Whether a run takes the two phases of train.protocol = retrain (it needs validation).
bool retrains(const RunConfig& cfg, const Dataset& ds) {
  return cfg.train.protocol == "retrain" && !ds.validation.empty();
}

/// train.protocol = retrain: the epoch count is chosen on the validation split, then a
/// fresh model (same seeds) trains on all training ratings for that many epochs, its
/// test predictions averaged over the last train.average_last checkpoints.
RunResult train_retrain(const RunConfig& cfg, const Dataset& ds, const models::ModelContext& ctx, int64_t run,
                        const TrainerOptions& opts, Progress& progress) {
  RunConfig select = cfg;
  select.train.protocol = "early_stop";
  RunResult chosen = train_run(select, ds, ctx, run, opts, progress);

  RunConfig final_cfg = select;
  final_cfg.data.val_fraction = 0;  // `predict` rebuilds the final model's data from this
  final_cfg.train.epochs = std::max<int64_t>(1, chosen.best_epoch);
  const Dataset all = merge_validation(ds);
  const models::ModelContext all_ctx = models::make_context(all).to(at::Device(cfg.train.device));
  TrainerOptions final_opts = opts;
  if (!opts.out_dir.empty()) final_opts.out_dir = opts.out_dir + "/final";
  progress.message("retraining on all " + std::to_string(all.train.size()) + " training ratings for " +
                   std::to_string(final_cfg.train.epochs) + " epochs (chosen on validation)");
  RunResult fin = train_run(final_cfg, all, all_ctx, run, final_opts, progress);

  RunResult r = fin;
  r.val_rmse = chosen.val_rmse;
  r.val_predictions = chosen.val_predictions;
  r.best_epoch = chosen.best_epoch;
  r.epochs_run = chosen.epochs_run + fin.epochs_run;
  r.train_seconds = chosen.train_seconds + fin.train_seconds;
  r.peak_memory_bytes = std::max(chosen.peak_memory_bytes, fin.peak_memory_bytes);
  r.history = chosen.history;
  r.final_history = fin.history;
  return r;
}

}  // namespace

RunResult train_run(const RunConfig& cfg_in, const Dataset& ds, const models::ModelContext& ctx, int64_t run,
                    const TrainerOptions& opts, Progress& progress) {
  // Without a validation split there is no epoch count to choose: a single phase trains
  // for train.epochs on all training ratings, which is what the retrain phase would do.
  if (retrains(cfg_in, ds)) return train_retrain(cfg_in, ds, ctx, run, opts, progress);
  RunConfig cfg = cfg_in;
  const TrainConfig& tc = cfg.train;
  const at::Device device(tc.device);
  const std::string config_text = to_text(cfg);
  const RunSeeds seeds = derive_seeds(tc.seed, run);

  torch::manual_seed(seeds.init);
  auto model = opts.factory ? opts.factory(cfg, ctx) : models::make_model(cfg, ctx);
  model->to(device);
  torch::manual_seed(seeds.dropout);
  torch::optim::AdamW opt(model->parameters(),
                          torch::optim::AdamWOptions(tc.lr).weight_decay(tc.weight_decay));

  int64_t n_params = 0;
  for (const auto& p : model->parameters()) n_params += p.numel();

  const EvalSet eval = make_eval_set(ds, device);
  const at::Tensor& tu = ctx.train_users;
  const at::Tensor& ti = ctx.train_items;
  const at::Tensor& tv = ctx.train_values;

  RunState st;
  st.lr = tc.lr;
  st.best = module_state(*model);
  if (tc.ema > 0) st.ema = module_state(*model);
  std::string run_dir, ckpt;
  if (!opts.out_dir.empty()) {
    run_dir = opts.out_dir + "/run" + std::to_string(run);
    fs::create_directories(run_dir);
    ckpt = run_dir + "/checkpoint.pt";
    if (opts.resume && fs::exists(ckpt)) {
      load_checkpoint(ckpt, config_text, run, *model, opt, st, device);
      progress.message("resumed run " + std::to_string(run + 1) + " at epoch " + std::to_string(st.epoch));
    }
  }
  set_lr(opt, st.lr);

  const bool gpu_peak = device.is_cuda() && has_device_memory_stats();
  progress.start_run(run, tc.runs, tc.epochs);
  const bool has_val = eval.n_val > 0;
  int64_t epochs_this_call = 0;
  bool stopped = st.since_best >= tc.patience;
  while (!stopped && st.epoch < tc.epochs) {
    const auto t0 = Clock::now();
    // The paper's Table 4 figure: the peak of one epoch. On a GPU the caching
    // allocator's peak (where the build can read it), else the process's resident peak.
    if (gpu_peak)
      reset_device_peak_memory(device.index());
    else
      reset_peak_memory();
    model->train();
    opt.zero_grad();
    at::Tensor pred;
    at::Tensor loss = model->training_loss(tu, ti, tv, &pred);
    at::Tensor reg = model->regularization();
    at::Tensor total = reg.defined() ? loss + reg : loss;
    total.backward();
    opt.step();
    if (tc.ema > 0) update_ema(st.ema, *model, tc.ema, st.epoch);
    const double loss_v = total.item<double>();
    if (!std::isfinite(loss_v))
      throw Error("training diverged (loss is " + std::to_string(loss_v) + " at epoch " +
                  std::to_string(st.epoch + 1) + "); lower train.lr");
    ++st.epoch;
    ++epochs_this_call;

    // Without a validation split only the averaged checkpoints and the logged epochs need
    // a forward pass over the test pairs.
    const bool averaged = !has_val && in_average_window(tc, st.epoch);
    const bool last_epoch = st.epoch >= tc.epochs;
    const bool evaluate = has_val || averaged || last_epoch || st.epoch % tc.log_every == 0;
    double val = std::numeric_limits<double>::quiet_NaN(), test = val;
    at::Tensor test_pred, val_pred;
    std::optional<EvalWeights> weights;
    if (evaluate) {
      weights.emplace(*model, st.ema);
      torch::NoGradGuard no_grad;
      model->eval();
      at::Tensor p = model->forward(eval.users, eval.items).clamp(ctx.rating_min, ctx.rating_max);
      val_pred = p.narrow(0, 0, eval.n_val);
      val = rmse(val_pred, eval.values.narrow(0, 0, eval.n_val), ctx.rating_min, ctx.rating_max);
      const int64_t n_test = p.size(0) - eval.n_val;
      test_pred = p.narrow(0, eval.n_val, n_test);
      test = rmse(test_pred, eval.values.narrow(0, eval.n_val, n_test), ctx.rating_min, ctx.rating_max);
    }
    if (averaged) {
      const at::Tensor t = test_pred.detach().to(torch::kCPU).to(torch::kFloat64);
      st.avg_test_sum = st.avg_test_sum.defined() ? st.avg_test_sum + t : t.clone();
      ++st.avg_count;
      st.members.push_back(module_state(*model));
      test_pred = (st.avg_test_sum / static_cast<double>(st.avg_count)).to(torch::kFloat);
      test = rmse(test_pred, eval.values.narrow(0, eval.n_val, test_pred.size(0)).to(torch::kCPU),
                  ctx.rating_min, ctx.rating_max);
    }
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    st.seconds += secs;
    const int64_t peak = gpu_peak ? device_peak_memory_bytes(device.index()) : peak_memory_bytes();
    st.peak_memory = std::max(st.peak_memory, peak);
    const double train_rmse = rmse(pred, tv, ctx.rating_min, ctx.rating_max);
    // Without a validation split the last epoch is the selected one.
    const double score = has_val ? val : -static_cast<double>(st.epoch);
    if (score < st.best_val && (has_val || evaluate)) {
      st.best_val = score;
      st.test_at_best = test;
      st.best_epoch = st.epoch;
      st.best = module_state(*model);
      st.best_test_pred = test_pred.detach().to(torch::kCPU).clone();
      if (has_val) st.best_val_pred = val_pred.detach().to(torch::kCPU).clone();
      st.since_best = 0;
      st.since_lr = 0;
    } else if (has_val) {
      ++st.since_best;
      if (++st.since_lr >= tc.lr_patience && st.lr > tc.min_lr) {
        st.lr = std::max(st.lr * tc.lr_decay, tc.min_lr);
        set_lr(opt, st.lr);
        st.since_lr = 0;
      }
    }
    weights.reset();  // back to the trained weights before the next step
    st.history.push_back(EpochRecord{st.epoch, loss_v, train_rmse, val, test, st.lr, secs, peak});
    progress.epoch(st.epoch, loss_v, train_rmse, val, has_val ? st.best_val : val);
    stopped = st.since_best >= tc.patience;
    const bool last = stopped || st.epoch >= tc.epochs;
    if (!ckpt.empty() && (last || st.epoch % tc.checkpoint_every == 0))
      save_checkpoint(ckpt, config_text, run, *model, opt, st);
    if (opts.interrupt_after > 0 && epochs_this_call >= opts.interrupt_after && !last) {
      if (!ckpt.empty()) save_checkpoint(ckpt, config_text, run, *model, opt, st);
      throw Error("interrupted after " + std::to_string(epochs_this_call) + " epochs (testing hook)");
    }
  }

  set_module_state(*model, st.best);
  RunResult r;
  r.run = run;
  r.seed = tc.seed + run;
  r.val_rmse = has_val ? st.best_val : std::numeric_limits<double>::quiet_NaN();
  r.test_rmse = st.test_at_best;
  r.best_epoch = st.best_epoch;
  r.epochs_run = st.epoch;
  r.train_seconds = st.seconds;
  r.peak_memory_bytes = st.peak_memory;
  r.parameters = n_params;
  r.model_name = model->name();
  r.history = st.history;
  r.test_predictions = st.best_test_pred;
  r.val_predictions = st.best_val_pred;
  r.averaged_checkpoints = std::max<int64_t>(1, st.avg_count);
  if (!run_dir.empty()) {
    write_history_csv(run_dir + "/history.csv", st.history);
    // Averaged checkpoints only when the selected epoch is the last: the run trained to
    // its end without a validation split.
    save_model(*model, config_text, run_dir + "/model.pt",
               st.avg_count > 1 && st.best_epoch == st.epoch ? st.members : std::vector<TensorMap>{});
  }
  std::string what = "test RMSE " + fmt(r.test_rmse);
  what += has_val
              ? " at best validation epoch " + std::to_string(r.best_epoch) + " (val " + fmt(r.val_rmse) + ")"
              : " after " + std::to_string(r.best_epoch) + " epochs" +
                    (st.avg_count > 1 ? ", mean of the last " + std::to_string(st.avg_count) + " checkpoints"
                                      : std::string());
  progress.end_run("run " + std::to_string(run + 1) + "/" + std::to_string(tc.runs) + " (seed " +
                   std::to_string(r.seed) + "): " + what + ", " + std::to_string(r.epochs_run) + " epochs, " +
                   fmt(r.train_seconds, 1) + " s");
  return r;
}

SweepResult train_sweep(const RunConfig& cfg, const Dataset& ds, const TrainerOptions& opts) {
  const at::Device device(cfg.train.device);
  const models::ModelContext ctx = models::make_context(ds).to(device);
  Progress progress(opts.progress, cfg.train.log_every);
  SweepResult s;
  for (int64_t r = 0; r < cfg.train.runs; ++r) s.runs.push_back(train_run(cfg, ds, ctx, r, opts, progress));
  s.model_name = s.runs.front().model_name;
  auto mean_std = [&](auto get, double& mean, double& sd) {
    double sum = 0, sq = 0;
    const double n = static_cast<double>(s.runs.size());
    for (const auto& r : s.runs) sum += get(r);
    mean = sum / n;
    for (const auto& r : s.runs) sq += (get(r) - mean) * (get(r) - mean);
    sd = s.runs.size() > 1 ? std::sqrt(sq / (n - 1)) : 0.0;
  };
  mean_std([](const RunResult& r) { return r.test_rmse; }, s.test_rmse, s.test_rmse_std);
  mean_std([](const RunResult& r) { return r.val_rmse; }, s.val_rmse, s.val_rmse_std);
  // Ensemble: the mean of the runs' predictions (each at its selected epoch).
  auto mean_of = [&](at::Tensor RunResult::*field) {
    at::Tensor sum;
    for (const auto& r : s.runs) {
      const at::Tensor& t = r.*field;
      if (!t.defined() || t.numel() == 0) return at::Tensor();
      sum = sum.defined() ? sum + t.to(torch::kFloat64) : t.to(torch::kFloat64).clone();
    }
    return sum / static_cast<double>(s.runs.size());
  };
  if (!ds.test.empty()) s.test_predictions = mean_of(&RunResult::test_predictions);
  if (!ds.validation.empty()) s.val_predictions = mean_of(&RunResult::val_predictions);
  if (s.runs.size() > 1 && s.test_predictions.defined())
    s.ensemble_test_rmse =
        rmse(s.test_predictions, torch::tensor(ds.test.value, torch::kFloat32), ds.rating_min, ds.rating_max);
  if (!opts.out_dir.empty()) {
    // protocol = retrain: the model to keep is the one trained on all training ratings.
    const std::string from = opts.out_dir + (retrains(cfg, ds) ? "/final" : "") + "/run0/model.pt";
    const std::string tmp = opts.out_dir + "/model.pt.tmp";
    fs::copy_file(from, tmp, fs::copy_options::overwrite_existing);
    fs::rename(tmp, opts.out_dir + "/model.pt");
  }
  return s;
}

}  // namespace symgnn::train
