// lowrank.prior = auto (src/fit/prior_choice.h): the encoder within its memory budget, the
// paper's prior at hidden 32 with the dot decoder beyond it, and what fit() records.
#include <gtest/gtest.h>

#include <string>

#include "common/test_support.h"
#include "fit/prior_choice.h"
#include "symgnn/fit.h"
#include "symgnn/trained_model.h"

namespace st = symgnn::testing;
using symgnn::fitting::resolve_prior;

TEST(PriorChoice, KeepsTheEncoderWhereItFitsTheBudget) {
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  ASSERT_EQ(cfg.lowrank.prior, "auto");
  // ML-1M's size: 6,040 users x 3,706 items, 900,000 training ratings.
  EXPECT_EQ(resolve_prior(cfg, 6040, 3706, 900000), "");
  EXPECT_EQ(cfg.lowrank.prior, "encoder");
  EXPECT_FALSE(cfg.lowrank.id_embedding);
  EXPECT_EQ(cfg.lowrank.hidden, 75);
  EXPECT_EQ(cfg.lowrank.decoder, "auto");
  EXPECT_EQ(cfg.train.protocol, "retrain");
}

TEST(PriorChoice, GivesWayToThePapersPriorBeyondTheBudget) {
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  // The estimate at the edge: nodes x width x 128 bytes + 236 bytes per rating.
  const int64_t nodes = 120000, ratings = 4500000;
  ASSERT_GT(symgnn::fitting::encoder_peak_estimate(cfg.lowrank, nodes, ratings),
            symgnn::fitting::kAutoPriorBudgetBytes);
  const std::string note = resolve_prior(cfg, 100000, 20000, ratings);
  EXPECT_NE(note.find("over its 8.0 GiB budget"), std::string::npos) << note;
  EXPECT_NE(note.find("100000 users x 20000 items"), std::string::npos) << note;
  EXPECT_EQ(cfg.lowrank.prior, "paper");
  EXPECT_TRUE(cfg.lowrank.id_embedding);
  EXPECT_EQ(cfg.lowrank.hidden, 32);
  EXPECT_EQ(cfg.lowrank.decoder, "dot");
  EXPECT_EQ(cfg.train.protocol, "early_stop");
  EXPECT_NE(note.find("train.protocol = early_stop"), std::string::npos) << note;
  EXPECT_EQ(cfg.train.patience, symgnn::fitting::kFallbackPatience);  // the preset's 100, shortened
  EXPECT_NE(note.find("train.patience = 20"), std::string::npos) << note;
  EXPECT_NO_THROW(symgnn::check_config(cfg));
  // A narrower hidden and a shorter patience stay as they are.
  symgnn::RunConfig narrow = symgnn::preset_config("recommended");
  narrow.lowrank.hidden = 16;
  narrow.train.patience = 10;
  const std::string narrow_note = resolve_prior(narrow, 100000, 20000, ratings);
  EXPECT_EQ(narrow.lowrank.hidden, 16);
  EXPECT_EQ(narrow.train.patience, 10);
  EXPECT_EQ(narrow_note.find("train.patience"), std::string::npos) << narrow_note;
}

TEST(PriorChoice, NarrowsTheEncoderWhereThereAreFewRatingsPerNode) {
  using symgnn::fitting::kAutoWidthPerRating;
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  // ML-100K u1's training carve: 80 ratings per user, the full width.
  EXPECT_EQ(resolve_prior(cfg, 943, 1682, 76000), "");
  EXPECT_EQ(cfg.lowrank.prior_width, 500);
  // A wide sparse catalogue: 3.4 ratings per item, 2.8 per user.
  cfg = symgnn::preset_config("recommended");
  const std::string note = resolve_prior(cfg, 19533, 16121, 54640);
  EXPECT_EQ(cfg.lowrank.prior, "encoder");
  EXPECT_EQ(cfg.lowrank.prior_width, std::llround(kAutoWidthPerRating * 54640.0 / 16121));
  EXPECT_NE(note.find("prior_width 500 -> "), std::string::npos) << note;
  // Never below 32, nor below 4 columns per rating class.
  cfg = symgnn::preset_config("recommended");
  resolve_prior(cfg, 100000, 100000, 1000);
  EXPECT_EQ(cfg.lowrank.prior_width, 32);
  cfg = symgnn::preset_config("recommended");
  resolve_prior(cfg, 3000, 3000, 5000, 71);  // Yahoo's 71 levels
  EXPECT_EQ(cfg.lowrank.prior_width, 284);
  // A set whose users rate many: full width, as before.
  cfg = symgnn::preset_config("recommended");
  resolve_prior(cfg, 610, 9742, 76638);
  EXPECT_EQ(cfg.lowrank.prior_width, 500);
}

TEST(PriorChoice, LeavesAnExplicitPriorAlone) {
  for (const char* prior : {"encoder", "paper"}) {
    symgnn::RunConfig cfg = symgnn::preset_config("recommended");
    cfg.lowrank.prior = prior;
    if (cfg.lowrank.prior == "paper") cfg.lowrank.id_embedding = true;
    EXPECT_EQ(resolve_prior(cfg, 400000, 20000, 90000000), "");
    EXPECT_EQ(cfg.lowrank.prior, prior);
    EXPECT_EQ(cfg.lowrank.hidden, 75);
  }
}

TEST(PriorChoice, FitRecordsTheResolvedPriorInTheModelsConfig) {
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  cfg.data.synthetic_users = 40;
  cfg.data.synthetic_items = 30;
  cfg.data.synthetic_density = 0.3;
  cfg.lowrank.prior_width = 20;
  cfg.train.epochs = 2;
  cfg.train.ranker = "none";
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("prior_choice") + "/run";
  fo.overwrite = true;
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const std::string saved = st::read_file(fo.out_dir + "/config.txt");
  EXPECT_NE(saved.find("lowrank.prior = encoder\n"), std::string::npos);
  EXPECT_EQ(saved.find("lowrank.prior = auto"), std::string::npos);
  // The directory loads back into the model that was trained.
  ASSERT_NE(r.model, nullptr);
  EXPECT_NO_THROW(symgnn::TrainedModel::load(fo.out_dir));
}
