// The single field list drives parsing, overrides, printing and docs: every path checked.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/test_support.h"
#include "symgnn/config.h"
#include "symgnn/error.h"

using namespace symgnn;

namespace {
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Config, TextRoundTripIsIdentity) {
  RunConfig a;
  set_config_value(a, "lowrank.hidden", "48");
  set_config_value(a, "train.lr", "0.003");
  set_config_value(a, "data.source", "/tmp/x.mat");
  set_config_value(a, "lowrank.biases", "true");
  set_config_value(a, "model", "base");
  const std::string text = to_text(a);
  RunConfig b;
  load_config_text(b, text, "roundtrip");
  EXPECT_EQ(to_text(b), text);
  EXPECT_EQ(b.lowrank.hidden, 48);
  EXPECT_DOUBLE_EQ(b.train.lr, 0.003);
  EXPECT_TRUE(b.lowrank.biases);
  EXPECT_EQ(b.model, "base");
}

TEST(Config, FileWithSectionsCommentsAndOverrides) {
  const auto dir = symgnn::testing::scratch_dir("config");
  const auto path =
      symgnn::testing::write_file(dir, "a.conf",
                                  "# tuned for douban\nmodel = lowrank\n[train]\nepochs = 7  # short\n"
                                  "\n[lowrank]\nvariant = G\ngraph.knn_k = 12\n");
  RunConfig cfg;
  load_config_file(cfg, path);
  EXPECT_EQ(cfg.train.epochs, 7);
  EXPECT_EQ(cfg.lowrank.variant, "G");
  EXPECT_EQ(cfg.graph.knn_k, 12);  // dotted keys are absolute even inside a section
  apply_override(cfg, "train.epochs=9");
  EXPECT_EQ(cfg.train.epochs, 9);
}

TEST(Config, UnknownKeysAreErrorsNotWarnings) {
  RunConfig cfg;
  EXPECT_NE(message_of([&] { set_config_value(cfg, "train.epoch", "3"); }).find("unknown key 'train.epoch'"),
            std::string::npos);
  EXPECT_NE(message_of([&] { set_config_value(cfg, "trian.epochs", "3"); }).find("unknown section"),
            std::string::npos);
  EXPECT_NE(message_of([&] { set_config_value(cfg, "epochs", "3"); }).find("section.field"),
            std::string::npos);
}

TEST(Config, EveryFieldRejectsABadValue) {
  // For each field: a value of the wrong type (or out of range / not a choice) is
  // rejected with a message naming the key and the value.
  RunConfig probe;
  int checked = 0;
  probe.visit_sections([&](const char* section, auto& s) {
    s.visit([&](const char* key, auto& member, const char*, const Check& c) {
      using T = std::decay_t<decltype(member)>;
      std::string bad;
      if constexpr (std::is_same_v<T, std::string>) {
        if (c.choices[0] == '\0') return;  // free text (paths): nothing to reject
        bad = "no-such-choice";
      } else if constexpr (std::is_same_v<T, bool>) {
        bad = "maybe";
      } else {
        bad = "abc";
      }
      const std::string full = std::string(section) + "." + key;
      RunConfig cfg;
      const std::string msg = message_of([&] { set_config_value(cfg, full, bad); });
      EXPECT_NE(msg.find(full), std::string::npos) << full << ": " << msg;
      EXPECT_NE(msg.find(bad), std::string::npos) << full << ": " << msg;
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        if (c.min > -1e299) {
          std::ostringstream below;
          below << (c.min - 1);
          EXPECT_THROW(set_config_value(cfg, full, below.str()), ConfigError) << full;
        }
      }
      ++checked;
    });
  });
  EXPECT_GT(checked, 30);
}

TEST(Config, RangeAndNanAreRejected) {
  RunConfig cfg;
  EXPECT_THROW(set_config_value(cfg, "data.val_fraction", "0.9"), ConfigError);
  EXPECT_THROW(set_config_value(cfg, "train.lr", "nan"), ConfigError);
  EXPECT_THROW(set_config_value(cfg, "lowrank.hidden", "12x"), ConfigError);
  EXPECT_THROW(set_config_value(cfg, "model", "svd"), ConfigError);
  EXPECT_THROW(apply_override(cfg, "train.lr"), ConfigError);
}

TEST(Config, FileErrorsNameFileAndLine) {
  const auto dir = symgnn::testing::scratch_dir("config");
  const auto path =
      symgnn::testing::write_file(dir, "bad.conf", "train.epochs = 3\nthis is not an assignment\n");
  RunConfig cfg;
  const std::string msg = message_of([&] { load_config_file(cfg, path); });
  EXPECT_NE(msg.find("bad.conf:2"), std::string::npos) << msg;
  EXPECT_THROW(load_config_file(cfg, dir + "/missing.conf"), ConfigError);
}

TEST(Config, CrossFieldRules) {
  RunConfig cfg;
  cfg.train.device = "tpu";
  EXPECT_THROW(check_config(cfg), ConfigError);
  cfg.train.device = "cuda:0";
  EXPECT_NO_THROW(check_config(cfg));
}

TEST(Config, AGraphSideNoPartOfTheRunReadsIsRefusedWhereAskedFor) {
  RunConfig cfg;
  cfg.model = "elsa";
  EXPECT_NO_THROW(check_config(cfg));  // auto: built only where read
  cfg.graph.user_graph = "knn";
  try {
    check_config(cfg);
    ADD_FAILURE() << "a user graph for elsa was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "graph.user_graph = knn: model = elsa reads only the item graph; drop it, or choose a kind that "
        "reads it (symgnn models)");
  }
  cfg.graph.user_graph = "identity";
  cfg.graph.item_graph = "knn";
  EXPECT_NO_THROW(check_config(cfg));
  // A kind that reads no graph takes the others' command line, graphs and all: it is run
  // beside them on the same files.
  cfg.graph.user_graph = "file";
  for (const char* kind : {"ease", "baseline", "popularity", "itemknn"}) {
    cfg.model = kind;
    EXPECT_NO_THROW(check_config(cfg)) << kind;
  }
  cfg.model = "lowrank";  // reads both
  EXPECT_NO_THROW(check_config(cfg));
}

TEST(Config, DocsPageIsUpToDate) {
  std::ifstream in(std::string(SYMGNN_SOURCE_DIR) + "/docs/config.md");
  ASSERT_TRUE(in) << "docs/config.md missing: regenerate with `symgnn config --markdown > docs/config.md`";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), config_markdown())
      << "docs/config.md is stale: regenerate with `build/symgnn config --markdown > docs/config.md`";
}

TEST(ConfigPresets, PaperIsTheFieldDefaultsRecommendedTheMeasuredExtensions) {
  RunConfig plain;
  RunConfig paper = preset_config("paper");
  EXPECT_EQ(to_text(paper), to_text(plain));
  const RunConfig rec = preset_config("recommended");
  EXPECT_EQ(rec.preset, "recommended");
  EXPECT_EQ(rec.lowrank.prior, "auto");
  EXPECT_FALSE(rec.lowrank.id_embedding);
  EXPECT_EQ(rec.lowrank.decoder, "auto");
  EXPECT_EQ(rec.train.protocol, "retrain");
  EXPECT_DOUBLE_EQ(rec.train.weight_decay, 0.0);
  EXPECT_NO_THROW(check_config(rec));
  EXPECT_EQ(std::string(default_preset()), "recommended");
  EXPECT_THROW(preset_config("fast"), ConfigError);
}

TEST(ConfigPresets, AFilesPresetLineResetsEverythingAndMustComeFirst) {
  const auto dir = symgnn::testing::scratch_dir("config");
  const auto paper =
      symgnn::testing::write_file(dir, "p.conf", "# faithful\npreset = paper\n[train]\nepochs = 7\n");
  // Whatever the start, the file's preset line replaces it; its keys apply on top.
  RunConfig cfg = preset_config("recommended");
  load_config_file(cfg, paper);
  EXPECT_EQ(cfg.preset, "paper");
  EXPECT_EQ(cfg.lowrank.prior, "paper");
  EXPECT_EQ(cfg.train.epochs, 7);
  EXPECT_EQ(config_file_preset(paper), "paper");
  // A file without a preset line starts from the command's default, `recommended`.
  const auto bare = symgnn::testing::write_file(dir, "b.conf", "train.epochs = 9\n");
  EXPECT_EQ(config_file_preset(bare), "");
  const RunConfig from_bare = start_config("", bare);
  EXPECT_EQ(from_bare.preset, "recommended");
  EXPECT_EQ(from_bare.lowrank.prior, "auto");
  EXPECT_EQ(from_bare.train.epochs, 9);
  EXPECT_EQ(start_config("paper", bare).lowrank.prior, "paper");
  EXPECT_EQ(start_config("", paper).preset, "paper");
  // --preset naming another preset than the file's is refused, not silently resolved.
  const std::string clash = message_of([&] { start_config("recommended", paper); });
  EXPECT_NE(clash.find("starts from preset paper"), std::string::npos) << clash;
  // After another key a preset line would undo it: an error naming the line.
  const auto late = symgnn::testing::write_file(dir, "late.conf", "train.epochs = 7\npreset = paper\n");
  const std::string msg = message_of([&] { load_config_file(cfg, late); });
  EXPECT_NE(msg.find("late.conf:2"), std::string::npos) << msg;
  EXPECT_NE(message_of([&] { apply_override(cfg, "preset=paper"); }).find("--preset"), std::string::npos);
  // The text form names its preset first, and reads back to the same configuration.
  RunConfig rec = preset_config("recommended");
  rec.train.epochs = 11;
  const std::string text = to_text(rec);
  EXPECT_EQ(text.rfind("preset = recommended\n", 0), 0u);
  RunConfig back;
  load_config_text(back, text, "text");
  EXPECT_EQ(to_text(back), text);
}

TEST(ConfigFile, AByteOrderMarkIsNotPartOfTheFirstKey) {
  const std::string dir = symgnn::testing::scratch_dir("config_bom");
  const std::string path = symgnn::testing::write_file(dir, "bom.conf", "\xEF\xBB\xBF[train]\nepochs = 7\n");
  RunConfig cfg;
  load_config_file(cfg, path);
  EXPECT_EQ(cfg.train.epochs, 7);
  const std::string with_preset = symgnn::testing::write_file(dir, "p.conf", "\xEF\xBB\xBFpreset = paper\n");
  EXPECT_EQ(config_file_preset(with_preset), "paper");
  EXPECT_THROW(load_config_file(cfg, dir), ConfigError);
}
