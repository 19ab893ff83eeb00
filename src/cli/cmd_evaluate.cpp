// `symgnn evaluate`: RMSE, MAE and ranking metrics of a trained model on its test ratings.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "fit/evaluation_json.h"
#include "infer/unseen_test.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "symgnn/ranking.h"
#include "symgnn/recommend.h"
#include "util/atomic_file.h"
#include "util/json_text.h"
#include "util/memory_check.h"
#include "util/output_lock.h"
#include "util/stats.h"
#include "util/strings.h"
#include "util/text.h"

namespace symgnn::cli {
namespace {

struct EvaluateCliOptions {
  std::string model_dir;
  std::string ks = "5,10,20";
  double relevant_min = std::numeric_limits<double>::quiet_NaN();
  std::string json;
  std::string unknown;
  int64_t threads = -1;
  std::string device = "cpu";
};

std::vector<int64_t> parse_ks(const std::string& text) {
  std::vector<int64_t> ks;
  for (const std::string& f : split(text, ',')) {
    const std::string t = trim(f);
    char* end = nullptr;
    const long long k = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || k < 1)
      throw ConfigError("--k '" + text + "': expected positive integers separated by commas, e.g. 5,10,20");
    ks.push_back(k);
  }
  return ks;
}

std::string fixed4(double v) {
  return fixed(v, 4);
}

}  // namespace

namespace {

int run_evaluate(const EvaluateCliOptions& o) {
  EvaluateOptions eo;
  eo.ks = parse_ks(o.ks);
  eo.relevant_min = o.relevant_min;
  eo.unknown = o.unknown;
  runtime::set_compute_threads(o.threads);
  if (!o.json.empty()) check_output_file(o.json, "--json");
  const TrainedModel model = TrainedModel::load(o.model_dir, o.device);
  if (!model.data_note().empty()) std::cerr << model.data_note() << "\n";
  const Evaluation ev = evaluate(model, eo);

  std::ostringstream os;
  os << model.name() << " on " << model.dataset().name << ": " << ev.test_ratings << " test ratings";
  for (const MetricRow& m : kMetrics)
    if (m.needs == MetricNeeds::predictions) {
      const auto it = ev.errors.find(m.name);
      os << ", " << metric_label(m) << " " << fixed4(it == ev.errors.end() ? std::nan("") : it->second);
    }
  os << "\n"
     << "ranking: relevant = test rating >= " << ev.relevant_min
     << "; candidates = all items the user did not rate in training; means over the "
     << ev.ranking.users_evaluated << " users with a relevant test item ("
     << ev.ranking.users_without_relevant << " test users without one skipped)\n"
     << (model.ranks_by_rating() ? "(ranked by predicted rating: the model was not trained for ranking)\n"
                                 : "")
     << (model.ranker().empty()
             ? ""
             : "(ranked by the " + model.ranker() +
                   " ranker fitted beside the model, train.ranker; the rating errors are the "
                   "model's)\n");
  const auto table = [&](const Evaluation& e) {
    // One column per ranking row of symgnn/metrics.h.
    char cell[64];
    os << "   k";
    for (const MetricRow& m : kMetrics)
      if (m.needs == MetricNeeds::ranking) std::snprintf(cell, sizeof cell, "  %-9s", m.name), os << cell;
    os << "\n";
    for (const auto& a : e.ranking.at_k) {
      std::snprintf(cell, sizeof cell, "%4lld", static_cast<long long>(a.k));
      os << cell;
      for (const MetricRow& m : kMetrics)
        if (m.needs == MetricNeeds::ranking)
          std::snprintf(cell, sizeof cell, "  %-9s", fixed4(eval::metric_value(a, m.name)).c_str()),
              os << cell;
      os << "\n";
    }
  };
  table(ev);
  if (const std::string line = infer::describe(ev.unseen); !line.empty()) os << line << "\n";
  // The bias baseline beside the RMSE (models/baseline/baseline_figures.h), on the same data.
  const RunConfig& cfg = model.config();
  std::optional<models::BaselineFigures> baseline;
  if (models::shows_bias_baseline(cfg)) {
    baseline = models::baseline_figures(model.dataset(), cfg.baseline);
    os << models::describe(*baseline) << "\n";
  }
  // The baseline every ranking figure is read against (docs/recommend.md), under the same rules.
  const Evaluation popularity = evaluate_popularity(model, eo);
  os << "popularity baseline (the items with the most training ratings), same users and candidates:\n";
  table(popularity);
  std::cout << os.str();
  if (!o.json.empty()) {
    nlohmann::json j = fitting::evaluation_json(ev);
    j["model"] = model.name();
    j["dataset"] = model.dataset().name;
    j["ranks_by_rating"] = model.ranks_by_rating();
    j["ranker"] = model.ranker().empty() ? nlohmann::json(nullptr) : nlohmann::json(model.ranker());
    j["popularity"] = fitting::evaluation_json(popularity);
    if (baseline) j["baseline"] = fitting::baseline_json(*baseline);
    write_text_atomic(o.json, json_text(j, 2) + "\n", Integrity::none);
  }
  return 0;
}

}  // namespace

void add_evaluate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "evaluate",
      "RMSE, MAE and ranking metrics of a trained model on its dataset's test ratings\n"
      "  symgnn evaluate --model runs/ml100k --k 5,10,20 --json eval.json\n"
      "Ranking (docs/recommend.md): relevant = test rating >= R (default 4 on 1..5 scales, else the\n"
      "top fifth of the range); candidates = all items the user did not rate in training; precision,\n"
      "recall, NDCG, MAP and hit rate at k averaged over users with a relevant test item; coverage =\n"
      "distinct recommended items / items.");
  auto o = std::make_shared<EvaluateCliOptions>();
  cmd->add_option("--model", o->model_dir, "directory written by `symgnn train --out` (or its model.pt)")
      ->required();
  cmd->add_option("--k", o->ks, "cut-offs, comma-separated (default 5,10,20)");
  cmd->add_option("--relevant-min", o->relevant_min, "a test rating >= R is relevant (default: see above)")
      ->check(finite_number());
  cmd->add_option("--json", o->json, "also write the figures as JSON to this file");
  cmd->add_option(
         "--unknown", o->unknown,
         "test ratings naming an id that is no node of the model, scored apart: known-mean, item-mean, "
         "user-mean, global-mean (default: the model's data.unknown_test)")
      ->check(CLI::IsMember({"known-mean", "item-mean", "user-mean", "global-mean"}));
  cmd->add_option("--threads", o->threads, "threads (default: one per core)")
      ->check(config_value_check("train.threads"));
  cmd->add_option("--device", o->device, "cpu (default), cuda or cuda:N");
  cmd->callback([o] { with_memory_context("evaluating", [&] { run_evaluate(*o); }); });
}

}  // namespace symgnn::cli
