#include "tune/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "util/atomic_file.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::tune {
namespace {

bool finished(const Trial& t) {
  return t.status != "failed" && std::isfinite(t.score);
}

/// RFC 4180 quoting, for choice values such as sylvester.alphas that hold commas.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string num(double v, int digits) {
  return std::isfinite(v) ? fixed(v, digits) : "";
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

/// The trials in rank order: finished ones by their loss (the score, negated where higher is
/// better; lower first), then failed ones.
std::vector<const Trial*> ranked(const std::vector<Trial>& trials) {
  std::vector<const Trial*> r;
  for (const auto& t : trials) r.push_back(&t);
  std::stable_sort(r.begin(), r.end(), [](const Trial* a, const Trial* b) {
    if (finished(*a) != finished(*b)) return finished(*a);
    if (finished(*a) && a->loss != b->loss) return a->loss < b->loss;
    return a->number < b->number;
  });
  return r;
}

std::string values_line(const Values& v) {
  std::string s;
  for (const auto& [k, x] : v) s += (s.empty() ? "" : ", ") + k + " = " + x;
  return s;
}

}  // namespace

int best_trial(const std::vector<Trial>& trials) {
  int best = -1;
  for (size_t i = 0; i < trials.size(); ++i) {
    const Trial& t = trials[i];
    if (!finished(t)) continue;
    if (best < 0 || t.loss < trials[best].loss ||
        (t.loss == trials[best].loss && t.number < trials[best].number))
      best = static_cast<int>(i);
  }
  return best;
}

std::string trials_csv(const Space& space, const std::vector<Trial>& trials, const std::string& metric) {
  std::ostringstream os;
  os << "trial,status," << metric << "," << metric << "_std,best_epoch,seconds";
  for (const auto& p : space.params) os << "," << csv_field(p.key);
  os << "\n";
  for (const auto& t : trials) {
    os << t.number << "," << t.status << "," << num(t.score, 6) << "," << num(t.score_std, 6) << ","
       << num(t.best_epoch, 1) << "," << num(t.seconds, 1);
    for (const auto& kv : t.values) os << "," << csv_field(kv.second);
    os << "\n";
  }
  return os.str();
}

std::string summary_markdown(const Space& space, const std::vector<Trial>& trials, const SearchOptions& o) {
  std::ostringstream os;
  int failed = 0;
  for (const auto& t : trials) failed += !finished(t);
  os << "# symgnn tune: " << trials.size() << " trial(s)";
  if (failed) os << ", " << failed << " failed";
  os << "\n\n";
  if (!o.command.empty()) os << "Command: `" << o.command << "`\n\n";
  os << "Base config `" << o.config_file << "`, data `" << o.data << "`, seed " << o.seed
     << ". Trials are judged on their **validation** RMSE only; the test split is left for the final "
        "evaluation of `best.conf` (docs/tuning.md).\n\n";
  os << "Search space (`" << space.file << "`):\n\n| key | values |\n|---|---|\n";
  for (const auto& p : space.params) os << "| `" << p.key << "` | " << md_cell(describe(p)) << " |\n";
  const int b = best_trial(trials);
  if (b >= 0)
    os << "\nBest: trial " << trials[b].name << ", " << o.metric << " " << fixed(trials[b].score, 4) << " ("
       << values_line(trials[b].values) << "); `best.conf` reproduces it.\n";
  os << "\n| rank | trial | " << o.metric << " | ± (seeds) | best epoch | time |";
  for (const auto& p : space.params) os << " `" << p.key << "` |";
  os << "\n|---|---|---|---|---|---|";
  for (size_t i = 0; i < space.params.size(); ++i) os << "---|";
  os << "\n";
  int rank = 0;
  for (const Trial* t : ranked(trials)) {
    os << "| " << (finished(*t) ? std::to_string(++rank) : "-") << " | " << t->name << " | "
       << (finished(*t) ? fixed(t->score, 4) : "failed") << " | "
       << (t->score_std > 0 ? fixed(t->score_std, 4) : "") << " | " << num(t->best_epoch, 1) << " | "
       << (std::isfinite(t->seconds) ? duration(t->seconds) : "") << " |";
    for (const auto& kv : t->values) os << " " << md_cell(kv.second) << " |";
    os << "\n";
  }
  for (const Trial* t : ranked(trials)) {
    if (finished(*t)) continue;
    os << "\nTrial " << t->name << " failed: " << t->error << " (`trials/" << t->name << "/log.txt`)\n";
    if (!t->log_tail.empty()) {
      os << "\n```\n";
      for (const auto& l : t->log_tail) os << l << "\n";
      os << "```\n";
    }
  }
  return os.str();
}

std::string best_conf(RunConfig best_config, const Trial& best, const std::vector<Trial>& trials,
                      const SearchOptions& o) {
  int n = 0;
  for (const auto& t : trials) n += finished(t);
  std::ostringstream os;
  os << "# best.conf: the best of " << n << " finished trial(s) of `symgnn tune` in " << o.out_dir
     << " (docs/tuning.md)\n"
     << "# trial " << best.name << ": " << o.metric << " " << fixed(best.score, 6);
  if (best.score_std > 0) os << " +- " << fixed(best.score_std, 6);
  os << "\n# searched: " << values_line(best.values) << "\n"
     << "# use: symgnn train --config " << o.out_dir << "/best.conf\n\n"
     << to_text(best_config);
  return os.str();
}

void write_outputs(const Space& space, const std::vector<Trial>& trials, const SearchOptions& o,
                   const RunConfig& base) {
  write_text_atomic(o.out_dir + "/trials.csv", trials_csv(space, trials, o.metric));
  write_text_atomic(o.out_dir + "/summary.md", summary_markdown(space, trials, o));
  const int b = best_trial(trials);
  if (b < 0) return;
  const Trial& best = trials[b];
  RunConfig cfg = base;
  const std::string recorded = o.out_dir + "/trials/" + best.name + "/config.txt";
  if (fs::exists(recorded)) {
    // What train ran, exactly (it writes its whole config there).
    cfg = RunConfig{};
    load_config_file(cfg, recorded);
  } else {  // the Sylvester baseline writes no --out folder: rebuild it
    for (const auto& [k, v] : best.values) set_config_value(cfg, k, v, "best trial " + best.name);
    if (o.runs > 0) cfg.train.runs = o.runs;
  }
  cfg.train.threads = base.train.threads;  // tune's --threads is a runtime choice, not a result
  write_text_atomic(o.out_dir + "/best.conf", best_conf(cfg, best, trials, o));
}

}  // namespace symgnn::tune
