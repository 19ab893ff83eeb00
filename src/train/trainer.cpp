#include "train/trainer.h"

#include <torch/nn/module.h>
#include <torch/optim/adamw.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include "data/dataset_snapshot.h"
#include "models/baseline/bias_fit.h"
#include "models/baseline/offset_model.h"
#include "models/objectives/objective.h"
#include "models/ranking/ranking_probe.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "symgnn/ranking.h"
#include "train/checkpoint.h"
#include "train/distributed.h"
#include "train/history_csv.h"
#include "train/memory.h"
#include "train/minibatch.h"
#include "train/seeds.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/fault_injection.h"
#include "util/stats.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::train {

bool TrainerOptions::writes_files() const {
  return !group || group->rank() == 0;
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

void set_lr(torch::optim::AdamW& opt, double lr) {
  for (auto& g : opt.param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
}

/// The weights that evaluation and the saved model use: the moving average when
/// train.ema > 0, else the trained ones. Swapped in for the scope of this object.
class EvalWeights {
 public:
  EvalWeights(torch::nn::Module& m, const ModuleState& ema) : m_(m), active_(!ema.empty()) {
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
  ModuleState trained_;
};

/// ema <- d ema + (1 - d) w with d = min(decay, (1 + t) / (10 + t)): the short warm-up
/// keeps the average from remembering the random start (TensorFlow's num_updates rule).
void update_ema(ModuleState& ema, torch::nn::Module& m, double decay, int64_t t) {
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

/// The peak memory of one epoch, the paper's Table 4 figure. On a GPU the caching
/// allocator's peak (where the build can read it), else the process's resident peak.
class EpochMemoryProbe {
 public:
  explicit EpochMemoryProbe(const at::Device& device)
      : device_(device), gpu_(device.is_cuda() && has_device_memory_stats()) {}
  /// Starts the epoch's measurement window.
  void start() const {
    if (gpu_)
      reset_device_peak_memory(device_.index());
    else
      reset_peak_memory();
  }
  /// The peak in bytes since start().
  int64_t peak() const { return gpu_ ? device_peak_memory_bytes(device_.index()) : peak_memory_bytes(); }

 private:
  at::Device device_;
  bool gpu_;
};

/// The figures of one evaluation: the validation and test metrics by name (none when the
/// epoch is not evaluated) and the clipped predictions they score.
struct Scores {
  MetricValues metrics;
  at::Tensor val_pred, test_pred;
  double metric(const std::string& name) const { return metric_of(metrics, name); }
};

/// This rank's shard of the training pairs, whose mean loss it computes: all of them in a
/// single process; in a group a contiguous slice, weighted by its share of all pairs so
/// that the summed gradients are the mean over all pairs (train/distributed.h).
struct LossShard {
  at::Tensor users, items, values;
  double weight = 1.0;
  int64_t begin = 0;  // where the slice starts among the training pairs
};

LossShard make_loss_shard(const models::ModelContext& ctx, const ProcessGroup* group) {
  if (!group) return LossShard{ctx.train_users, ctx.train_items, ctx.train_values, 1.0, 0};
  const int64_t n = ctx.train_values.size(0);
  const auto [begin, end] = shard_range(n, group->rank(), group->size());
  if (end <= begin)
    throw Error("WORLD_SIZE=" + std::to_string(group->size()) + " exceeds the " + std::to_string(n) +
                " training ratings: rank " + std::to_string(group->rank()) + " would have none to train on");
  return LossShard{ctx.train_users.slice(0, begin, end), ctx.train_items.slice(0, begin, end),
                   ctx.train_values.slice(0, begin, end),
                   static_cast<double>(end - begin) / static_cast<double>(n), begin};
}

/// The model of run `run`, built from its seeds: the init seed before construction, the
/// dropout seed after it (derive_seeds).
std::shared_ptr<models::RatingModel> seeded_model(const RunConfig& cfg, const models::ModelContext& ctx,
                                                  const TrainerOptions& opts, const RunSeeds& seeds,
                                                  const at::Device& device) {
  torch::manual_seed(seeds.init);
  auto model = opts.factory ? opts.factory(cfg, ctx) : models::make_model(cfg, ctx);
  model->to(device);
  torch::manual_seed(seeds.dropout);
  return model;
}

/// One run of the early-stopping protocol (train_run without train.protocol = retrain),
/// one method per concern: the optimiser step, evaluation, checkpoint averaging, model
/// selection with early stopping, the learning-rate decay, the memory probe (EpochMemoryProbe)
/// and checkpointing. The run's whole state is `st_` (RunState, what a checkpoint saves).
class RunTrainer {
 public:
  RunTrainer(const RunConfig& cfg, const Dataset& ds, const models::ModelContext& ctx, int64_t run,
             const TrainerOptions& opts, Progress& progress);

  /// Trains to train.epochs or until early stopping, then restores the selected weights
  /// and writes the run's files.
  RunResult train();

 private:
  /// The training objective of one step and the training predictions it scored.
  struct Step {
    double loss;
    double mse;  // of the training predictions, clipped to the rating range
  };

  // Checkpointing.
  void open_run_dir();
  void continue_short_run();
  void check_ranks_agree();
  void checkpoint(bool last);
  void interrupt_if_asked(bool last);
  // One epoch.
  Step step();
  /// One optimiser step on the pairs at `positions` of this rank's shard (all of it when
  /// undefined), its gradients weighted by `weight` before the all-reduce: the
  /// data-parallel step's loss and mean squared error, averaged over the ranks.
  std::pair<double, double> descend(const at::Tensor& positions, double weight);
  bool evaluates(bool averaged) const;
  Scores evaluate();
  void average_checkpoint(Scores& s);
  void select(const Scores& s, bool evaluated);
  void keep_best(double score, const Scores& s);
  void decay_lr_on_plateau();
  /// Early stopping: train.patience epochs without a better validation score.
  bool patience_exhausted() const { return st_.since_best >= tc_.patience; }
  // The end of the run.
  RunResult finish();
  std::string summary(const RunResult& r) const;

  RunConfig cfg_;
  const TrainConfig& tc_;
  const models::ModelContext& ctx_;
  const int64_t run_;
  const TrainerOptions& opts_;
  ProcessGroup* const group_;  // null in a single process
  const bool writes_;          // this process writes the run's files (rank 0)
  const LossShard shard_;
  const uint64_t batch_seed_;
  Progress& progress_;
  const at::Device device_;
  const std::string config_text_;
  std::shared_ptr<models::RatingModel> model_;
  torch::optim::AdamW opt_;
  const EvalSet eval_;
  const bool has_val_;
  // train.select resolved (config.h, selection_metric) and its direction: the trainer
  // minimises sign_ x metric.
  const std::string select_;
  const double sign_;
  const models::Objective objective_;  // what each step minimises (models/objectives/objective.h)
  // Ranking metrics each evaluated epoch (a ranking objective, or selection on NDCG):
  // every ranking row of symgnn/metrics.h at 10 on validation and test, under evaluate's
  // protocol (models/ranking/ranking_probe.h).
  const bool ranks_;
  models::RankingProbe val_probe_, test_probe_;
  const EpochMemoryProbe memory_;
  RunState st_;
  /// The loss of this process's first step: a loss kExplodedLoss times larger has diverged.
  double first_loss_ = -1;
  static constexpr double kExplodedLoss = 1e6;
  std::string run_dir_, ckpt_;  // empty without an out_dir
  int64_t epochs_this_call_ = 0;
  Clock::time_point last_checkpoint_ = Clock::now();  // or this trainer's start
};

RunTrainer::RunTrainer(const RunConfig& cfg, const Dataset& ds, const models::ModelContext& ctx, int64_t run,
                       const TrainerOptions& opts, Progress& progress)
    : cfg_(cfg),
      tc_(cfg_.train),
      ctx_(ctx),
      run_(run),
      opts_(opts),
      group_(opts.group.get()),
      writes_(opts.writes_files()),
      shard_(make_loss_shard(ctx, group_)),
      batch_seed_(derive_seeds(tc_.seed, run).batches),
      progress_(progress),
      device_(tc_.device),
      config_text_(to_text(cfg_)),
      model_(seeded_model(cfg_, ctx, opts, derive_seeds(tc_.seed, run), device_)),
      opt_(model_->parameters(), torch::optim::AdamWOptions(tc_.lr).weight_decay(tc_.weight_decay)),
      eval_(make_eval_set(ds, device_)),
      has_val_(eval_.n_val > 0),
      select_(selection_metric(tc_)),
      sign_(higher_is_better(select_) ? -1.0 : 1.0),
      objective_(tc_, ds.feedback == "counts"),
      ranks_(objective_.ranks() || parse_metric_name(select_).row->needs == MetricNeeds::ranking),
      memory_(device_) {
  if (ranks_) {
    val_probe_ = models::validation_probe(ds, tc_.ranking_block, device_);
    test_probe_ = models::test_probe(ds, tc_.ranking_block, device_);
    if (has_val_ && parse_metric_name(select_).row->needs == MetricNeeds::ranking && val_probe_.empty())
      throw ConfigError("train.select = " + select_ +
                        ": no validation rating is >= " + fixed(eval::relevant_min_of(ds), 2) +
                        " (relevant), so there is no ranking to select on; use train.select = " +
                        rating_figure("val") + " or a larger data.val_fraction");
  }
  // Same seeds give the same initial weights everywhere; rank 0's make sure of it.
  if (group_) broadcast_module(*group_, *model_);
  st_.lr = tc_.lr;
  st_.best = module_state(*model_);
  if (tc_.ema > 0) st_.ema = module_state(*model_);
  open_run_dir();
  continue_short_run();
  // A run continued from a checkpoint or a short run measures divergence against its first
  // epoch, as it would have uninterrupted.
  if (!st_.history.empty()) first_loss_ = std::abs(st_.history.front().loss);
  set_lr(opt_, st_.lr);
  if (group_) check_ranks_agree();
}

/// <out>/run<r>/ with its checkpoint; with opts.resume, the run continues from it. Every
/// rank of a group reads rank 0's checkpoint; only rank 0 creates the folder.
void RunTrainer::open_run_dir() {
  if (opts_.out_dir.empty()) return;
  run_dir_ = opts_.out_dir + "/run" + std::to_string(run_);
  if (writes_) fs::create_directories(run_dir_);
  ckpt_ = run_dir_ + "/checkpoint.pt";
  if (opts_.resume && fs::exists(ckpt_)) {
    load_checkpoint(ckpt_, config_text_, run_, *model_, opt_, st_, device_);
    progress_.message("resumed run " + std::to_string(run_ + 1) + " at epoch " + std::to_string(st_.epoch));
  }
}

/// TrainerOptions::warm_start: run 0 continues a short run's state, unless a checkpoint
/// already resumed it.
void RunTrainer::continue_short_run() {
  const std::shared_ptr<WarmStart>& warm = opts_.warm_start;
  if (!warm || warm->checkpoint.empty() || run_ != 0 || st_.epoch > 0) return;
  load_checkpoint_bytes(warm->checkpoint, "the short run's state", run_, *model_, opt_, st_, device_);
  std::string().swap(warm->checkpoint);
  progress_.message("continuing the chosen short run from its epoch " + std::to_string(st_.epoch) +
                    " (the same model; train.continue_short_run)");
}

/// A resumed rank that found another checkpoint than rank 0's (a folder not shared between
/// machines) would train another model silently: compare the epochs reached.
void RunTrainer::check_ranks_agree() {
  at::Tensor epoch = torch::tensor({st_.epoch}, torch::kInt64);
  group_->broadcast(epoch);
  const int64_t at_zero = epoch.item<int64_t>();
  if (at_zero != st_.epoch)
    throw Error("rank " + std::to_string(group_->rank()) + ": run " + std::to_string(run_ + 1) +
                " starts at epoch " + std::to_string(st_.epoch) + " but rank 0 at epoch " +
                std::to_string(at_zero) + ": every rank must read rank 0's checkpoints (" +
                (ckpt_.empty() ? std::string("no --out") : ckpt_) +
                "): give --resume a folder shared between the machines (docs/scale.md)");
}

/// Every train.checkpoint_every epochs, once train.checkpoint_seconds have passed since the
/// previous checkpoint (or the start of this call), and after the last epoch. On
/// `real/ml-latest-small` a checkpoint of the 5.28 M-parameter network is about 105 MB and a
/// third of a second: every 10 epochs they added 42 s to a 131 s run (docs/experiments.md).
void RunTrainer::checkpoint(bool last) {
  if (!writes_ || ckpt_.empty()) return;
  const bool due =
      st_.epoch % tc_.checkpoint_every == 0 &&
      std::chrono::duration<double>(Clock::now() - last_checkpoint_).count() >= tc_.checkpoint_seconds;
  if (!last && !due) return;
  save_checkpoint(ckpt_, config_text_, run_, *model_, opt_, st_);
  last_checkpoint_ = Clock::now();
}

/// The testing hook TrainerOptions::interrupt_after: checkpoint and stop as if killed.
void RunTrainer::interrupt_if_asked(bool last) {
  if (opts_.interrupt_after <= 0 || epochs_this_call_ < opts_.interrupt_after || last) return;
  if (writes_ && !ckpt_.empty()) save_checkpoint(ckpt_, config_text_, run_, *model_, opt_, st_);
  throw Error("interrupted after " + std::to_string(epochs_this_call_) + " epochs (testing hook)");
}

/// One epoch of optimiser steps: full batch (train.batch_size = 0), one step on all
/// training ratings; else ceil(ratings / batch_size) steps over the epoch's shuffled order
/// (train/minibatch.h), each with the full graph's representations. Each step's loss is
/// the model's loss plus its regularisers; in a process group a rank scores its shard's
/// part of each batch, and the gradients, the loss and the mean squared error are averaged
/// over the ranks (weighted by their shares) before the step. Then the moving average of
/// the weights (train.ema), once an epoch. The epoch's loss and training RMSE are the
/// steps' figures weighted by batch size.
RunTrainer::Step RunTrainer::step() {
  model_->train();
  const int64_t n = ctx_.train_values.size(0);
  const int64_t count = batch_count(n, tc_.batch_size);
  double loss_sum = 0, sq_sum = 0;
  if (count == 1) {
    std::tie(loss_sum, sq_sum) = descend(at::Tensor(), shard_.weight);
  } else {
    const EpochBatches batches(n, count, epoch_seed(batch_seed_, st_.epoch), shard_.begin,
                               shard_.begin + shard_.values.size(0));
    for (int64_t b = 0; b < count; ++b) {
      const at::Tensor pos = batches.shard_positions(b);
      const double share = static_cast<double>(batches.size(b)) / static_cast<double>(n);
      const auto [loss, mse] =
          descend(pos, static_cast<double>(pos.numel()) / static_cast<double>(batches.size(b)));
      loss_sum += loss * share;
      sq_sum += mse * share;
    }
  }
  if (tc_.ema > 0) update_ema(st_.ema, *model_, tc_.ema, st_.epoch);
  return Step{loss_sum, sq_sum};
}

std::pair<double, double> RunTrainer::descend(const at::Tensor& positions, double weight) {
  at::Tensor users = shard_.users, items = shard_.items, values = shard_.values;
  if (positions.defined()) {
    // A rank with none of the batch still runs the step on one pair with weight 0: the
    // forward draws the same dropout masks as on the other ranks, and every gradient the
    // all-reduce sums is defined (zero).
    const at::Tensor pos =
        (positions.numel() > 0 ? positions : torch::zeros({1}, torch::kInt64)).to(users.device());
    users = users.index_select(0, pos);
    items = items.index_select(0, pos);
    values = values.index_select(0, pos);
  }
  opt_.zero_grad();
  at::Tensor pred;
  at::Tensor loss = models::objective_loss(*model_, objective_, users, items, values, &pred);
  at::Tensor reg = model_->regularization();
  at::Tensor total = reg.defined() ? loss + reg : loss;
  total.backward();
  std::vector<double> figures{total.item<double>(),
                              squared_error(pred, values, ctx_.rating_min, ctx_.rating_max)};
  average_gradients(group_, model_->parameters(), weight, figures);
  opt_.step();
  if (!std::isfinite(figures[0]))
    throw Error("training diverged (loss is " + std::to_string(figures[0]) + " at epoch " +
                std::to_string(st_.epoch + 1) + "); lower train.lr");
  // An exploding loss ends the same way: its predictions would be clipped constants, and the
  // run would end with exit 0 and a model that ranks at random.
  if (first_loss_ < 0) first_loss_ = std::abs(figures[0]);
  if (tc_.stop_on_divergence && std::abs(figures[0]) > kExplodedLoss * std::max(first_loss_, 1.0))
    throw Error("training diverged (loss " + fixed(figures[0], 1) + " at epoch " +
                std::to_string(st_.epoch + 1) + ", " + fixed(first_loss_, 4) +
                " at its first step); lower train.lr, or set "
                "train.stop_on_divergence = false to train on");
  return {figures[0], figures[1]};
}

/// Whether the epoch just completed needs a forward pass. With a validation split: every
/// train.eval_every epochs, the last epoch, and an epoch after which patience would end the
/// run (so that the run never stops on an epoch it did not measure). Without one: the
/// averaged checkpoints, the last epoch and the logged epochs.
bool RunTrainer::evaluates(bool averaged) const {
  if (has_val_)
    return st_.epoch % tc_.eval_every == 0 || st_.epoch >= tc_.epochs || st_.since_best + 1 >= tc_.patience;
  return averaged || st_.epoch >= tc_.epochs || st_.epoch % tc_.log_every == 0;
}

/// One forward pass over the validation and test pairs, with the weights in place.
Scores RunTrainer::evaluate() {
  torch::NoGradGuard no_grad;
  model_->eval();
  Scores s;
  at::Tensor p = model_->forward(eval_.users, eval_.items).clamp(ctx_.rating_min, ctx_.rating_max);
  s.val_pred = p.narrow(0, 0, eval_.n_val);
  const int64_t n_test = p.size(0) - eval_.n_val;
  s.test_pred = p.narrow(0, eval_.n_val, n_test);
  const at::Tensor val_truth = eval_.values.narrow(0, 0, eval_.n_val);
  const at::Tensor test_truth = eval_.values.narrow(0, eval_.n_val, n_test);
  // Every row of symgnn/metrics.h, the rankings at 10 where the run ranks.
  std::vector<std::string> names = eval::prediction_metrics();
  if (ranks_) {
    const std::vector<std::string> rankings = eval::ranking_metrics(10);
    names.insert(names.end(), rankings.begin(), rankings.end());
  }
  const auto score = [&](const at::Tensor& users) { return model_->score_items(users, ctx_.n2); };
  for (const auto& [split, pred, truth, probe] :
       {std::tuple<const char*, const at::Tensor*, const at::Tensor*, const models::RankingProbe*>{
            "val", &s.val_pred, &val_truth, &val_probe_},
        {"test", &s.test_pred, &test_truth, &test_probe_}}) {
    eval::Measurable m;
    if (truth->numel() > 0) m = predicted(*pred, *truth, ctx_.rating_min, ctx_.rating_max);
    if (ranks_ && !probe->empty()) m.rank = probe->ranker(score);
    eval::add_figures(s.metrics, eval::measure(m, split, names));
  }
  return s;
}

/// train.average_last: adds this checkpoint to the average (its test predictions and its
/// weights) and scores the mean prediction so far in place of this epoch's.
void RunTrainer::average_checkpoint(Scores& s) {
  const at::Tensor t = s.test_pred.detach().to(torch::kCPU).to(torch::kFloat64);
  st_.avg_test_sum = st_.avg_test_sum.defined() ? st_.avg_test_sum + t : t.clone();
  ++st_.avg_count;
  st_.members.push_back(module_state(*model_));
  s.test_pred = (st_.avg_test_sum / static_cast<double>(st_.avg_count)).to(torch::kFloat);
  add_errors(s.metrics, "test", s.test_pred,
             eval_.values.narrow(0, eval_.n_val, s.test_pred.size(0)).to(torch::kCPU), ctx_.rating_min,
             ctx_.rating_max);
}

/// Model selection and early stopping: keeps the epoch of the best validation score, the
/// train.select metric (without a validation split, the last evaluated epoch); otherwise
/// counts the epoch towards train.patience and the learning-rate decay, as an epoch that
/// train.eval_every left unmeasured also counts.
void RunTrainer::select(const Scores& s, bool evaluated) {
  const double score = has_val_ ? sign_ * s.metric(select_) : -static_cast<double>(st_.epoch);
  if (score < st_.best_val && evaluated) {
    keep_best(score, s);
  } else if (has_val_) {
    ++st_.since_best;
    decay_lr_on_plateau();
  }
}

/// Records the current epoch as the selected one: its scores, its (evaluation) weights
/// and its predictions.
void RunTrainer::keep_best(double score, const Scores& s) {
  st_.best_val = score;
  st_.at_best = s.metrics;
  st_.best_epoch = st_.epoch;
  st_.best = module_state(*model_);
  st_.best_test_pred = s.test_pred.detach().to(torch::kCPU).clone();
  if (has_val_) st_.best_val_pred = s.val_pred.detach().to(torch::kCPU).clone();
  st_.since_best = 0;
  st_.since_lr = 0;
}

/// lr <- max(lr * train.lr_decay, train.min_lr) after train.lr_patience epochs without a
/// better validation score.
void RunTrainer::decay_lr_on_plateau() {
  if (++st_.since_lr >= tc_.lr_patience && st_.lr > tc_.min_lr) {
    st_.lr = std::max(st_.lr * tc_.lr_decay, tc_.min_lr);
    set_lr(opt_, st_.lr);
    st_.since_lr = 0;
  }
}

RunResult RunTrainer::train() {
  progress_.start_run(run_, tc_.runs, tc_.epochs);
  bool stopped = patience_exhausted();
  while (!stopped && st_.epoch < tc_.epochs) {
    const auto t0 = Clock::now();
    memory_.start();
    const Step done = step();
    ++st_.epoch;
    ++epochs_this_call_;

    const bool averaged = !has_val_ && in_average_window(tc_, st_.epoch);
    const bool evaluated = evaluates(averaged);
    // The evaluation weights (the moving average with train.ema) stay in place through the
    // averaging and the selection: the averaged members and the best snapshot are theirs.
    Scores s;
    std::optional<EvalWeights> weights;
    if (evaluated) {
      weights.emplace(*model_, st_.ema);
      s = evaluate();
    }
    if (averaged) average_checkpoint(s);
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    st_.seconds += secs;
    const int64_t peak = memory_.peak();
    st_.peak_memory = std::max(st_.peak_memory, peak);
    select(s, evaluated);
    weights.reset();  // back to the trained weights before the next step

    EpochRecord record{st_.epoch, done.loss, st_.lr, secs, peak, s.metrics};
    add_training_errors(record.metrics, done.mse);
    st_.history.push_back(record);
    const double val = s.metric(select_);
    progress_.epoch(st_.epoch, done.loss, record.metrics, val, has_val_ ? sign_ * st_.best_val : val);
    stopped = patience_exhausted();
    const bool last = stopped || st_.epoch >= tc_.epochs;
    checkpoint(last);
    interrupt_if_asked(last);
    fault::point();  // the fault-injection suite's kill:<n> (tests/reliability/)
  }
  std::shared_ptr<WarmStart> state;
  if (opts_.keep_final_state) {
    // The epochs' freed temporaries go back first: held in the heap for the next epoch, they
    // would sit beside the state's bytes (real/ciaodvd's peak rose by about 10 MB so).
    runtime::release_freed_memory();
    state = std::make_shared<WarmStart>(
        WarmStart{checkpoint_bytes(config_text_, run_, *model_, opt_, st_), st_.epoch});
  }
  RunResult r = finish();
  r.final_state = std::move(state);
  return r;
}

/// The selected weights back in the model, the run's result, history.csv and model.pt.
RunResult RunTrainer::finish() {
  set_module_state(*model_, st_.best);
  int64_t n_params = 0;
  for (const auto& p : model_->parameters()) n_params += p.numel();
  RunResult r;
  r.run = run_;
  r.seed = tc_.seed + run_;
  r.selected = st_.at_best;
  r.best_epoch = st_.best_epoch;
  r.epochs_run = st_.epoch;
  r.train_seconds = st_.seconds;
  r.peak_memory_bytes = st_.peak_memory;
  r.parameters = n_params;
  r.model_name = model_->name();
  r.history = st_.history;
  r.test_predictions = st_.best_test_pred;
  r.val_predictions = st_.best_val_pred;
  r.averaged_checkpoints = std::max<int64_t>(1, st_.avg_count);
  // Averaged checkpoints only when the selected epoch is the last: the run trained to its
  // end without a validation split.
  const bool averaged = st_.avg_count > 1 && st_.best_epoch == st_.epoch;
  r.saved = averaged ? st_.members : std::vector<ModuleState>{st_.best};
  if (writes_ && !run_dir_.empty()) {
    write_history_csv(run_dir_ + "/history.csv", st_.history);
    save_model(*model_, config_text_, run_dir_ + "/model.pt",
               averaged ? st_.members : std::vector<ModuleState>{});
  }
  progress_.end_run(summary(r));
  return r;
}

/// "run 1/5 (seed 1): test RMSE 0.9123 at best validation epoch 42 (val 0.9001), ..."
std::string RunTrainer::summary(const RunResult& r) const {
  std::string what = "test " + rating_label() + " " + fixed(metric_of(r.selected, rating_figure("test")), 4);
  what += has_val_ ? " at best validation epoch " + std::to_string(r.best_epoch) + " (val " +
                         fixed(metric_of(r.selected, rating_figure("val")), 4) + ")"
                   : " after " + std::to_string(r.best_epoch) + " epochs" +
                         (st_.avg_count > 1
                              ? ", mean of the last " + std::to_string(st_.avg_count) + " checkpoints"
                              : std::string());
  return "run " + std::to_string(run_ + 1) + "/" + std::to_string(tc_.runs) + " (seed " +
         std::to_string(r.seed) + "): " + what + ", " + std::to_string(r.epochs_run) + " epochs, " +
         fixed(r.train_seconds, 1) + " s";
}

}  // namespace

bool retrains(const RunConfig& cfg, const Dataset& ds) {
  return cfg.train.protocol == "retrain" && !ds.validation.empty();
}

namespace {

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
  const Dataset all = data::with_validation_in_train(ds);
  models::ModelContext all_ctx = models::make_context(all, {&ds, &ctx}).to(at::Device(cfg.train.device));
  all_ctx.bias_shrinkage = opts.retrain_bias_shrinkage;
  models::give_offset_shrinkage(all_ctx, final_cfg);
  runtime::release_freed_memory();
  TrainerOptions final_opts = opts;
  final_opts.warm_start = nullptr;  // a short run continues the selection phase only
  final_opts.keep_final_state = false;
  if (!opts.out_dir.empty()) final_opts.out_dir = opts.out_dir + "/final";
  if (opts.retrain_pays && !opts.retrain_pays(chosen)) {
    // The selection phase's weights stand for the final model, saved where the final
    // training would have saved it (with the final config: the model reads all training
    // ratings as its context), so that loading and symgnn::fit find it as they would.
    progress.message("no retraining on all " + std::to_string(all.train.size()) +
                     " training ratings: it cannot change what is kept (the selection phase's model stands)");
    if (!final_opts.out_dir.empty() && opts.writes_files()) {
      const std::string dir = final_opts.out_dir + "/run" + std::to_string(run);
      fs::create_directories(dir);
      const std::shared_ptr<models::RatingModel> model =
          opts.factory ? opts.factory(final_cfg, all_ctx) : models::make_model(final_cfg, all_ctx);
      model->to(at::Device(cfg.train.device));
      save_model(*model, to_text(final_cfg), dir + "/model.pt", chosen.saved);
    }
    chosen.retrained = false;
    chosen.final_history.clear();
    return chosen;
  }
  // train.retrain_from = selected (after the skip above, whose saved config keeps the
  // chosen epochs): a warm start from the selection phase's chosen weights
  // (the node counts are the same, only the ratings the model reads grow), for a fraction
  // of the epochs: the validation ratings join a model that has already learned the rest.
  const bool warm = cfg.train.retrain_from == "selected" && !chosen.saved.empty();
  if (warm) {
    final_cfg.train.epochs = std::max<int64_t>(
        1, std::llround(cfg.train.retrain_warm_fraction * static_cast<double>(final_cfg.train.epochs)));
    const ModuleState start = chosen.saved.back();
    final_opts.factory = [base = opts.factory, start](const RunConfig& c, const models::ModelContext& x) {
      std::shared_ptr<models::RatingModel> m = base ? base(c, x) : models::make_model(c, x);
      set_module_state(*m, start);
      return m;
    };
  }
  progress.message(
      warm ? "continuing the chosen weights on all " + std::to_string(all.train.size()) +
                 " training ratings for " + std::to_string(final_cfg.train.epochs) +
                 " epochs (train.retrain_from = selected: " + fixed(cfg.train.retrain_warm_fraction, 2) +
                 " x the " + std::to_string(chosen.best_epoch) + " chosen on validation)"
           : "retraining on all " + std::to_string(all.train.size()) + " training ratings for " +
                 std::to_string(final_cfg.train.epochs) + " epochs (chosen on validation)");
  RunResult fin = train_run(final_cfg, all, all_ctx, run, final_opts, progress);

  RunResult r = fin;
  for (const auto& [name, value] : chosen.selected)
    if (name.rfind("val_", 0) == 0) r.selected[name] = value;
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

RunResult train_run(const RunConfig& cfg, const Dataset& ds, const models::ModelContext& ctx, int64_t run,
                    const TrainerOptions& opts, Progress& progress) {
  // Without a validation split there is no epoch count to choose: a single phase trains
  // for train.epochs on all training ratings, which is what the retrain phase would do.
  if (retrains(cfg, ds)) return train_retrain(cfg, ds, ctx, run, opts, progress);
  return RunTrainer(cfg, ds, ctx, run, opts, progress).train();
}

double SweepResult::mean(const std::string& name) const {
  const auto it = metrics.find(name);
  return it == metrics.end() ? std::numeric_limits<double>::quiet_NaN() : it->second.mean;
}

double SweepResult::std_of(const std::string& name) const {
  const auto it = metrics.find(name);
  return it == metrics.end() ? std::numeric_limits<double>::quiet_NaN() : it->second.std;
}

void SweepResult::summarise() {
  std::map<std::string, std::vector<double>> values;
  for (const auto& r : runs)
    for (const auto& [name, value] : r.selected) values[name].push_back(value);
  metrics.clear();
  for (const auto& [name, v] : values) {
    const MeanStd m = mean_std(v);
    metrics[name] = MetricSummary{m.mean, m.std};
  }
}

SweepResult train_sweep(const RunConfig& cfg, const Dataset& ds, const TrainerOptions& opts) {
  const at::Device device(cfg.train.device);
  models::ModelContext ctx = models::make_context(ds, opts.shared_graphs).to(device);
  ctx.bias_shrinkage = opts.bias_shrinkage;
  models::give_offset_shrinkage(ctx, cfg);
  runtime::release_freed_memory();  // the context's temporaries (sorts of the rating classes)
  runtime::keep_large_blocks_in_heap();
  Progress progress(opts.on_epoch, opts.log, selection_metric(cfg.train));
  SweepResult s;
  // The retrain's offset reads all training ratings: its shrinkage is chosen once for the runs.
  TrainerOptions run_opts = opts;
  if (retrains(cfg, ds) && !run_opts.retrain_bias_shrinkage)
    run_opts.retrain_bias_shrinkage = models::offset_shrinkage_choice(models::train_and_validation(ds),
                                                                      ds.users.count, ds.items.count, cfg);
  s.retrain_bias_shrinkage = run_opts.retrain_bias_shrinkage;
  for (int64_t r = 0; r < cfg.train.runs; ++r)
    s.runs.push_back(train_run(cfg, ds, ctx, r, run_opts, progress));
  s.model_name = s.runs.front().model_name;
  s.summarise();
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
    add_errors(s.ensemble, "test", s.test_predictions, torch::tensor(ds.test.value, torch::kFloat32),
               ds.rating_min, ds.rating_max);
  if (!opts.out_dir.empty() && opts.writes_files()) {
    // protocol = retrain: the model to keep is the one trained on all training ratings.
    const std::string from = opts.out_dir + (retrains(cfg, ds) ? "/final" : "") + "/run0/model.pt";
    // Verified as it is read, listed in this folder's manifest, and a hard link to the run's
    // file where the file system allows (the bytes on disk once).
    link_file_atomic(from, opts.out_dir + "/model.pt", read_verified_file(from));
  }
  // The epochs' temporaries stay in the heap for reuse while the runs train; a run's later
  // stages (the ranker candidates, the members' folds) allocate otherwise.
  runtime::release_freed_memory();
  return s;
}

}  // namespace symgnn::train
