// Where one training epoch of the low-rank model goes, stage by stage, on a random
// Douban-sized problem (3000 x 3000, 117k training pairs, 20k evaluation pairs) with the
// extended configuration of configs/douban_lowrank_encoder.conf: prior encoder (width 300),
// class decoder with 4 bases, hidden 50, EMA-style evaluation forward. Figures only.
// `ml-latest-small` instead builds a random problem of that set's shape (610 x 9,742, 76,638
// training and 24,198 evaluation pairs) under the recommended preset's network there: width
// 500, hidden 75, two CGE layers, the dot decoder of the residual network.
//
//   bench_epoch_stages [threads=1] [repeats=20] [douban|ml-latest-small]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/lowrank_model.h"
#include "random_context.h"
#include "runtime/runtime.h"

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 20;
  symgnn::runtime::set_compute_threads(threads);  // as the CLI does
  symgnn::runtime::keep_freed_memory();
  const bool mls = argc > 3 && std::string(argv[3]) == "ml-latest-small";
  const int64_t n1 = mls ? 610 : 3000, n2 = mls ? 9742 : 3000, n_eval = mls ? 24198 : 20000;
  const int64_t n_train = mls ? 76638 : 117000;
  const auto ctx = bench::random_context(n1, n2, n_train + n_eval);
  const at::Tensor tu = ctx.train_users.narrow(0, 0, n_train), ti = ctx.train_items.narrow(0, 0, n_train);
  const at::Tensor tv = ctx.train_values.narrow(0, 0, n_train);
  const at::Tensor eu = ctx.train_users.narrow(0, n_train, n_eval),
                   ei = ctx.train_items.narrow(0, n_train, n_eval);

  symgnn::LowRankConfig cfg;
  cfg.variant = "G";
  cfg.hidden = 50;
  cfg.layers = 0;
  cfg.decoder = "classes";
  cfg.class_bases = 4;
  cfg.class_init = "orthogonal";
  cfg.prior = "encoder";
  cfg.id_embedding = false;
  cfg.prior_width = 300;
  if (mls) {
    cfg.hidden = 75;
    cfg.layers = 2;
    cfg.decoder = "dot";
    cfg.biases = false;
    cfg.prior_width = 500;
  }
  torch::manual_seed(1);
  symgnn::models::LowRankModel model(cfg, ctx);
  torch::optim::Adam adam(model.parameters(), torch::optim::AdamOptions(0.01));
  std::printf("low-rank G + prior encoder, %lld x %lld, %lld training pairs, %d thread(s)\n",
              static_cast<long long>(n1), static_cast<long long>(n2), static_cast<long long>(n_train),
              threads);

  double t_emb = 0, t_loss = 0, t_back = 0, t_step = 0, t_eval = 0;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  for (int i = -3; i < repeats; ++i) {  // 3 warm-up epochs
    model.train();
    adam.zero_grad();
    const auto t0 = Clock::now();
    auto [u1, u2] = model.embeddings();
    const auto t1 = Clock::now();
    // training_loss recomputes the embeddings; time the decoder alone as loss - embeddings.
    at::Tensor loss = model.training_loss(tu, ti, tv, nullptr);
    const auto t2 = Clock::now();
    loss.backward();
    const auto t3 = Clock::now();
    adam.step();
    const auto t4 = Clock::now();
    {
      torch::NoGradGuard no_grad;
      model.eval();
      (void)model.forward(eu, ei).sum().item<double>();
    }
    const auto t5 = Clock::now();
    if (i < 0) continue;
    t_emb += ms(t0, t1);
    t_loss += ms(t1, t2) - ms(t0, t1);
    t_back += ms(t2, t3);
    t_step += ms(t3, t4);
    t_eval += ms(t4, t5);
  }
  const double total = (t_emb + t_loss + t_back + t_step + t_eval) / repeats;
  std::printf("  encoder forward   %7.1f ms\n", t_emb / repeats);
  std::printf("  decoder + loss    %7.1f ms\n", t_loss / repeats);
  std::printf("  backward          %7.1f ms\n", t_back / repeats);
  std::printf("  Adam step         %7.1f ms\n", t_step / repeats);
  std::printf("  eval forward      %7.1f ms\n", t_eval / repeats);
  std::printf("  epoch             %7.1f ms\n", total);
  return 0;
}
