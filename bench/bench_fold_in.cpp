// Folding a new user into a served model, step by step: what serve's POST /v1/recommend with
// ratings costs (docs/serve.md). Per repeat, the model grown by the user
// (TrainedModel::with_new_nodes) and its list, then the user through the door that serve
// calls (apply(..., Keep::user), symgnn/update.h: folded in alone where the model folds) and its list, and
// how far the fold-in's scores and shown ratings are from the grown model's (relative). Prints figures.
//
//   build/bench/bench_fold_in --model runs/douban [--repeats 5]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  std::string dir;
  int repeats = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--model") dir = argv[i + 1];
    if (a == "--repeats") repeats = std::stoi(argv[i + 1]);
  }
  if (dir.empty()) {
    std::fprintf(stderr, "bench_fold_in: --model DIR is required\n");
    return 2;
  }
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(dir);
  const auto& ds = model.dataset();
  std::printf("bench_fold_in: %s (%s, ranker %s), %lld users x %lld items\n", dir.c_str(),
              model.name().c_str(), model.ranker().c_str(), static_cast<long long>(model.users()),
              static_cast<long long>(model.items()));
  for (int r = 0; r < repeats; ++r) {
    symgnn::NewNodes nodes;
    for (int k = 0; k < 5; ++k)
      nodes.rows.ratings.push_back(
          {"bench-new-user", ds.items.id_of((r * 37 + k * 101) % model.items()), model.rating_max()});
    const auto t0 = Clock::now();
    const symgnn::TrainedModel grown = model.with_new_nodes(nodes);
    const auto t1 = Clock::now();
    symgnn::RecommendOptions o;
    o.k = 10;
    const auto lists = symgnn::recommend(grown, {grown.users() - 1}, o);
    const auto t2 = Clock::now();
    const symgnn::Applied applied = symgnn::apply(model, nodes.rows, symgnn::Keep::user);
    const symgnn::UserUpdate* folded = applied.user->folded() ? &*applied.user : nullptr;
    const auto ms = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    if (!folded) {
      std::printf("with_new_nodes %8.1f ms   recommend %8.1f ms   fold-in: not for this model\n", ms(t0, t1),
                  ms(t1, t2));
      continue;
    }
    const auto folded_list = symgnn::recommend(*folded, o);
    const auto t3 = Clock::now();
    const int64_t u = grown.users() - 1;
    const std::vector<float> scores = grown.score_all_items({u});
    double diff = 0;
    for (size_t k = 0; k < scores.size(); ++k)
      diff =
          std::max(diff, std::abs(double(folded->scores[k]) - scores[k]) / (1 + std::abs(double(scores[k]))));
    const auto& shown = lists.front();
    for (size_t k = 0; k < std::min(shown.scores.size(), folded_list.scores.size()); ++k)
      diff = std::max(diff, std::abs(double(folded_list.scores[k]) - shown.scores[k]) /
                                (1 + std::abs(double(shown.scores[k]))));
    std::printf(
        "with_new_nodes %7.1f ms + recommend %7.1f ms   apply(Keep::user) + recommend %6.2f ms   "
        "differ by %.2g   same list: %s\n",
        ms(t0, t1), ms(t1, t2), ms(t2, t3), diff, folded_list.items == shown.items ? "yes" : "no");
  }
  return 0;
}
