#include "fit/evaluation_json.h"

#include "symgnn/beyond_accuracy.h"
#include "symgnn/metrics.h"
#include "symgnn/ranking.h"
#include "util/stats.h"

namespace symgnn::fitting {

nlohmann::json evaluation_json(const Evaluation& ev) {
  nlohmann::json j;
  j["test_ratings"] = ev.test_ratings;
  for (const auto& [name, value] : ev.errors) j[name] = value;
  nlohmann::json r;
  r["relevant_min"] = ev.relevant_min;
  r["users_evaluated"] = ev.ranking.users_evaluated;
  r["users_without_relevant"] = ev.ranking.users_without_relevant;
  r["candidates"] = "all items the user did not rate in training";
  for (const auto& a : ev.ranking.at_k)
    for (const MetricRow& m : kMetrics)
      if (m.needs == MetricNeeds::ranking) r[metric_figure("", m, a.k)] = eval::metric_value(a, m.name);
  j["ranking"] = r;
  // What the lists show (symgnn/beyond_accuracy.h): "<figure>@<k>", beside the ranking's.
  if (!ev.beyond.empty()) {
    nlohmann::json b;
    b["diversity_by"] = ev.beyond_basis;
    for (const auto& a : ev.beyond)
      for (const std::string& name : eval::beyond_accuracy_names())
        b[name + "@" + std::to_string(a.k)] = eval::beyond_accuracy_value(a, name);
    j["beyond_accuracy"] = b;
  }
  if (ev.unseen.cold > 0 || ev.unseen.unknown > 0) j["unseen"] = unseen_json(ev.unseen);
  return j;
}

nlohmann::json unseen_json(const UnseenTestReport& u) {
  // NaN is no JSON number: a part without ratings is left out.
  nlohmann::json j;
  j["test_ratings"] = u.test;
  j["cold_ratings"] = u.cold;
  j["unknown_ratings"] = u.unknown;
  if (u.unknown > 0) {
    j["unknown_users"] = u.unknown_users;
    j["unknown_items"] = u.unknown_items;
    j["fallback"] = u.fallback;
  }
  for (const auto& [name, value] : u.errors) j[name] = value;
  return j;
}

nlohmann::json baseline_json(const models::BaselineFigures& b) {
  nlohmann::json j = {
      {"user_shrinkage", b.user_shrinkage}, {"item_shrinkage", b.item_shrinkage}, {"chosen_by", b.chosen_by}};
  for (const auto& [name, value] : b.test) j[name] = value;
  return j;
}

nlohmann::json ranking_summary(const std::vector<Evaluation>& runs, const Evaluation& popularity) {
  nlohmann::json j;
  if (runs.empty() || runs[0].ranking.at_k.empty()) return j;
  j["k"] = runs[0].ranking.at_k[0].k;
  j["relevant_min"] = runs[0].relevant_min;
  j["users_evaluated"] = runs[0].ranking.users_evaluated;
  j["runs"] = runs.size();
  nlohmann::json pop;
  for (const MetricRow& row : kMetrics) {
    if (row.needs != MetricNeeds::ranking) continue;
    const std::string name = row.name;
    std::vector<double> values;
    for (const auto& r : runs) values.push_back(eval::metric_value(r.ranking.at_k[0], name));
    const MeanStd m = mean_std(values);
    j[name] = m.mean;
    j[name + "_std"] = m.std;
    if (!popularity.ranking.at_k.empty()) pop[name] = eval::metric_value(popularity.ranking.at_k[0], name);
  }
  if (!pop.empty()) j["popularity"] = pop;
  return j;
}

}  // namespace symgnn::fitting
