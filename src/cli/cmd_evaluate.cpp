// `symgnn evaluate`: RMSE, MAE and ranking metrics of a trained model on its test ratings.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "cli/commands.h"
#include "data/time_split.h"
#include "fit/evaluation_json.h"
#include "fit/new_users_protocol.h"
#include "infer/model_parts.h"
#include "infer/unseen_test.h"
#include "runtime/runtime.h"
#include "symgnn/beyond_accuracy.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "symgnn/ranking.h"
#include "symgnn/recommend.h"
#include "train/dataset_stats.h"
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
  std::string protocol = "test";
  fitting::NewUsersProtocol new_users;
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

/// The ranking rows of `e` (one column per ranking row of symgnn/metrics.h), one line per k.
void ranking_table(std::ostream& os, const Evaluation& e) {
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
        std::snprintf(cell, sizeof cell, "  %-9s", fixed4(eval::metric_value(a, m.name)).c_str()), os << cell;
    os << "\n";
  }
}

/// What the lists of `e` show (symgnn/beyond_accuracy.h), one line per k.
void beyond_table(std::ostream& os, const Evaluation& e) {
  if (e.beyond.empty()) return;
  char cell[64];
  os << "   k";
  for (const std::string& name : eval::beyond_accuracy_names())
    std::snprintf(cell, sizeof cell, "  %-14s", name.c_str()), os << cell;
  os << "  (the same lists; diversity by " << e.beyond_basis << ")\n";
  for (const auto& a : e.beyond) {
    std::snprintf(cell, sizeof cell, "%4lld", static_cast<long long>(a.k));
    os << cell;
    for (const std::string& name : eval::beyond_accuracy_names()) {
      const double v = eval::beyond_accuracy_value(a, name);
      std::snprintf(cell, sizeof cell, "  %-14s",
                    (name == "avg_popularity" ? fixed(v, 1) : fixed4(v)).c_str());
      os << cell;
    }
    os << "\n";
  }
}

/// The prediction rows of `e`, ", RMSE 0.9123, MAE 0.7012".
std::string error_cells(const Evaluation& e) {
  std::string out;
  for (const MetricRow& m : kMetrics)
    if (m.needs == MetricNeeds::predictions) {
      const auto it = e.errors.find(m.name);
      out += ", " + std::string(metric_label(m)) + " " +
             fixed4(it == e.errors.end() ? std::nan("") : it->second);
    }
  return out;
}

/// The ranking criterion (ranking_metric(), symgnn/metrics.h) in `a`.
double criterion_in(const eval::RankingAtK& a) {
  return eval::metric_value(a, ranking_metric().name);
}

/// The ranking criterion at the first k asked, or NaN.
double first_criterion(const Evaluation& e) {
  return e.ranking.at_k.empty() ? std::nan("") : criterion_in(e.ranking.at_k.front());
}

/// The held-out users by their degree in the user graph (fit/new_users_by_degree.h), one
/// line per slice and one for them all: how many, the errors, the ranking at the first k
/// (every k goes to --json) and EASE's NDCG beside it, so that the slices read against each
/// other show where the graph helps.
void degree_table(std::ostream& os, const fitting::NewUsersReport& r) {
  if (!r.by_degree_note.empty()) {
    os << "by degree in the user graph: " << r.by_degree_note << "\n";
    return;
  }
  const auto first = [](const Evaluation& e) {
    return e.ranking.at_k.empty() ? nullptr : &e.ranking.at_k.front();
  };
  const eval::RankingAtK* at = first(r.model);
  os << "by the held-out users' degree in the user graph the model reads (their neighbours"
     << (at ? "; ranking at k = " + std::to_string(at->k) : std::string()) << "):\n";
  char cell[64];
  // A column per row of the metrics table: the ranking's as wide as their names, the errors' as a figure.
  const auto put = [&](const MetricRow& m, const std::string& text) {
    std::snprintf(cell, sizeof cell, m.needs == MetricNeeds::ranking ? "  %-9s" : "  %-6s", text.c_str());
    os << cell;
  };
  os << "  degree   users  ranked  scored";
  for (const MetricRow& m : kMetrics) put(m, m.needs == MetricNeeds::ranking ? m.name : metric_label(m));
  os << (r.has_ease ? "  EASE " + std::string(ranking_metric().name) + "\n" : "\n");
  const auto line = [&](const std::string& label, int64_t users, int64_t scored, const Evaluation& e,
                        const Evaluation& ease) {
    const bool has = users > 0;  // an empty slice was not scored
    std::snprintf(
        cell, sizeof cell, "  %-6s  %6lld  %6s  %6lld", label.c_str(), static_cast<long long>(users),
        has ? std::to_string(e.ranking.users_evaluated).c_str() : "-", static_cast<long long>(scored));
    os << cell;
    for (const MetricRow& m : kMetrics) {
      std::string v = "-";
      if (has && m.needs == MetricNeeds::predictions && e.errors.count(m.name))
        v = fixed4(e.errors.at(m.name));
      if (has && m.needs == MetricNeeds::ranking && first(e))
        v = fixed4(eval::metric_value(*first(e), m.name));
      put(m, v);
    }
    if (r.has_ease) os << "  " << (has && first(ease) ? fixed4(criterion_in(*first(ease))) : "-");
    os << "\n";
  };
  for (const fitting::DegreeSlice& d : r.by_degree) line(d.label, d.users, d.scored_ratings, d.model, d.ease);
  line("all", r.held_out, r.scored_ratings, r.model, r.ease);
}

/// The slices of degree_table for --json: "by_degree": {"0": {...}, "1-5": ..., ">5": ...},
/// each with its counts and `given` (and `ease`) in evaluate --json's form, null where empty.
nlohmann::json by_degree_json(const fitting::NewUsersReport& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const fitting::DegreeSlice& d : r.by_degree) {
    nlohmann::json s;
    s["users"] = d.users;
    s["scored_ratings"] = d.scored_ratings;
    s["given"] = d.users > 0 ? fitting::evaluation_json(d.model) : nlohmann::json(nullptr);
    if (r.has_ease) s["ease"] = d.users > 0 ? fitting::evaluation_json(d.ease) : nlohmann::json(nullptr);
    j[d.label] = s;
  }
  return j;
}

/// `evaluate --protocol new-users` (fit/new_users_protocol.h).
int run_new_users(const EvaluateCliOptions& o) {
  fitting::NewUsersProtocol p = o.new_users;
  p.eval.ks = parse_ks(o.ks);
  p.eval.relevant_min = o.relevant_min;
  p.eval.unknown = o.unknown;
  runtime::set_compute_threads(o.threads);
  if (!o.json.empty()) check_output_file(o.json, "--json");
  // The config the directory was trained with, fitted again without the held-out users.
  const TrainedModel model = TrainedModel::load(o.model_dir, o.device);
  RunConfig cfg = model.config();
  cfg.train.device = o.device;
  const fitting::NewUsersReport r =
      fitting::evaluate_new_users(cfg, p, [](const std::string& line) { std::cerr << line << "\n"; });
  const std::string k = p.eval.ks.empty() ? "10" : std::to_string(p.eval.ks.front());
  std::ostringstream os;
  os << "new users: " << r.held_out << " of the " << r.users
     << " users with two or more ratings held out of the fit"
     << " (seed " << p.seed << "); " << fixed(100 * p.fold_in, 0)
     << "% of each one's ratings given after it (" << r.fold_in_ratings << "), the rest scored ("
     << r.scored_ratings << ")\n"
     << model.name() << " fitted without them, given their ratings" << error_cells(r.model) << "\n"
     << "ranking: relevant = scored rating >= " << r.model.relevant_min
     << "; candidates = the items they were not given; means over the " << r.model.ranking.users_evaluated
     << " held-out users with a relevant scored rating\n";
  ranking_table(os, r.model);
  os << "the same fit before any rating of theirs was given: " << metric_label(ranking_metric()) << "@" << k
     << " " << fixed4(first_criterion(r.cold)) << "\n";
  if (r.has_ease) {
    os << "EASE fitted without them, given the same ratings (x B)" << error_cells(r.ease) << ":\n";
    ranking_table(os, r.ease);
    // The kind against EASE at every k, as a ratio of the ranking criterion.
    for (size_t i = 0; i < r.model.ranking.at_k.size() && i < r.ease.ranking.at_k.size(); ++i) {
      const double a = criterion_in(r.model.ranking.at_k[i]);
      const double b = criterion_in(r.ease.ranking.at_k[i]);
      os << metric_label(ranking_metric()) << "@" << r.model.ranking.at_k[i].k << ": " << fixed4(a)
         << " against EASE's " << fixed4(b) << " (" << fixed(a / b, 3) << "x)\n";
    }
  } else if (!r.ease_note.empty()) {
    os << r.ease_note << "\n";
  }
  degree_table(os, r);
  std::cout << os.str();
  if (!o.json.empty()) {
    nlohmann::json j;
    j["protocol"] = "new-users";
    j["model"] = model.name();
    j["dataset"] = model.dataset().name;
    j["hold_out"] = p.hold_out;
    j["fold_in"] = p.fold_in;
    j["seed"] = p.seed;
    j["users"] = r.users;
    j["held_out_users"] = r.held_out;
    j["fold_in_ratings"] = r.fold_in_ratings;
    j["scored_ratings"] = r.scored_ratings;
    j["given"] = fitting::evaluation_json(r.model);
    j["cold"] = fitting::evaluation_json(r.cold);
    j["ease"] = r.has_ease ? fitting::evaluation_json(r.ease) : nlohmann::json(nullptr);
    if (!r.ease_note.empty()) j["ease_note"] = r.ease_note;
    j["by_degree"] = by_degree_json(r);
    if (!r.by_degree_note.empty()) j["by_degree_note"] = r.by_degree_note;
    write_text_atomic(o.json, json_text(j, 2) + "\n", Integrity::none);
  }
  return 0;
}

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
  // Interactions (data/feedback.h): every held-out one is relevant, and no rating is predicted.
  const bool implicit = model.dataset().implicit();
  os << model.name() << " on " << model.dataset().name << ": " << ev.test_ratings
     << (implicit ? " test interactions (data.feedback = " + model.dataset().feedback + ")"
                  : " test ratings" + error_cells(ev));
  // A time-aware split says what its test holds that the training could not know
  // (data/time_split.h): figures read beside a random split's need it.
  if (const std::string split = data::describe(model.dataset().time_split); !split.empty())
    os << "\n" << split;
  os << "\n";
  if (implicit)
    os << "ranking: relevant = every test interaction";
  else
    os << "ranking: relevant = test rating >= " << ev.relevant_min;
  os << "; candidates = all items the user did not rate in training; means over the "
     << ev.ranking.users_evaluated << " users with a relevant test item ("
     << ev.ranking.users_without_relevant << " test users without one skipped)\n"
     << (model.ranks_by_rating() ? "(ranked by predicted rating: the model was not trained for ranking)\n"
                                 : "")
     << (model.ranker().empty()
             ? ""
             : "(ranked by the " + model.ranker() + " ranker fitted beside the model, train.ranker" +
                   (implicit ? ")\n" : "; the rating errors are the model's)\n"));
  {
    // The test users listed by infer/cold_lists.h: without ratings, no row to a ranker.
    std::vector<int64_t> test_users(model.dataset().test.user.begin(), model.dataset().test.user.end());
    std::sort(test_users.begin(), test_users.end());
    test_users.erase(std::unique(test_users.begin(), test_users.end()), test_users.end());
    const auto cold = std::count_if(test_users.begin(), test_users.end(), [&](int64_t u) {
      return u >= 0 && u < model.users() && model.cold_listed(u);
    });
    if (cold > 0)
      os << "(" << cold
         << " test user(s) without training ratings ranked by what the people linked to them rated, or by "
            "popularity: train.cold_lists, infer/cold_lists.h)\n";
  }
  const auto table = [&](const Evaluation& e) {
    ranking_table(os, e);
    beyond_table(os, e);
  };
  table(ev);
  if (const std::string line = infer::describe(ev.unseen); !line.empty()) os << line << "\n";
  // The bias baseline beside the RMSE (models/baseline/baseline_figures.h), on the same data.
  const RunConfig& cfg = model.config();
  std::optional<models::BaselineFigures> baseline;
  if (models::shows_bias_baseline(cfg)) {
    // The shrinkage the load chose on the model's ratings, where its offset needed one.
    baseline =
        models::baseline_figures(model.dataset(), cfg.baseline, model.parts().ctx.bias_shrinkage.get());
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
    if (!model.dataset().time_split.split.empty())
      j["time_split"] = train::time_split_json(model.dataset().time_split);
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
      "distinct recommended items / items.\n"
      "  symgnn evaluate --model runs/ml100k --protocol new-users --hold-out 0.1 --fold-in 0.8\n"
      "fits the model's config again without 10% of the users, gives it 80% of each one's ratings\n"
      "after the fit (as --new-ratings does) and scores their lists on the rest, beside EASE given the\n"
      "same ratings.");
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
  cmd->add_option(
         "--protocol", o->protocol,
         "test (default): the model as trained, on its test ratings; new-users: hold users out of "
         "the fit, give the model part of their ratings after it and score the rest, beside EASE "
         "given the same ratings, and by the users' degree in the user graph (fits the model's config "
         "again, and EASE; docs/recommend.md)")
      ->check(CLI::IsMember({"test", "new-users"}));
  cmd->add_option("--hold-out", o->new_users.hold_out,
                  "new-users: fraction of the users (with two or more ratings) held out (default 0.1)")
      ->check(CLI::Range(1e-9, 1.0 - 1e-9));
  cmd->add_option("--fold-in", o->new_users.fold_in,
                  "new-users: fraction of each held-out user's ratings given after the fit (default 0.8)")
      ->check(CLI::Range(1e-9, 1.0 - 1e-9));
  cmd->add_option("--seed", o->new_users.seed,
                  "new-users: the seed of the users held out and of their split (default 1)");
  cmd->callback([o] {
    with_memory_context("evaluating",
                        [&] { o->protocol == "new-users" ? run_new_users(*o) : run_evaluate(*o); });
  });
}

}  // namespace symgnn::cli
