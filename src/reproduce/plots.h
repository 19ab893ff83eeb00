// The figures of the report, drawn by gnuplot from the CSV files the report writes:
// each plot is a gnuplot script next to its SVG, so anyone can restyle and redraw it.
#pragma once

#include <string>
#include <vector>

#include "reproduce/results.h"

namespace symgnn::reproduce {

/// One panel of a training-curve figure: a cell's per-seed histories.
struct CurvePanel {
  std::string title;
  std::vector<std::string> history_csvs;
};

/// Both figures draw the paper's Table 3 numbers of the two models as dotted lines.
/// Figure 2 from a gnuplot data file of two blocks (low-rank, base; separated by two
/// blank lines) with rows "layers mean std".
std::string figure2_script(const std::string& dat, const std::string& svg, double paper_lowrank,
                           double paper_base);

/// Figure 3 from four blocks (low-rank, low-rank without attention, base, base without
/// attention) with rows "k mean std"; dashed lines are the models without attention, as
/// in the paper.
std::string figure3_script(const std::string& dat, const std::string& svg, double paper_lowrank,
                           double paper_base);

/// Validation RMSE per epoch, one line per seed, one panel per cell (multiplot).
std::string curves_script(const std::vector<CurvePanel>& panels, const std::string& svg,
                          const std::string& title);

/// Writes `script` (made for `svg` by the functions above) to script_path and runs
/// gnuplot on it; false (with the reason in *why) when gnuplot is missing or fails. The
/// SVG appears only complete (gnuplot writes <svg>.tmp, renamed on success).
bool render(const std::string& gnuplot, const std::string& script_path, const std::string& svg,
            const std::string& script, std::string* why);

}  // namespace symgnn::reproduce
