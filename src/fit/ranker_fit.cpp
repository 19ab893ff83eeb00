// The ranker beside a model, fitted (ranker_fit.h).
#include "fit/ranker_fit.h"

#include <ATen/Parallel.h>

#include <chrono>
#include <filesystem>

#include "fit/fit_closed_form.h"
#include "fit/ranker.h"
#include "fit/ranker_graph_choice.h"
#include "fit/ranker_network_choice.h"
#include "fit/ranker_on_training.h"
#include "fit/ranker_quality_choice.h"
#include "infer/model_parts.h"
#include "symgnn/model.h"
#include "util/atomic_file.h"
#include "util/memory_check.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::fitting {

RankerFit fit_ranker(RunConfig& cfg, const GraphConfig& given, const Dataset& ds, const FitOptions& o) {
  RankerFit out;
  nlohmann::json& record = out.record;
  std::vector<std::string>& summary = out.summary;
  const fitting::RankerChoice choice = fitting::choose_ranker(cfg, ds.users.count, ds.items.count);
  if (!choice.note.empty()) say(o, "note: " + choice.note);
  if (choice.candidates.empty()) return out;
  const bool choose = choice.candidates.size() > 1;
  // train.ranker = auto within its budget (fit/ranker.h): what is left when a candidate
  // would start, against what it is expected to take.
  const auto t0 = std::chrono::steady_clock::now();
  const double budget = ranker_budget_seconds(cfg, static_cast<int64_t>(ds.train.size()));
  const int threads = at::get_num_threads();
  std::vector<std::string> over;
  // Each candidate's validation ranking figure (ranking_metric(), -1 without one), and the best so far: its
  // fit (model and figures) and directory. A candidate that does not beat the best is dropped at once, so
  // that one fitted ranker at a time stays in memory beside the one fitting.
  std::vector<std::pair<std::string, double>> tried;
  Fitted won;
  std::string won_kind, won_dir;
  double won_ndcg = -1;
  for (const std::string& kind : choice.candidates) {
    if (choose) {
      const double left =
          budget - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double expected = estimated_seconds(kind, cfg, ds.users.count, ds.items.count, threads);
      if (expected > 0 && expected > left) {
        const std::string line =
            "train.ranker = auto: no " + kind + " ranker candidate: its fit is expected to take " +
            fixed(expected, 0) + " s on " + std::to_string(threads) + " thread(s), past the " +
            fixed(std::max(0.0, left), 0) + " s left of train.ranker_budget (" + fixed(budget, 0) + " s)";
        say(o, "note: " + line);
        over.push_back(line);
        continue;
      }
    }
    RunConfig rcfg = cfg;
    rcfg.model = kind;
    rcfg.train.ranker = "none";
    FitOptions ro;
    ro.log = o.log;
    if (!o.out_dir.empty()) {
      ro.out_dir = infer::ranker_dir(o.out_dir) + (choose ? "." + kind : "");
      fs::remove_all(ro.out_dir);
      fs::create_directories(ro.out_dir);
      write_text_atomic(ro.out_dir + "/config.txt", to_text(rcfg));
    }
    say(o, "fitting the " + kind + " ranker" + (choose ? " candidate" : "") +
               " that recommend and evaluate rank by (train.ranker = " + cfg.train.ranker + ")");
    // A candidate's test lists are measured once it is kept (below): ranking every test user
    // over the catalogue is most of a candidate's fit on a wide one, and is no part of the choice.
    Fitted f = with_memory_context("fitting the " + kind + " ranker",
                                   [&] { return fit_closed_form(rcfg, ds, nullptr, ro, nullptr, !choose); });
    if (!ro.out_dir.empty()) f.result.metrics.write(ro.out_dir + "/metrics.json");
    const double ndcg = f.result.metrics.metrics.count(ranking_figure("val"))
                            ? f.result.metrics.mean(ranking_figure("val"))
                            : -1.0;
    // The best on validation; ties (and no validation) keep the first, in the order of
    // fit/ranker.h's candidates.
    const bool best = tried.empty() || ndcg > won_ndcg;
    tried.emplace_back(kind, ndcg);
    if (!best) {
      if (choose && !ro.out_dir.empty()) fs::remove_all(ro.out_dir);
      continue;
    }
    if (choose && !won_dir.empty()) fs::remove_all(won_dir);
    won = std::move(f);
    won_ndcg = ndcg;
    won_kind = kind;
    won_dir = ro.out_dir;
  }
  if (choose && !o.out_dir.empty()) {
    const std::string dir = infer::ranker_dir(o.out_dir);
    fs::remove_all(dir);
    fs::rename(won_dir, dir);
  }
  if (choose && won.result.model) {
    FitOptions wo;
    wo.log = o.log;
    if (!o.out_dir.empty()) wo.out_dir = infer::ranker_dir(o.out_dir);
    add_test_lists(won, ds, wo);
    if (!wo.out_dir.empty()) won.result.metrics.write(wo.out_dir + "/metrics.json");
  }
  const RunMetrics& m = won.result.metrics;
  record = {{"kind", won_kind}, {"dir", "ranker"}, {"figures", m.figures}};
  for (const std::string& name : {ranking_figure("val"), ranking_figure("test")})
    if (m.metrics.count(name)) record[name] = m.mean(name);
  if (choose) {
    nlohmann::json by_kind = nlohmann::json::object();
    std::string line = "train.ranker = auto: validation " + ranking_label();
    for (const auto& [kind, ndcg] : tried) {
      by_kind[kind] = ndcg;
      line += " " + kind + " " + fixed(ndcg, 4) + (kind == won_kind ? " (chosen)" : "") + ",";
    }
    line.pop_back();
    record["candidates_" + ranking_figure("val")] = by_kind;
    record["budget_seconds"] = budget;
    if (!over.empty()) record["over_budget"] = over;
    summary.push_back(line);
  }
  for (const std::string& line : over) summary.push_back(line);
  for (const std::string& line : won.result.summary) summary.push_back("ranker: " + line);
  // The user graph's term on the kept ranker's lists (train.ranker_graph = auto).
  if (won.result.model) {
    RunConfig rcfg = cfg;
    rcfg.model = won_kind;
    rcfg.train.ranker = "none";
    const TrainedModel& final_ranker = *won.result.model;
    const auto test_rows = [&](const std::vector<int64_t>& users) {
      return final_ranker.score_all_items(users);
    };
    // Both choices judge the kept kind refit on the training ratings alone: fitted once.
    std::shared_ptr<models::RatingModel> on_training;
    const RankerGraphChoice g = with_memory_context("choosing the user graph's term on the lists", [&] {
      return choose_ranker_graph(
          cfg, ds, rcfg, m.figures, won.training_state, test_rows,
          [&](const std::string& line) { say(o, line); }, &on_training);
    });
    if (!g.chosen.empty()) {
      record["graph"] = ranker_graph_choice_json(g);
      summary.push_back(describe(g));
    }
    // The items' ratings on the lists (train.ranker_quality = auto), after the graph's term.
    const RankerQualityChoice q = with_memory_context("choosing the items' ratings on the lists", [&] {
      return choose_ranker_quality(
          cfg, ds,
          [&](const std::vector<int64_t>& users) {
            if (!on_training) on_training = ranker_on_training(rcfg, ds, m.figures, won.training_state);
            return ranker_rows(*on_training, users, ds.items.count, rcfg.train.device);
          },
          test_rows);
    });
    if (!q.chosen.empty()) {
      record["quality"] = ranker_quality_choice_json(q);
      summary.push_back(describe(q));
    }
    // The network trained for ranking on the lists (train.ranker_network = auto), last.
    const double left = budget - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const RankerNetworkChoice n =
        with_memory_context("choosing the network trained for ranking on the lists", [&] {
          return choose_ranker_network(
              cfg, given, ds, o, left, threads,
              [&](const std::vector<int64_t>& users) {
                if (!on_training) on_training = ranker_on_training(rcfg, ds, m.figures, won.training_state);
                return ranker_rows(*on_training, users, ds.items.count, rcfg.train.device);
              },
              test_rows);
        });
    if (!n.chosen.empty()) {
      record["network"] = ranker_network_choice_json(n);
      summary.push_back(describe(n));
    }
    out.member =
        std::make_shared<const infer::RankerMember>(won.result.model, std::vector<int64_t>{}, n.network);
  }
  out.model = won.result.model;
  return out;
}

}  // namespace symgnn::fitting
