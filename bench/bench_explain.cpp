// Explanations (symgnn/explain.h) of a trained model over many users: the time per
// explanation, and for occlusion whether its top part matters more than a random input:
// the mean drop of the score when the top part is taken out against the mean drop when one
// of the user's inputs (a training rating, a graph edge) drawn at random is. Prints figures.
//
//   build/bench/bench_explain --model runs/douban-g [--users 20] [--target rating] [--candidates 24]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "infer/explain_occlusion.h"
#include "infer/model_parts.h"
#include "symgnn/explain.h"
#include "symgnn/trained_model.h"

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  std::string dir, target = "rating";
  int users = 20;
  int64_t candidates = 24;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--model") dir = argv[i + 1];
    if (a == "--users") users = std::stoi(argv[i + 1]);
    if (a == "--target") target = argv[i + 1];
    if (a == "--candidates") candidates = std::stoll(argv[i + 1]);
  }
  if (dir.empty() || users < 1) {
    std::fprintf(stderr, "bench_explain: --model DIR is required (--users N >= 1)\n");
    return 2;
  }
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(dir);
  const symgnn::infer::ModelParts& parts = model.parts();
  const symgnn::Dataset& ds = parts.ds;
  std::printf("bench_explain: %s (%s), target %s, %lld candidates, %d users\n", dir.c_str(),
              model.name().c_str(), target.c_str(), static_cast<long long>(candidates), users);
  std::mt19937 gen(7);
  double top_drop = 0, random_drop = 0, seconds = 0;
  int measured = 0, exact = 0;
  const int64_t step = std::max<int64_t>(1, model.users() / users);
  for (int64_t u = 0; u < model.users() && measured < users; u += step) {
    // The user's best unrated item by the score explained.
    const std::vector<float> s =
        target == "rating" ? model.rating_all_items({u}) : model.score_all_items({u});
    const auto& seen = model.seen_items()[static_cast<size_t>(u)];
    int64_t best = -1;
    for (int64_t j = 0; j < model.items(); ++j)
      if (!std::binary_search(seen.begin(), seen.end(), j) && (best < 0 || s[j] > s[best])) best = j;
    std::vector<symgnn::infer::OccludedInput> inputs;
    for (size_t e = 0; e < ds.train.size(); ++e)
      if (ds.train.user[e] == u)
        inputs.push_back({symgnn::infer::OccludedInput::Kind::rating, u, ds.train.item[e]});
    for (size_t e = 0; e < ds.users.graph.src.size(); ++e)
      if (ds.users.graph.src[e] == u && ds.users.graph.dst[e] != u)
        inputs.push_back({symgnn::infer::OccludedInput::Kind::user_edge, u, ds.users.graph.dst[e]});
    if (best < 0 || inputs.empty()) continue;
    symgnn::ExplainOptions opt;
    opt.target = target;
    opt.top = 1;
    opt.candidates = candidates;
    const auto t0 = Clock::now();
    const symgnn::Explanation e = symgnn::explain(model, u, best, opt);
    seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    ++measured;
    if (e.exact) {
      ++exact;
      continue;
    }
    const auto pick = inputs[std::uniform_int_distribution<size_t>(0, inputs.size() - 1)(gen)];
    const std::vector<double> r = symgnn::infer::occluded_scores(parts, u, best, target, {pick});
    top_drop += e.parts.empty() ? 0 : e.parts.front().value;
    random_drop += r[0] - r[1];
  }
  std::printf("%d explanations, %.2f s each on average\n", measured, measured ? seconds / measured : 0.0);
  if (measured > exact)
    std::printf("occlusion: mean drop without the top part %.5f, without a random input %.5f (%d users)\n",
                top_drop / (measured - exact), random_drop / (measured - exact), measured - exact);
  if (exact) std::printf("%d exact explanations (no occlusion to compare)\n", exact);
  return 0;
}
