// The report's rows as data (the one place that names the models each table and figure shows)
// and the sections of results.md as text, which report.cpp builds before writing any file.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "reproduce/report.h"
#include "reproduce/results.h"

namespace symgnn::reproduce {

/// A model as the report shows it: its cell is at the tuned config's depth (plan.h).
struct ModelRow {
  const char* model;        // Cell::model and the paper's row of results.h
  bool extended;            // the extended low-rank model (configs/<set>_lowrank_encoder.conf)
  const char* short_label;  // in blend weights and Table 4
  bool seeded;              // trained with seeds, so it has a seed ensemble
};
inline constexpr ModelRow kBaseline{"baseline", false, "baseline", false};
inline constexpr ModelRow kSylvester{"sylvester", false, "Sylv.", false};
inline constexpr ModelRow kBase{"base", false, "base", true};
inline constexpr ModelRow kLowrank{"lowrank", false, "low-rank", true};
inline constexpr ModelRow kExtended{"lowrank", true, "extended", true};

/// Tables 2 and 3 (ours, the ensembles, the blend, the best of ours), in this order: the bias
/// baseline first, as popularity heads the ranking table.
inline constexpr ModelRow kRmseTableRows[] = {kBaseline, kSylvester, kBase, kLowrank, kExtended};
/// The rating models in the ranking table (its other rows: report.cpp, ranking_table).
inline constexpr ModelRow kRankingRows[] = {kSylvester, kBase, kLowrank};
/// Table 4 and its training curves: each learned model in each variant.
inline constexpr ModelRow kAblationModels[] = {kBase, kLowrank};
inline constexpr const char* kAblationVariants[] = {"full", "G", "A"};
/// Figures 2 and 3 and the curves of Tables 2-3 put low-rank first, as the paper's figures do.
inline constexpr ModelRow kFigureModels[] = {kLowrank, kBase};
/// Figure 3: with attention (the full model), then without (its G ablation).
inline constexpr const char* kFigure3Variants[] = {"full", "G"};

/// Tables 2 and 3 (results/<id>.csv); a benchmark column is shown when its cells are in the plan.
struct RmseTable {
  const char *id, *title;
  std::vector<const char*> benchmarks;
  bool douban_memory_note;  // states the base model's peak memory on Douban
};
inline const RmseTable kRmseTables[] = {
    {"table2",
     "Table 2: Douban, Flixster, Flixster with the user graph only, Yahoo Music",
     {"douban", "flixster", "flixster_u", "yahoo"},
     true},
    {"table3", "Table 3: MovieLens", {"ml100k", "ml1m"}, false}};

/// What the sections are built from: the plan and the cells' results, each read when first
/// asked for, so that results.md's opening states the commits and training time of those shown.
struct ReportInput {
  const Plan& plan;
  const ReportOptions& opts;
  std::string results_dir, plots_dir;            // absolute: the gnuplot scripts redraw from anywhere
  std::set<std::string> planned, benches, gits;  // the plan's cells and benchmarks; the commits read
  std::map<std::string, CellResult> cells;
  double train_seconds = 0;
  const CellResult& cell(const std::string& name);
};

/// A section of results.md: markdown, the figures drawn after it and markdown after them, the
/// files it links to (path under out_dir, text) and its verdicts ("beat", "match" or "miss", what).
struct Section {
  struct Figure {
    std::string id, script, name;  // drawn to results/<id>.svg; `name` says which was not drawn
  };
  std::string markdown;
  std::vector<Figure> figures;
  std::string closing;
  std::vector<std::pair<std::string, std::string>> files, claims;
};

Section ablation_table(ReportInput& in);  // Table 4, for the tests

}  // namespace symgnn::reproduce
