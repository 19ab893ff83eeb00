// symgnn: the one table of metrics.
//
// Every figure symgnn measures on held-out ratings is one row of SYMGNN_METRICS: its name,
// whether larger is better, what it needs (the predicted ratings of the held-out pairs, or
// a ranking of the catalogue cut at k), the function that computes it, and a doc line. A
// measured figure is named "<split>_<metric>" for predictions ("val_rmse") and
// "<split>_<metric>@<k>" for rankings ("val_ndcg@10"); the split is train, val or test. The
// table drives the choices of train.select (config.h) and `tune --metric`, the trainer's epoch
// metrics and history columns (train/epoch_metrics.h), the direction early stopping, tune and
// blends read (higher_is_better), `evaluate`'s columns and metrics.json's keys
// (fit/evaluation_json.cpp). src/eval/metric_functions.cpp expands the rows into the table of
// functions, so a row's function must be defined there: an eval::ErrorFunction for a row of
// predictions, a function of one user's top k (eval::TopK) for a ranking row (of every list
// together, eval::CatalogueAtK, for coverage). Adding a metric: one row here and its function
// there (docs/architecture.md, "Adding a metric").
//
// Torch-free: the config reader, tune and the fuzzers include it.
#pragma once

#include <string>
#include <vector>

#include "symgnn/table_rows.h"

#define SYMGNN_METRICS(X)                                                                                  \
  X(rmse, lower, predictions, root_mean_squared,                                                           \
    "root mean squared error of the predicted ratings, clipped to the "                                    \
    "rating range")                                                                                        \
  X(mae, lower, predictions, mean_absolute, "mean absolute error of the clipped predicted ratings")        \
  X(precision, higher, ranking, precision_of, "relevant items among the top k, over k")                    \
  X(recall, higher, ranking, recall_of,                                                                    \
    "relevant items among the top k, over min(k, the user's relevant items)")                              \
  X(ndcg, higher, ranking, ndcg_of, "discounted gain of the top k's relevant items over the ideal list's") \
  X(map, higher, ranking, map_of, "mean of the precisions at the ranks of the top k's relevant items")     \
  X(hit_rate, higher, ranking, hit_rate_of, "whether the top k holds a relevant item")                     \
  X(coverage, higher, ranking, coverage_of,                                                                \
    "distinct items recommended over the catalogue (of every user's top k)")

namespace symgnn {

enum class MetricDirection { lower, higher };
enum class MetricNeeds { predictions, ranking };

struct MetricRow {
  const char* name;
  MetricDirection direction;
  MetricNeeds needs;
  const char* doc;
};

inline constexpr MetricRow kMetrics[] = {
#define SYMGNN_METRIC_ROW(name, direction, needs, function, doc) \
  MetricRow{#name, MetricDirection::direction, MetricNeeds::needs, doc},
    SYMGNN_METRICS(SYMGNN_METRIC_ROW)
#undef SYMGNN_METRIC_ROW
};

/// How many rows the table has.
inline constexpr size_t kMetricCount = sizeof(kMetrics) / sizeof(kMetrics[0]);

/// The cut-off of the rankings the trainer, the closed-form kinds and the blends measure
/// and choose by.
inline constexpr long kRankingCutoff = 10;

/// The rows' name, or nullptr.
inline const MetricRow* find_metric(const std::string& name) {
  return find_row(kMetrics, name);
}

/// Where the row named `name` sits in kMetrics, or kMetricCount where no row has that name (by
/// name: a caller's row may be a copy of its entry).
inline size_t metric_index(const std::string& name) {
  const MetricRow* r = find_metric(name);
  return r ? static_cast<size_t>(r - kMetrics) : kMetricCount;
}

/// A figure's name taken apart: "val_ndcg@10" is split "val", metric ndcg, k 10;
/// "test_rmse" is split "test", metric rmse, k 0. row is null where the name is no figure
/// of the table ("val_" and "test_" prefixes optional: "ndcg@10" has split "").
struct MetricName {
  std::string split;
  const MetricRow* row = nullptr;
  long k = 0;
};

inline MetricName parse_metric_name(const std::string& figure) {
  MetricName out;
  std::string rest = figure;
  for (const char* split : {"train_", "val_", "test_"}) {
    const std::string p = split;
    if (rest.compare(0, p.size(), p) == 0) {
      out.split = p.substr(0, p.size() - 1);
      rest = rest.substr(p.size());
      break;
    }
  }
  const size_t at = rest.find('@');
  const MetricRow* row = find_metric(rest.substr(0, at));
  if (!row) return out;
  if (row->needs == MetricNeeds::ranking) {
    if (at == std::string::npos || at + 1 >= rest.size()) return out;
    long k = 0;
    for (size_t i = at + 1; i < rest.size(); ++i) {
      if (rest[i] < '0' || rest[i] > '9' || k > 1000000) return out;
      k = k * 10 + (rest[i] - '0');
    }
    if (k < 1) return out;
    out.k = k;
  } else if (at != std::string::npos) {
    return out;
  }
  out.row = row;
  return out;
}

/// Whether a larger value of the figure `name` ("val_ndcg@10", "test_rmse") is better: the
/// direction of its row; false (an error) for a name that is no figure of the table.
inline bool higher_is_better(const std::string& name) {
  const MetricName m = parse_metric_name(name);
  return m.row && m.row->direction == MetricDirection::higher;
}

/// The figure of `metric` on `split` ("val", "rmse" -> "val_rmse"; "val", "ndcg", 10 ->
/// "val_ndcg@10").
inline std::string metric_figure(const std::string& split, const MetricRow& metric, long k = kRankingCutoff) {
  std::string s = split.empty() ? std::string(metric.name) : split + "_" + metric.name;
  if (metric.needs == MetricNeeds::ranking) s += "@" + std::to_string(k);
  return s;
}

/// The row rating fits are judged by: what the rating objective selects and early-stops on,
/// what chooses among closed-form candidates, the bias baseline's shrinkage, train.auto's
/// combination and a blend's best single model, and the headline of every summary. The
/// table's first row.
inline const MetricRow& rating_metric() {
  return kMetrics[0];
}

/// The rating figure of a split ("test" -> "test_rmse").
inline std::string rating_figure(const std::string& split) {
  return metric_figure(split, rating_metric());
}

/// The ranking row ranking fits are judged by: what train.select = auto selects for a kind
/// that trains for ranking, what the closed-form and ranking kinds choose their setting by,
/// the ranker beside a rating model, the users' lists without ratings, the ranking blend and
/// `blend --metric`'s ranking choice. Its figure is taken at kRankingCutoff.
inline const MetricRow& ranking_metric() {
  static const MetricRow& row = *find_metric("ndcg");
  return row;
}

/// The ranking figure of a split at the cut-off ("val" -> "val_ndcg@10"; "" -> "ndcg@10").
inline std::string ranking_figure(const std::string& split = "") {
  return metric_figure(split, ranking_metric(), kRankingCutoff);
}

/// A row's name as a table header or a summary line prints it ("RMSE", "HIT_RATE").
inline std::string metric_label(const MetricRow& row) {
  std::string s = row.name;
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

/// The rating figure's label ("RMSE").
inline std::string rating_label() {
  return metric_label(rating_metric());
}

/// The ranking figure's label, with its cut-off ("NDCG@10").
inline std::string ranking_label() {
  return metric_label(ranking_metric()) + "@" + std::to_string(kRankingCutoff);
}

/// The validation figures the trainer measures every evaluated epoch, which train.select and
/// `tune --metric` choose from: every row, the rankings at k = 10.
inline const std::vector<std::string>& validation_figures() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const MetricRow& m : kMetrics) out.push_back(metric_figure("val", m));
    return out;
  }();
  return v;
}

/// The choices of train.select: auto, then every validation figure.
inline const char* select_choices() {
  static const std::string s = [] {
    std::string out = "auto";
    for (const std::string& f : validation_figures()) out += "|" + f;
    return out;
  }();
  return s.c_str();
}

/// The doc of train.select, its choices with their directions, from the table.
inline const char* select_doc() {
  static const std::string s = [] {
    std::string lower, higher;
    for (const MetricRow& m : kMetrics) {
      std::string& to = m.direction == MetricDirection::lower ? lower : higher;
      to += (to.empty() ? "" : ", ") + metric_figure("val", m);
    }
    return "validation metric that chooses the epoch, stops early (patience) and decays the learning "
           "rate: auto (" +
           rating_figure("val") + " for objective rating, else " + ranking_figure("val") + "), " + lower +
           " (lower is better), " + higher +
           " (higher is better; rankings at 10 under evaluate's protocol: relevant = validation ratings >= "
           "the evaluate threshold, candidates = items not rated in training) (symgnn/metrics.h)";
  }();
  return s.c_str();
}

/// What `tune --metric` accepts: every validation figure, and the rankings' short names
/// ("ndcg@10" for "val_ndcg@10").
inline const std::vector<std::string>& tune_metric_choices() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out = validation_figures();
    for (const MetricRow& m : kMetrics)
      if (m.needs == MetricNeeds::ranking) out.push_back(metric_figure("", m));
    return out;
  }();
  return v;
}

}  // namespace symgnn
