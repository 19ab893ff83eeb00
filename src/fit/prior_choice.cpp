#include "fit/prior_choice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "symgnn/model_kinds.h"

namespace symgnn::fitting {

namespace {

std::string gib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / double(int64_t{1} << 30));
  return buf;
}

}  // namespace

int64_t encoder_peak_estimate(const LowRankConfig& lr, int64_t nodes, int64_t train_ratings) {
  return kEncoderBytesPerNodeUnit * lr.prior_width * nodes + kEncoderBytesPerRating * train_ratings;
}

std::string resolve_prior(RunConfig& cfg, int64_t users, int64_t items, int64_t train_ratings,
                          int64_t classes) {
  LowRankConfig& lr = cfg.lowrank;
  if (lr.prior != "auto") return "";
  // The width first, from the ratings per node: what the budget below then weighs.
  std::string width_note;
  const double per_node =
      static_cast<double>(train_ratings) / static_cast<double>(std::max<int64_t>(1, std::min(users, items)));
  const int64_t floor = std::min(lr.prior_width, std::max(kMinAutoWidth, 4 * classes));
  const int64_t width =
      std::clamp(static_cast<int64_t>(std::llround(kAutoWidthPerRating * per_node)), floor, lr.prior_width);
  // The prior is the lowrank section's: another kind's run only settles its key.
  const bool lowrank = kind_reads_section(model_kind(cfg.model), "lowrank");
  if (lowrank && width < lr.prior_width) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", per_node);
    width_note = "note: lowrank.prior = auto: " + std::string(buf) +
                 " training ratings per node of the denser side: prior_width " +
                 std::to_string(lr.prior_width) + " -> " + std::to_string(width) +
                 " (src/fit/prior_choice.h)";
    lr.prior_width = width;
  }
  const int64_t estimate = encoder_peak_estimate(lr, users + items, train_ratings);
  if (!lowrank || estimate <= kAutoPriorBudgetBytes) {
    lr.prior = "encoder";
    return width_note;
  }
  lr.prior = "paper";
  lr.id_embedding = true;
  lr.hidden = std::min<int64_t>(lr.hidden, kFallbackHidden);
  lr.decoder = "dot";
  // The retrain phase builds a second model context over all training ratings beside the
  // first (76 bytes a rating each): at 100 M ratings the two do not fit 24 GB.
  const bool retrain = cfg.train.protocol == "retrain";
  if (retrain) cfg.train.protocol = "early_stop";
  const bool shorter = cfg.train.patience > kFallbackPatience;
  if (shorter) cfg.train.patience = kFallbackPatience;
  return "note: lowrank.prior = auto: the prior encoder would need about " + gib(estimate) + " on " +
         std::to_string(users) + " users x " + std::to_string(items) + " items and " +
         std::to_string(train_ratings) + " training ratings, over its " + gib(kAutoPriorBudgetBytes) +
         " budget; training the paper's prior instead (lowrank.prior = paper, id_embedding = true, hidden "
         "= " +
         std::to_string(lr.hidden) + ", decoder = dot" +
         (retrain ? std::string(", train.protocol = early_stop") : std::string()) +
         (shorter ? ", train.patience = " + std::to_string(kFallbackPatience) : std::string()) +
         "; docs/scale.md, \"The defaults at scale\")";
}

}  // namespace symgnn::fitting
