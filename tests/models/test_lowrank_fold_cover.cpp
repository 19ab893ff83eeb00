// What the low-rank model's fold-in covers (RatingModel::folds_users, src/models/lowrank_fold.cpp):
// a fold-in recomputes a user's receptive field row by row from the trace of the full forward
// (cge_rows.cpp, prior_encoder_rows.cpp), and a layer without a rows version turns it off for
// the whole model (LowRankModel::traces_rows). Every setting of the lowrank section's choices
// and switches, as config.h's own table lists them (LowRankConfig::visit), alone and in pairs,
// must fold users, save those listed below with the reason: a new layer or option without a
// rows version fails here instead of silently losing the fast path.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lowrank_test_util.h"
#include "models/baseline/offset_model.h"
#include "symgnn/error.h"
#include "symgnn/model.h"
#include "util/strings.h"

namespace symgnn::models {
namespace {

using Setting = std::pair<std::string, std::string>;  // lowrank.<key>, value

/// The settings a fold-in does not cover, with the reason.
const std::vector<std::pair<Setting, std::string>> kNotFolding = {
    {{"variant", "full"}, "attention (within and cross) reads every row"},
    {{"variant", "A"}, "attention reads every row, and there is no prior encoder"},
    {{"prior", "paper"},
     "the paper's prior aggregation has no rows version (the fold-in covers the encoder)"},
    {{"id_embedding", "true"}, "the free id embedding Uh = MLP([id || features]) has no rows version"},
    {{"prior_norm", "symmetric"},
     "over a user graph a new rating rescales the rows of the item's other raters, which the user CGE "
     "carries to the user"},
};

/// Values that never reach a model: symgnn::fit resolves them first, into values tried here.
const std::set<Setting> kResolvedBeforeBuilding = {
    {"prior", "auto"},   // fit/prior_choice.h: encoder or paper
    {"offset", "auto"},  // fit/offset_choice.h: none or baseline
};

/// Every value of every lowrank key with a closed set of them: its one_of choices, or a switch.
std::vector<Setting> discrete_settings() {
  std::vector<Setting> out;
  LowRankConfig lr;
  lr.visit([&](const char* key, auto& member, const char*, const Check& check) {
    using T = std::decay_t<decltype(member)>;
    if constexpr (std::is_same_v<T, bool>) {
      out.emplace_back(key, "true");
      out.emplace_back(key, "false");
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (*check.choices)
        for (const std::string& value : split(check.choices, '|'))
          if (!kResolvedBeforeBuilding.count({key, value})) out.emplace_back(key, value);
    }
  });
  return out;
}

/// Whether cfg's lowrank.<key> holds the setting's value.
bool cfg_has(RunConfig& cfg, const Setting& s) {
  bool has = false;
  cfg.lowrank.visit([&](const char* key, auto& member, const char*, const Check&) {
    using T = std::decay_t<decltype(member)>;
    if (s.first != key) return;
    if constexpr (std::is_same_v<T, bool>)
      has = std::string(member ? "true" : "false") == s.second;
    else if constexpr (std::is_same_v<T, std::string>)
      has = member == s.second;
  });
  return has;
}

/// The base every combination starts from: a model that folds (variant G, the prior encoder,
/// no id embedding), small, without train.auto's combination around it.
RunConfig folding_base() {
  RunConfig cfg;
  cfg.model = "lowrank";
  cfg.train.auto_choose = "off";
  cfg.lowrank.variant = "G";
  cfg.lowrank.prior = "encoder";
  cfg.lowrank.id_embedding = false;
  cfg.lowrank.hidden = 4;
  cfg.lowrank.prior_width = 10;  // two columns per rating class
  return cfg;
}

}  // namespace

TEST(FoldIn, EveryLowRankSettingOfTheConfigFoldsUsersSaveThoseListed) {
  // A user graph (a ring) beside the identity item graph, with side features.
  const ModelContext base_ctx = make_context(testing::tiny_dataset(8, 6, 24, true, 3));
  const std::vector<Setting> settings = discrete_settings();
  ASSERT_GT(settings.size(), 10u);
  size_t built = 0, folding = 0;
  for (size_t a = 0; a < settings.size(); ++a)
    for (size_t b = a; b < settings.size(); ++b) {
      if (b != a && settings[a].first == settings[b].first) continue;
      RunConfig cfg = folding_base();
      std::string what, why_not;
      for (const Setting* s : {&settings[a], &settings[b]}) {
        set_config_value(cfg, "lowrank." + s->first, s->second);
        what += (what.empty() ? "" : ", ") + ("lowrank." + s->first + " = " + s->second);
      }
      try {
        check_config(cfg);
      } catch (const ConfigError&) {
        continue;  // a combination the config refuses is never built
      }
      for (const auto& [setting, reason] : kNotFolding)
        if (cfg_has(cfg, setting)) why_not += (why_not.empty() ? "" : "; ") + reason;
      ModelContext ctx = base_ctx;
      give_offset_shrinkage(ctx, cfg);
      const std::shared_ptr<RatingModel> model = make_model(cfg, ctx);
      model->eval();
      ++built;
      folding += model->folds_users();
      EXPECT_EQ(model->folds_users(), why_not.empty())
          << what << (why_not.empty() ? ": no rows version of a layer it builds?" : ": listed: " + why_not);
    }
  EXPECT_GT(built, settings.size());
  EXPECT_GT(folding, 0u);
}

}  // namespace symgnn::models
