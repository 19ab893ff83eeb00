// The trainer's protocol on a small biased-MF model injected through the factory hook:
// masked loss, best-epoch selection, checkpoints, resume == uninterrupted, corrupt files.
#include <gtest/gtest.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "common/test_support.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "train/checkpoint.h"
#include "train/epoch_metrics.h"
#include "train/trainer.h"

using namespace symgnn;
namespace fs = std::filesystem;

namespace {

/// r(i, j) = mu + b1_i + b2_j + <P_i, Q_j>.
class TinyMF : public models::RatingModel {
 public:
  TinyMF(int64_t n1, int64_t n2, float mu) : mu_(mu) {
    p_ = register_parameter("p", torch::randn({n1, 3}) * 0.1);
    q_ = register_parameter("q", torch::randn({n2, 3}) * 0.1);
    b1_ = register_parameter("b1", torch::zeros({n1}));
    b2_ = register_parameter("b2", torch::zeros({n2}));
  }
  at::Tensor forward(const at::Tensor& u, const at::Tensor& i) override {
    auto x = (p_.index_select(0, u) * q_.index_select(0, i)).sum(1);
    if (is_training()) x = torch::dropout(x, 0.1, true);  // exercises the dropout RNG on resume
    return x + b1_.index_select(0, u) + b2_.index_select(0, i) + mu_;
  }
  std::string name() const override { return "tiny-mf"; }

 private:
  float mu_;
  at::Tensor p_, q_, b1_, b2_;
};

/// 12 x 10 low-rank ratings, 60 % observed, split train / validation / test.
struct Fixture {
  Dataset ds;
  models::ModelContext ctx;
  RunConfig cfg;
  train::TrainerOptions opts;

  Fixture() {
    torch::manual_seed(3);
    auto u = torch::randn({12, 2}), v = torch::randn({10, 2});
    auto full = (torch::mm(u, v.t()) + 3).clamp(1, 5);
    ds.name = "tiny";
    ds.users.count = 12;
    ds.items.count = 10;
    ds.rating_min = 1;
    ds.rating_max = 5;
    ds.rating_levels = {1, 2, 3, 4, 5};
    int k = 0;
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 10; ++j, ++k) {
        if (k % 5 == 4) continue;
        const float r = full[i][j].item<float>();
        (k % 7 == 0 ? ds.test : k % 11 == 0 ? ds.validation : ds.train).add(i, j, r);
      }
    // Identity graphs: the retrain protocol rebuilds a context from the merged data.
    ds.users.graph_origin = ds.items.graph_origin = GraphOrigin::Identity;
    ctx.n1 = 12;
    ctx.n2 = 10;
    ctx.train_users = torch::tensor(ds.train.user, torch::kInt64);
    ctx.train_items = torch::tensor(ds.train.item, torch::kInt64);
    ctx.train_values = torch::tensor(ds.train.value, torch::kFloat32);
    ctx.rating_min = 1;
    ctx.rating_max = 5;
    ctx.global_mean = ctx.train_values.mean().item<float>();
    cfg.train.epochs = 60;
    cfg.train.lr = 0.05;
    cfg.train.patience = 1000;
    cfg.train.checkpoint_every = 5;
    cfg.train.checkpoint_seconds = 0;  // every 5 epochs, however fast
    const float mu = ctx.global_mean;
    opts.factory = [mu](const RunConfig&, const models::ModelContext& c) {
      return std::make_shared<TinyMF>(c.n1, c.n2, mu);
    };
  }
  train::RunResult run(int64_t r = 0) {
    train::Progress progress(nullptr, nullptr);
    return train::train_run(cfg, ds, ctx, r, opts, progress);
  }
  /// Trains in a scratch folder until stopped as if killed after `after` epochs, then
  /// resumes from its checkpoint to the end.
  train::RunResult interrupted_and_resumed(const std::string& folder, int64_t after) {
    opts.out_dir = symgnn::testing::scratch_dir(folder);
    opts.interrupt_after = after;
    EXPECT_THROW(run(), Error);
    opts.interrupt_after = 0;
    opts.resume = true;
    return run();
  }
};

}  // namespace

TEST(Trainer, SelectsTheEpochOnTheNamedValidationMetric) {
  Fixture f;
  f.cfg.train.select = "val_mae";
  const auto r = f.run();
  const auto& best = r.history[static_cast<size_t>(r.best_epoch - 1)];
  // Every evaluated epoch records every metric by name; the selected one has the lowest MAE.
  for (const auto& e : r.history) {
    for (const char* name : {"train_rmse", "val_rmse", "val_mae", "test_rmse", "test_mae"})
      EXPECT_TRUE(std::isfinite(e.metric(name))) << name << " at epoch " << e.epoch;
    EXPECT_GE(e.metric("val_mae"), best.metric("val_mae"));
  }
  EXPECT_DOUBLE_EQ(r.selected.at("val_mae"), best.metric("val_mae"));
  EXPECT_DOUBLE_EQ(r.selected.at("test_mae"), best.metric("test_mae"));
  EXPECT_DOUBLE_EQ(r.selected.at("val_rmse"), best.metric("val_rmse"));
  // On RMSE (the default) the same run selects the epoch of the lowest validation RMSE.
  Fixture g;
  const auto by_rmse = g.run();
  for (const auto& e : by_rmse.history) EXPECT_GE(e.metric("val_rmse"), by_rmse.selected.at("val_rmse"));
}

TEST(Trainer, ErrorsClipToTheRatingRange) {
  auto pred = torch::tensor({0.0f, 6.0f, 3.0f});
  auto target = torch::tensor({1.0f, 5.0f, 4.0f});
  train::MetricValues m;
  train::add_errors(m, "test", pred, target, 1, 5);
  EXPECT_NEAR(m.at("test_rmse"), std::sqrt(1.0 / 3.0), 1e-9);
  EXPECT_NEAR(m.at("test_mae"), 1.0 / 3.0, 1e-9);
  EXPECT_NEAR(train::squared_error(pred, target, 1, 5), 1.0 / 3.0, 1e-9);
  train::add_training_errors(m, 0.25);
  EXPECT_DOUBLE_EQ(m.at("train_rmse"), 0.5);
}

TEST(Trainer, LearnsAndReportsTestAtBestValidationEpoch) {
  Fixture f;
  auto r = f.run();
  ASSERT_EQ(static_cast<int64_t>(r.history.size()), r.epochs_run);
  EXPECT_LT(r.history.back().metric("train_rmse"), r.history.front().metric("train_rmse"));
  const auto& best = r.history[static_cast<size_t>(r.best_epoch - 1)];
  EXPECT_DOUBLE_EQ(r.selected.at("val_rmse"), best.metric("val_rmse"));
  EXPECT_DOUBLE_EQ(r.selected.at("test_rmse"), best.metric("test_rmse"));
  for (const auto& e : r.history) EXPECT_GE(e.metric("val_rmse"), r.selected.at("val_rmse"));
  EXPECT_GT(r.peak_memory_bytes, 0);
  EXPECT_EQ(r.parameters, 12 * 3 + 10 * 3 + 12 + 10);
}

TEST(Trainer, EarlyStoppingEndsTheRun) {
  Fixture f;
  f.cfg.train.patience = 3;
  f.cfg.train.lr = 0.5;  // overshoots quickly, so validation stops improving
  auto r = f.run();
  EXPECT_LT(r.epochs_run, f.cfg.train.epochs);
  EXPECT_EQ(r.epochs_run - r.best_epoch, 3);
}

// train.eval_every = k: validation is measured at epochs k, 2k, ..., at the last epoch and
// where patience could end the run; the training itself is the run measured every epoch (the
// same losses), the epoch chosen is the best measured one, and patience still counts epochs.
TEST(Trainer, ValidationEveryKEpochsTrainsTheSameAndChoosesAmongTheMeasuredEpochs) {
  Fixture every;
  const auto full = every.run();
  Fixture f;
  f.cfg.train.eval_every = 4;
  const auto r = f.run();
  ASSERT_EQ(r.history.size(), full.history.size());
  double best = std::numeric_limits<double>::infinity();
  int64_t best_epoch = 0;
  for (size_t k = 0; k < r.history.size(); ++k) {
    const auto& e = r.history[k];
    EXPECT_DOUBLE_EQ(e.loss, full.history[k].loss) << "epoch " << e.epoch;
    const bool measured = e.epoch % 4 == 0 || e.epoch == f.cfg.train.epochs;
    EXPECT_EQ(std::isfinite(e.metric("val_rmse")), measured) << "epoch " << e.epoch;
    EXPECT_EQ(std::isfinite(e.metric("test_rmse")), measured) << "epoch " << e.epoch;
    if (measured) {
      // The same weights as the run measured every epoch: the same figures.
      EXPECT_NEAR(e.metric("val_rmse"), full.history[k].metric("val_rmse"), 1e-9) << "epoch " << e.epoch;
      if (e.metric("val_rmse") < best) best = e.metric("val_rmse"), best_epoch = e.epoch;
    }
  }
  EXPECT_EQ(r.best_epoch, best_epoch);
  EXPECT_DOUBLE_EQ(r.selected.at("val_rmse"), best);
  EXPECT_GE(r.selected.at("val_rmse"), full.selected.at("val_rmse"));

  // Patience in epochs: the run stops `patience` epochs after its best measured one, on an
  // epoch it measured although 3 is no multiple of 4.
  Fixture p;
  p.cfg.train.patience = 3;
  p.cfg.train.lr = 0.5;
  p.cfg.train.eval_every = 4;
  const auto stopped = p.run();
  EXPECT_LT(stopped.epochs_run, p.cfg.train.epochs);
  EXPECT_EQ(stopped.epochs_run - stopped.best_epoch, 3);
  EXPECT_TRUE(std::isfinite(stopped.history.back().metric("val_rmse")));
}

TEST(Trainer, ResumeEqualsUninterruptedRun) {
  Fixture a;
  a.opts.out_dir = symgnn::testing::scratch_dir("trainer_a");
  const auto full = a.run();

  Fixture b;
  const auto resumed = b.interrupted_and_resumed("trainer_b", 23);  // not a multiple of checkpoint_every
  ASSERT_EQ(resumed.history.size(), full.history.size());
  for (size_t k = 0; k < full.history.size(); ++k) {
    EXPECT_DOUBLE_EQ(resumed.history[k].loss, full.history[k].loss) << "epoch " << k + 1;
    EXPECT_DOUBLE_EQ(resumed.history[k].metric("val_rmse"), full.history[k].metric("val_rmse"))
        << "epoch " << k + 1;
  }
  EXPECT_DOUBLE_EQ(resumed.selected.at("test_rmse"), full.selected.at("test_rmse"));
  EXPECT_EQ(resumed.best_epoch, full.best_epoch);
}

// TrainerOptions::warm_start: a longer run that continues a short run's last state (its
// weights, Adam's moments, the moving average, the random generator) is the run that never
// stopped, epoch by epoch; the short run may have had a smaller patience. Under
// protocol = retrain only the selection phase continues it: the final phase starts afresh.
TEST(Trainer, ALongerRunContinuingAShortRunsStateEqualsTheUninterruptedRun) {
  const auto configure = [](Fixture& f, const std::string& protocol) {
    f.ds.rating_levels.clear();  // continuous ratings: the retrain's context takes its levels from the data
    f.cfg.train.ema = 0.9;
    f.cfg.train.protocol = protocol;
    f.cfg.train.patience = 30;
  };
  for (const std::string protocol : {"early_stop", "retrain"}) {
    Fixture a;
    configure(a, protocol);
    const auto full = a.run();

    Fixture b;  // the short run: the first 20 epochs, early stopping, its patience smaller
    configure(b, "early_stop");
    b.cfg.train.epochs = 20;
    b.cfg.train.patience = 15;
    b.opts.keep_final_state = true;
    const auto shorter = b.run();
    ASSERT_TRUE(shorter.final_state) << protocol;
    EXPECT_EQ(shorter.final_state->epoch, shorter.epochs_run);
    EXPECT_FALSE(shorter.final_state->checkpoint.empty());

    Fixture c;
    configure(c, protocol);
    // Another seed: the state read carries the weights and the generator, so a run that did
    // not read it would differ from its first epoch (the final phase of retrain seeds afresh).
    if (protocol == "early_stop") c.cfg.train.seed = 99;
    c.opts.warm_start = shorter.final_state;
    const auto continued = c.run();
    EXPECT_TRUE(shorter.final_state->checkpoint.empty()) << "the continuing run frees the bytes";
    EXPECT_FALSE(continued.final_state) << "kept only where asked";
    ASSERT_EQ(continued.history.size(), full.history.size()) << protocol;
    for (size_t k = 0; k < full.history.size(); ++k) {
      EXPECT_DOUBLE_EQ(continued.history[k].loss, full.history[k].loss) << protocol << " epoch " << k + 1;
      EXPECT_DOUBLE_EQ(continued.history[k].metric("val_rmse"), full.history[k].metric("val_rmse"))
          << protocol << " epoch " << k + 1;
    }
    ASSERT_EQ(continued.final_history.size(), full.final_history.size()) << protocol;
    for (size_t k = 0; k < full.final_history.size(); ++k)
      EXPECT_DOUBLE_EQ(continued.final_history[k].loss, full.final_history[k].loss)
          << protocol << " final epoch " << k + 1;
    EXPECT_EQ(continued.best_epoch, full.best_epoch);
    EXPECT_DOUBLE_EQ(continued.selected.at("test_rmse"), full.selected.at("test_rmse")) << protocol;
    EXPECT_DOUBLE_EQ(continued.selected.at("val_rmse"), full.selected.at("val_rmse")) << protocol;
  }
  // Run 0 alone continues it: run 1 trains its own seed from the start.
  Fixture d;
  d.cfg.train.epochs = 20;
  d.opts.keep_final_state = true;
  const auto shorter = d.run();
  Fixture e;
  e.opts.warm_start = shorter.final_state;
  const auto second = e.run(1);
  EXPECT_FALSE(shorter.final_state->checkpoint.empty());
  Fixture g;
  const auto plain = g.run(1);
  EXPECT_DOUBLE_EQ(second.history.front().loss, plain.history.front().loss);
}

TEST(Trainer, CorruptOrMismatchedCheckpointIsAClearError) {
  Fixture f;
  f.opts.out_dir = symgnn::testing::scratch_dir("trainer_c");
  f.cfg.train.epochs = 6;
  f.run();
  const std::string ckpt = f.opts.out_dir + "/run0/checkpoint.pt";
  ASSERT_TRUE(fs::exists(ckpt));
  // Mismatched: a different configuration.
  Fixture g;
  g.opts.out_dir = f.opts.out_dir;
  g.opts.resume = true;
  g.cfg.train.epochs = 6;
  g.cfg.train.lr = 0.01;
  EXPECT_THROW(g.run(), CheckpointError);
  // Corrupt: truncated file.
  fs::resize_file(ckpt, fs::file_size(ckpt) / 2);
  g.cfg.train.lr = f.cfg.train.lr;
  try {
    g.run();
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint.pt"), std::string::npos) << e.what();
  }
}

TEST(Trainer, SavedModelRoundTrips) {
  Fixture f;
  f.opts.out_dir = symgnn::testing::scratch_dir("trainer_m");
  f.cfg.train.epochs = 5;
  f.run();
  const std::string path = f.opts.out_dir + "/run0/model.pt";
  RunConfig back;
  load_config_text(back, train::read_model_config(path), path);
  EXPECT_EQ(to_text(back), to_text(f.cfg));
  TinyMF m(12, 10, f.ctx.global_mean);
  EXPECT_NO_THROW(train::load_model_weights(m, path, at::Device(at::kCPU)));
  TinyMF wrong(13, 10, 0);
  EXPECT_THROW(train::load_model_weights(wrong, path, at::Device(at::kCPU)), CheckpointError);
}

TEST(Trainer, MaskedLossIgnoresUnobservedEntries) {
  // The training loss equals the squared error over the observed cells of a dense
  // n1 x n2 matrix whose unobserved cells hold garbage: they never enter the loss.
  Fixture f;
  torch::manual_seed(5);
  TinyMF model(12, 10, f.ctx.global_mean);
  model.eval();  // no dropout: forward is deterministic
  torch::NoGradGuard no_grad;
  const at::Tensor loss =
      model.training_loss(f.ctx.train_users, f.ctx.train_items, f.ctx.train_values, nullptr);
  const at::Tensor all_u = torch::arange(12).repeat_interleave(10), all_i = torch::arange(10).repeat({12});
  const at::Tensor dense_pred = model.forward(all_u, all_i).view({12, 10});
  at::Tensor target = torch::full({12, 10}, 1e6), mask = torch::zeros({12, 10});
  for (size_t k = 0; k < f.ds.train.size(); ++k) {
    target[f.ds.train.user[k]][f.ds.train.item[k]] = f.ds.train.value[k];
    mask[f.ds.train.user[k]][f.ds.train.item[k]] = 1;
  }
  const double masked =
      ((dense_pred - target).pow(2) * mask).sum().item<double>() / mask.sum().item<double>();
  EXPECT_NEAR(loss.item<double>(), masked, 1e-4 * masked);
}

TEST(Trainer, EmaResumeEqualsUninterruptedRun) {
  // The moving average is part of the run's state: a resumed run must carry it over.
  Fixture a;
  a.cfg.train.ema = 0.9;
  a.opts.out_dir = symgnn::testing::scratch_dir("trainer_ema_a");
  const auto full = a.run();
  Fixture b;
  b.cfg.train.ema = 0.9;
  const auto resumed = b.interrupted_and_resumed("trainer_ema_b", 17);
  ASSERT_EQ(resumed.history.size(), full.history.size());
  for (size_t k = 0; k < full.history.size(); ++k)
    EXPECT_DOUBLE_EQ(resumed.history[k].metric("val_rmse"), full.history[k].metric("val_rmse"))
        << "epoch " << k + 1;
  // The averaged weights lag the trained ones: their first evaluations differ.
  Fixture c;
  const auto plain = c.run();
  EXPECT_NE(plain.history[2].metric("val_rmse"), full.history[2].metric("val_rmse"));
}

TEST(Trainer, AveragedCheckpointsAreSavedAndAveraged) {
  Fixture f;
  f.ds.train.value.insert(f.ds.train.value.end(), f.ds.validation.value.begin(), f.ds.validation.value.end());
  f.ds.train.user.insert(f.ds.train.user.end(), f.ds.validation.user.begin(), f.ds.validation.user.end());
  f.ds.train.item.insert(f.ds.train.item.end(), f.ds.validation.item.begin(), f.ds.validation.item.end());
  f.ds.validation = RatingList{};
  f.cfg.train.epochs = 20;
  f.cfg.train.average_last = 3;
  f.cfg.train.average_every = 4;
  f.opts.out_dir = symgnn::testing::scratch_dir("trainer_avg");
  const auto r = f.run();
  EXPECT_EQ(r.averaged_checkpoints, 3);
  EXPECT_EQ(r.best_epoch, 20);
  // The saved model holds the weights of epochs 12, 16 and 20; the mean of their test
  // predictions is the run's test prediction.
  TinyMF m(12, 10, f.ctx.global_mean);
  const auto members = train::load_model_members(m, f.opts.out_dir + "/run0/model.pt", at::Device(at::kCPU));
  ASSERT_EQ(members.size(), 3u);
  m.eval();
  torch::NoGradGuard g;
  const auto u = torch::tensor(f.ds.test.user, torch::kInt64),
             i = torch::tensor(f.ds.test.item, torch::kInt64);
  at::Tensor mean = torch::zeros({u.size(0)});
  for (const auto& w : members) {
    train::set_module_state(m, w);
    mean += m.forward(u, i).clamp(1, 5) / 3.0;
  }
  EXPECT_TRUE(torch::allclose(mean, r.test_predictions.to(torch::kFloat), 1e-5, 1e-5));
  // The averaged prediction differs from the last epoch's alone.
  train::set_module_state(m, members.back());
  EXPECT_FALSE(torch::allclose(mean, m.forward(u, i).clamp(1, 5), 1e-6, 1e-6));
}

TEST(Trainer, RetrainChoosesTheEpochsOnValidationThenTrainsOnEverything) {
  Fixture f;
  f.ds.rating_levels.clear();  // continuous ratings: the final context takes its levels from the data
  f.cfg.train.protocol = "retrain";
  f.cfg.train.patience = 5;
  f.cfg.train.lr = 0.2;
  f.opts.out_dir = symgnn::testing::scratch_dir("trainer_retrain");
  const auto r = f.run();
  ASSERT_GT(r.best_epoch, 0);
  EXPECT_EQ(static_cast<int64_t>(r.final_history.size()), r.best_epoch);
  EXPECT_EQ(r.epochs_run, static_cast<int64_t>(r.history.size() + r.final_history.size()));
  EXPECT_EQ(r.val_predictions.numel(), static_cast<int64_t>(f.ds.validation.size()));
  EXPECT_EQ(r.test_predictions.numel(), static_cast<int64_t>(f.ds.test.size()));
  EXPECT_TRUE(std::isfinite(r.selected.at("val_rmse")));
  // The final model's config trains on all training ratings for the chosen epochs.
  const std::string path = f.opts.out_dir + "/final/run0/model.pt";
  RunConfig saved;
  load_config_text(saved, train::read_model_config(path), path);
  EXPECT_EQ(saved.data.val_fraction, 0.0);
  EXPECT_EQ(saved.train.epochs, r.best_epoch);
  EXPECT_EQ(saved.train.protocol, "early_stop");
  // Without a validation split there is nothing to choose the epochs on: one phase of
  // train.epochs on all training ratings, as the retrain phase would run.
  Fixture g;
  g.cfg.train.protocol = "retrain";
  g.cfg.train.epochs = 4;
  g.ds.validation = RatingList{};
  const auto one = g.run();
  EXPECT_EQ(one.epochs_run, 4);
  EXPECT_TRUE(one.final_history.empty());
  EXPECT_EQ(one.test_predictions.numel(), static_cast<int64_t>(g.ds.test.size()));
}

// train.retrain_from = selected: the training on all ratings continues the selection
// phase's chosen weights for retrain_warm_fraction of the chosen epochs, so its first epoch
// already fits the training ratings as the chosen model does; from scratch it starts over.
TEST(Trainer, AWarmRetrainContinuesTheChosenWeightsForAFractionOfTheEpochs) {
  const auto retrain = [](const std::string& from) {
    Fixture f;
    f.ds.rating_levels.clear();
    f.cfg.train.protocol = "retrain";
    f.cfg.train.patience = 5;
    f.cfg.train.lr = 0.2;
    f.cfg.train.retrain_from = from;
    f.cfg.train.retrain_warm_fraction = 0.5;
    return f.run();
  };
  const auto scratch = retrain("scratch"), warm = retrain("selected");
  ASSERT_GT(warm.best_epoch, 1);
  EXPECT_EQ(warm.best_epoch, scratch.best_epoch);  // the same selection phase
  EXPECT_EQ(static_cast<int64_t>(scratch.final_history.size()), scratch.best_epoch);
  EXPECT_EQ(static_cast<int64_t>(warm.final_history.size()),
            std::max<int64_t>(1, std::llround(0.5 * static_cast<double>(warm.best_epoch))));
  const std::string train = symgnn::rating_figure("train");
  const double chosen_fit = warm.history[static_cast<size_t>(warm.best_epoch - 1)].metric(train);
  EXPECT_LT(warm.final_history.front().metric(train), scratch.final_history.front().metric(train));
  EXPECT_NEAR(warm.final_history.front().metric(train), chosen_fit, 0.5 * chosen_fit);
}

TEST(Trainer, ARetrainThatCannotPaySavesTheSelectionPhasesWeightsAsTheFinalModel) {
  Fixture f;
  f.ds.rating_levels.clear();
  f.cfg.train.protocol = "retrain";
  f.cfg.train.patience = 5;
  f.cfg.train.lr = 0.2;
  f.opts.out_dir = symgnn::testing::scratch_dir("trainer_retrain_skipped");
  int64_t asked = 0;
  f.opts.retrain_pays = [&asked](const train::RunResult& chosen) {
    ++asked;
    EXPECT_GT(chosen.best_epoch, 0);
    EXPECT_TRUE(chosen.val_predictions.defined());
    return false;
  };
  const auto r = f.run();
  EXPECT_EQ(asked, 1);
  EXPECT_FALSE(r.retrained);
  EXPECT_TRUE(r.final_history.empty());
  EXPECT_EQ(r.epochs_run, static_cast<int64_t>(r.history.size()));
  ASSERT_EQ(r.saved.size(), 1u);
  // The final model's file holds the selection phase's weights under the final config (all
  // training ratings as its context), where the retrain would have written it.
  const std::string path = f.opts.out_dir + "/final/run0/model.pt";
  ASSERT_TRUE(fs::exists(path));
  RunConfig saved;
  load_config_text(saved, train::read_model_config(path), path);
  EXPECT_EQ(saved.data.val_fraction, 0.0);
  EXPECT_EQ(saved.train.epochs, r.best_epoch);
  TinyMF loaded(12, 10, f.ctx.global_mean);
  const std::vector<train::ModuleState> members =
      train::load_model_members(loaded, path, at::Device(at::kCPU));
  ASSERT_EQ(members.size(), 1u);
  TinyMF chosen(12, 10, f.ctx.global_mean);
  train::set_module_state(chosen, r.saved.front());
  loaded.eval();
  chosen.eval();
  const auto u = torch::tensor(f.ds.test.user, torch::kInt64),
             i = torch::tensor(f.ds.test.item, torch::kInt64);
  EXPECT_TRUE(torch::equal(loaded.forward(u, i), chosen.forward(u, i)));
  // A retrain that pays runs as before.
  Fixture g;
  g.ds.rating_levels.clear();
  g.cfg.train.protocol = "retrain";
  g.cfg.train.patience = 5;
  g.cfg.train.lr = 0.2;
  g.opts.retrain_pays = [](const train::RunResult&) { return true; };
  const auto paid = g.run();
  EXPECT_TRUE(paid.retrained);
  EXPECT_EQ(static_cast<int64_t>(paid.final_history.size()), paid.best_epoch);
}

TEST(Trainer, MiniBatchesTakeSeveralStepsAnEpochAndResumeExactly) {
  Fixture full;
  full.cfg.train.epochs = 20;
  const auto one_step = full.run();
  // A batch at least as large as the training set is the full batch, bit for bit.
  Fixture whole;
  whole.cfg.train.epochs = 20;
  whole.cfg.train.batch_size = 1000;
  const auto same = whole.run();
  ASSERT_EQ(same.history.size(), one_step.history.size());
  for (size_t k = 0; k < same.history.size(); ++k) EXPECT_EQ(same.history[k].loss, one_step.history[k].loss);

  // Four batches an epoch: four times the steps, so five epochs fit better than five
  // full-batch epochs (the training RMSE of an epoch is taken as its steps go).
  Fixture a;
  a.cfg.train.epochs = 20;
  a.cfg.train.batch_size = static_cast<int64_t>(a.ds.train.size() + 3) / 4;
  a.opts.out_dir = symgnn::testing::scratch_dir("trainer_mb_a");
  const auto batched = a.run();
  EXPECT_LT(batched.history[4].metric("train_rmse"), one_step.history[4].metric("train_rmse"));
  EXPECT_LT(batched.history.back().metric("train_rmse"), batched.history.front().metric("train_rmse"));

  Fixture b;
  b.cfg = a.cfg;
  const auto resumed = b.interrupted_and_resumed("trainer_mb_b", 7);
  ASSERT_EQ(resumed.history.size(), batched.history.size());
  for (size_t k = 0; k < batched.history.size(); ++k)
    EXPECT_DOUBLE_EQ(resumed.history[k].loss, batched.history[k].loss) << "epoch " << k + 1;
  EXPECT_DOUBLE_EQ(resumed.selected.at("test_rmse"), batched.selected.at("test_rmse"));
}
