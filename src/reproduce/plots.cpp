#include "reproduce/plots.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "util/atomic_file.h"

namespace fs = std::filesystem;

namespace symgnn::reproduce {
namespace {

// gnuplot strings are single-quoted: a quote inside is written twice.
std::string q(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string header(const std::string& svg, int width, int height) {
  std::ostringstream os;
  os << "# Written by symgnn reproduce; run `gnuplot <this file>` to redraw.\n"
     << "set terminal svg size " << width << "," << height
     << " dynamic enhanced font 'sans,11' background rgb 'white'\n"
     << "set output " << q(svg + ".tmp") << "\n"
     << "set datafile separator ','\n"
     << "set grid lc rgb '#dddddd'\n";
  return os.str();
}

}  // namespace

static std::string reference_lines(double paper_lowrank, double paper_base) {
  std::ostringstream os;
  os << ", \\\n     " << paper_lowrank
     << " with lines lw 1 dt 3 lc rgb '#1f77b4' title 'low-rank, paper Table 3', \\\n     " << paper_base
     << " with lines lw 1 dt 3 lc rgb '#d62728' title 'base, paper Table 3'";
  return os.str();
}

std::string figure2_script(const std::string& dat, const std::string& svg, double paper_lowrank,
                           double paper_base) {
  std::ostringstream os;
  os << header(svg, 640, 420) << "set datafile separator whitespace\n"
     << "set title 'RMSE vs number of CGE layers (ML-100K u1, mean +- std over seeds)'\n"
     << "set xlabel 'CGE layers L (low-rank) / hops (base)'\nset ylabel 'test RMSE'\n"
     << "set xtics 1\nset xrange [0.7:4.3]\nset key top right\n"
     << "plot " << q(dat)
     << " index 0 using 1:2:3 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'SyMGNN low-rank', \\\n     "
     << q(dat) << " index 1 using 1:2:3 with yerrorlines lw 2 pt 5 lc rgb '#d62728' title 'SyMGNN base'"
     << reference_lines(paper_lowrank, paper_base) << "\n";
  return os.str();
}

std::string figure3_script(const std::string& dat, const std::string& svg, double paper_lowrank,
                           double paper_base) {
  std::ostringstream os;
  os << header(svg, 680, 460) << "set datafile separator whitespace\n"
     << "set title 'RMSE vs k of the k-NN graphs (ML-100K u1, mean +- std over seeds)'\n"
     << "set xlabel 'k'\nset ylabel 'test RMSE'\nset xtics 5\nset xrange [3:22]\nset key below maxrows 3\n";
  const char* titles[] = {"low-rank", "low-rank w/o attention (G)", "base", "base w/o attention (G)"};
  const char* colors[] = {"#1f77b4", "#1f77b4", "#d62728", "#d62728"};
  os << "plot ";
  for (int i = 0; i < 4; ++i)
    os << (i ? ", \\\n     " : "") << q(dat) << " index " << i << " using 1:2:3 with yerrorlines lw 2 dt "
       << (i % 2 ? 2 : 1) << " pt " << (i < 2 ? 7 : 5) << " lc rgb '" << colors[i] << "' title '" << titles[i]
       << "'";
  os << reference_lines(paper_lowrank, paper_base) << "\n";
  return os.str();
}

std::string curves_script(const std::vector<CurvePanel>& panels, const std::string& svg,
                          const std::string& title) {
  const int cols = panels.size() <= 2 ? static_cast<int>(panels.size()) : panels.size() <= 6 ? 3 : 4;
  const int rows = static_cast<int>((panels.size() + cols - 1) / cols);
  std::ostringstream os;
  os << header(svg, 330 * cols, 260 * rows + 40) << "set multiplot layout " << rows << "," << cols
     << " title " << q(title) << "\nset key off\nset xlabel 'epoch'\nset ylabel 'RMSE'\n";
  for (const auto& p : panels) {
    os << "set title " << q(p.title) << "\n";
    if (p.history_csvs.empty()) {
      os << "set label 1 'no history' at graph 0.5,0.5 center\nplot NaN notitle\nunset label 1\n";
      continue;
    }
    os << "plot ";
    for (size_t i = 0; i < p.history_csvs.size(); ++i)
      os << (i ? ", " : "") << q(p.history_csvs[i]) << " using 'epoch':'val_rmse' with lines lw 1.5 lc "
         << i + 1;
    os << ", " << q(p.history_csvs.front()) << " using 'epoch':'train_rmse' with lines dt 2 lc rgb 'black'\n";
  }
  os << "unset multiplot\n";
  return os.str();
}

bool render(const std::string& gnuplot, const std::string& script_path, const std::string& svg,
            const std::string& script, std::string* why) {
  write_text_atomic(script_path, script, Integrity::none);
  // The script writes <svg>.tmp; rename it over the SVG only when gnuplot succeeded.
  const std::string log = script_path + ".log";
  const std::string cmd = gnuplot + " '" + script_path + "' > '" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  if (rc != 0 || !fs::exists(svg + ".tmp")) {
    if (why)
      *why = gnuplot + " failed on " + script_path + " (exit " + std::to_string(rc) + "; see " + log + ")";
    fs::remove(svg + ".tmp");
    return false;
  }
  fs::rename(svg + ".tmp", svg);
  fs::remove(log);
  return true;
}

}  // namespace symgnn::reproduce
