// Loading each model's validation and test scorers, standardising their scores per user and
// searching the weights (see ranking_blend.h).
#include "ranking_blend/ranking_blend.h"

#include <torch/types.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include "infer/model_parts.h"
#include "models/ranking/ranking_probe.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "symgnn/model_kinds.h"
#include "symgnn/run_metrics.h"
#include "symgnn/trained_model.h"
#include "util/atomic_file.h"
#include "util/json_text.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::ranking_blend {
namespace {

/// Standardised scores beyond this many floats (all models, one split) are refused: the
/// blend holds each model's z-scores of the probed users in memory.
constexpr int64_t kMaxHeldScores = int64_t{1} << 28;

/// A closed-form kind refit on the training ratings alone, at the setting its saved fit
/// chose, over the data of its config (graphs resolved): its validation scores are out of
/// sample, as a trained kind's selection model's are.
std::shared_ptr<TrainedModel> refit_on_training(const TrainedModel& saved, const std::string& dir,
                                                std::string& from) {
  RunConfig cfg = saved.config();
  const RunMetrics metrics = RunMetrics::read(dir);
  Dataset ds = load_dataset(cfg.data);
  graph::resolve_graphs(ds, cfg.graph);  // the graphs as the run had them: said when it trained
  if (ds.validation.empty())
    throw DataError(dir + ": its data have no validation split (data.val_fraction = 0): no validation " +
                    "scores to choose the blend's weights on");
  // fit() refits on training + validation: give it training alone. The parts keep the
  // validation split, which the blend probes.
  Dataset training_only = ds;
  training_only.validation = RatingList{};
  infer::ModelParts parts;
  parts.cfg = cfg;
  parts.ds = std::move(ds);
  parts.ctx = models::make_context(parts.ds).to(at::Device(cfg.train.device));
  // The setting the fit chose (metrics.json) as the only candidate of its list: the kind
  // says which key that is (RatingModel::pin_chosen_setting), and the model is built on it.
  auto model = models::make_model(cfg, parts.ctx);
  const std::string setting = model->pin_chosen_setting(cfg, metrics.figures, dir);
  if (!setting.empty()) {
    parts.cfg = cfg;
    model = models::make_model(cfg, parts.ctx);
  }
  model->to(at::Device(cfg.train.device));
  model->fit(training_only, at::Device(cfg.train.device), nullptr);
  parts.members = {model};
  from = "refit on the training ratings alone" + setting;
  return std::make_shared<TrainedModel>(std::move(parts));
}

struct Loaded {
  BlendedModel record;
  std::shared_ptr<TrainedModel> val, test;
};

/// Run `run`'s saved model in a trained kind's directory: DIR/model.pt is run 0's; the
/// others are under final/ (protocol = retrain) or in their run folder.
std::string saved_model_of_run(const std::string& at, int64_t run) {
  if (run == 0) return at;
  const std::string k = "run" + std::to_string(run);
  const std::string final_model = at + "/final/" + k + "/model.pt";
  return fs::is_regular_file(final_model) ? final_model : at + "/" + k + "/model.pt";
}

Loaded load(const std::string& dir, const std::string& device, int64_t run) {
  Loaded l;
  l.record.dir = dir;
  l.record.ranked_by = dir;
  if (fs::is_regular_file(infer::ranker_dir(dir) + "/model.pt")) l.record.ranked_by = infer::ranker_dir(dir);
  const std::string& at = l.record.ranked_by;
  l.test = std::make_shared<TrainedModel>(TrainedModel::load(at, device));
  l.record.name = l.test->name();
  const ModelKind& kind = model_kind(l.test->config().model);
  if (kind.fit == FitMethod::closed_form) {
    // Deterministic: every run of a blend takes the one fit.
    l.val = refit_on_training(*l.test, at, l.record.validation_from);
  } else {
    const std::string k = "run" + std::to_string(run);
    const std::string selection = at + "/" + k + "/model.pt";
    if (!fs::is_regular_file(selection))
      throw DataError(selection + ": no selection model (the directory holds no trained " + k + ")");
    l.val = std::make_shared<TrainedModel>(TrainedModel::load(selection, device));
    if (l.val->dataset().validation.empty())
      throw DataError(selection + ": trained without a validation split (data.val_fraction = 0): no " +
                      "validation scores to choose the blend's weights on");
    if (run > 0)
      l.test = std::make_shared<TrainedModel>(TrainedModel::load(saved_model_of_run(at, run), device));
    l.record.validation_from = k + "/model.pt, the selection phase's model (trained without validation)";
  }
  return l;
}

/// Whether two rating lists hold the same pairs in the same order.
bool same_pairs(const RatingList& a, const RatingList& b) {
  return a.user == b.user && a.item == b.item;
}

void check_same_data(const std::vector<Loaded>& models) {
  const TrainedModel& first = *models.front().val;
  for (const Loaded& m : models) {
    const Dataset& a = first.dataset();
    const Dataset& b = m.val->dataset();
    const Dataset& t = m.test->dataset();
    std::string what;
    if (a.users.count != b.users.count || a.items.count != b.items.count)
      what = "set of users or items";
    else if (!same_pairs(a.train, b.train) || !same_pairs(a.validation, b.validation))
      what = "training or validation split (" + std::to_string(b.train.size()) + " and " +
             std::to_string(b.validation.size()) + " ratings against " + std::to_string(a.train.size()) +
             " and " + std::to_string(a.validation.size()) + ")";
    else if (!same_pairs(a.test, t.test) || t.users.count != a.users.count)
      what = "test split";
    if (!what.empty())
      throw DataError(m.record.ranked_by + ": its " + what + " differs from that of " +
                      models.front().record.ranked_by +
                      " (blend models trained on the same data and splits)");
  }
}

/// The users a probe scores, and every model's z-scores of them: [users, items] each,
/// standardised over each user's candidates (items not in `seen`), 0 at seen items.
struct Standardised {
  std::vector<at::Tensor> z;
  at::Tensor row_of;  // [n1] int64: a user's row in z, -1 for users not probed
};

Standardised standardise(const std::vector<std::shared_ptr<TrainedModel>>& models,
                         const std::vector<int64_t>& users, const std::vector<const RatingList*>& seen,
                         int64_t n1, int64_t n2) {
  const int64_t held = static_cast<int64_t>(users.size()) * n2 * static_cast<int64_t>(models.size());
  if (held > kMaxHeldScores)
    throw ConfigError("blend --metric ndcg@10: " + std::to_string(models.size()) + " models x " +
                      std::to_string(users.size()) + " users x " + std::to_string(n2) +
                      " items of scores is more than the blend holds (" + std::to_string(kMaxHeldScores) +
                      ")");
  Standardised out;
  std::vector<int64_t> row(static_cast<size_t>(n1), -1);
  for (size_t r = 0; r < users.size(); ++r) row[static_cast<size_t>(users[r])] = static_cast<int64_t>(r);
  out.row_of = torch::tensor(row, torch::kInt64);
  at::Tensor candidate = torch::ones({static_cast<int64_t>(users.size()), n2}, torch::kBool);
  for (const RatingList* list : seen)
    for (size_t e = 0; e < list->size(); ++e)
      if (const int64_t r = row[static_cast<size_t>(list->user[e])]; r >= 0)
        candidate[r][list->item[e]] = false;
  const at::Tensor w = candidate.to(torch::kFloat);
  const at::Tensor count = w.sum(1, true).clamp_min(1.0);
  for (const auto& m : models) {
    const std::vector<float> s = m->score_all_items(users);
    const at::Tensor scores = torch::from_blob(const_cast<float*>(s.data()),
                                               {static_cast<int64_t>(users.size()), n2}, torch::kFloat)
                                  .clone();
    const at::Tensor mean = (scores * w).sum(1, true) / count;
    const at::Tensor var = ((scores - mean).pow(2) * w).sum(1, true) / count;
    out.z.push_back(((scores - mean) / var.sqrt().clamp_min(1e-12)) * w);
  }
  return out;
}

/// The scores of the blend of weights `w` for a block of the probe's users.
models::RankingProbe::Scorer blend_scores(const Standardised& s, const std::vector<double>& w) {
  return [&s, w](const at::Tensor& users) {
    const at::Tensor rows = s.row_of.index_select(0, users.to(torch::kCPU));
    at::Tensor sum;
    for (size_t m = 0; m < w.size(); ++m) {
      if (w[m] == 0.0) continue;
      const at::Tensor part = s.z[m].index_select(0, rows) * w[m];
      sum = sum.defined() ? sum + part : part;
    }
    return sum;
  };
}

/// Every weight vector of the simplex grid with `steps` steps: non-negative multiples of
/// 1/steps summing to 1.
void grid(size_t models, int64_t steps, std::vector<int64_t>& at, std::vector<std::vector<double>>& out) {
  if (at.size() + 1 == models) {
    int64_t used = 0;
    for (const int64_t a : at) used += a;
    std::vector<double> w;
    for (const int64_t a : at) w.push_back(static_cast<double>(a) / static_cast<double>(steps));
    w.push_back(static_cast<double>(steps - used) / static_cast<double>(steps));
    out.push_back(w);
    return;
  }
  int64_t used = 0;
  for (const int64_t a : at) used += a;
  for (int64_t a = steps - used; a >= 0; --a) {
    at.push_back(a);
    grid(models, steps, at, out);
    at.pop_back();
  }
}

}  // namespace

RankingBlendResult blend_for_ranking(const std::vector<std::string>& dirs, const RankingBlendOptions& opts) {
  if (dirs.size() < 2)
    throw UsageError("blend: give at least 2 model directories (got " + std::to_string(dirs.size()) + ")");
  const double inverse = 1.0 / opts.step;
  if (!(opts.step > 0 && opts.step <= 1) || std::fabs(inverse - std::round(inverse)) > 1e-9)
    throw UsageError("blend --step " + fixed(opts.step, 4) +
                     ": must be 1/n for an integer n >= 1 (e.g. 0.05)");
  const auto say = [&](const std::string& line) {
    if (opts.log) opts.log(line);
  };
  std::vector<Loaded> loaded;
  for (const std::string& dir : dirs) {
    say("loading " + dir);
    loaded.push_back(load(dir, opts.device, opts.run));
    if (loaded.back().record.ranked_by != dir)
      say(dir + " ranks by its " + loaded.back().record.name + " ranker: blending " +
          loaded.back().record.ranked_by);
  }
  check_same_data(loaded);
  std::vector<std::shared_ptr<TrainedModel>> val_models, test_models;
  for (const Loaded& l : loaded) val_models.push_back(l.val), test_models.push_back(l.test);

  const Dataset& vds = val_models.front()->dataset();
  const Dataset& tds = test_models.front()->dataset();
  const double relevant_min = eval::relevant_min_of(vds);
  // Blocks of the probes: a few million scores at a time, as evaluate takes them.
  const int64_t block = int64_t{1} << 22;
  const models::RankingProbe val_probe = models::validation_probe(vds, block, at::Device(at::kCPU));
  if (val_probe.empty())
    throw DataError(loaded.front().record.ranked_by + ": no validation rating >= " + fixed(relevant_min, 2) +
                    ": no validation NDCG to choose the weights on");
  // The test probe excludes what the saved models learned from: training + validation.
  Dataset test_view = tds;
  if (test_view.validation.empty()) test_view.validation = vds.validation;
  const models::RankingProbe test_probe = models::test_probe(test_view, block, at::Device(at::kCPU));

  say("scoring " + std::to_string(val_probe.users()) + " validation users");
  const Standardised val =
      standardise(val_models, val_probe.user_ids(), {&vds.train}, vds.users.count, vds.items.count);

  RankingBlendResult res;
  res.step = opts.step;
  res.val_users = val_probe.users();
  res.test_users = test_probe.users();
  std::vector<std::vector<double>> points;
  std::vector<int64_t> at;
  grid(loaded.size(), static_cast<int64_t>(std::round(inverse)), at, points);
  if (points.size() > 20000)
    throw UsageError("blend --step " + fixed(opts.step, 4) + ": " + std::to_string(points.size()) +
                     " weight vectors for " + std::to_string(loaded.size()) + " models; take a larger step");
  res.grid_points = static_cast<int64_t>(points.size());
  say("searching " + std::to_string(points.size()) + " weight vectors on validation " + ranking_label());
  std::vector<double> best;
  double best_ndcg = -1;
  for (const auto& w : points) {
    const double ndcg = val_probe.figure(blend_scores(val, w), ranking_figure());
    if (ndcg > best_ndcg + 1e-12) best_ndcg = ndcg, best = w;
  }
  res.val_ndcg = best_ndcg;

  say("scoring " + std::to_string(test_probe.users()) + " test users");
  const Standardised test =
      standardise(test_models, test_probe.user_ids(), {&test_view.train, &test_view.validation},
                  tds.users.count, tds.items.count);
  if (!test_probe.empty()) {
    eval::Measurable blend;
    blend.rank = test_probe.ranker(blend_scores(test, best));
    const eval::Figures t = eval::measure(blend, "", eval::ranking_metrics(10));
    res.test_ndcg = eval::figure_of(t, ranking_figure());
    res.test_precision = eval::figure_of(t, "precision@10");
    res.test_recall = eval::figure_of(t, "recall@10");
  } else {
    res.test_ndcg = res.test_precision = res.test_recall = std::nan("");
  }
  for (size_t m = 0; m < loaded.size(); ++m) {
    std::vector<double> single(loaded.size(), 0.0);
    single[m] = 1.0;
    BlendedModel r = loaded[m].record;
    r.val_ndcg = val_probe.figure(blend_scores(val, single), ranking_figure());
    r.test_ndcg =
        test_probe.empty() ? std::nan("") : test_probe.figure(blend_scores(test, single), ranking_figure());
    r.weight = best[m];
    res.models.push_back(r);
    if (r.val_ndcg > res.models[res.best_single].val_ndcg) res.best_single = m;
  }
  return res;
}

nlohmann::json ranking_blend_json(const RankingBlendResult& r) {
  const auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::json j;
  j["model"] = "blend";
  j["metric"] = ranking_figure();
  j["fitted_on"] = "validation " + ranking_label() + ": weights on a grid of the simplex (step " +
                   fixed(r.step, 4) + ") of per-user standardised scores (src/ranking_blend/ranking_blend.h)";
  j["grid_points"] = r.grid_points;
  j[ranking_figure("val")] = number(r.val_ndcg);
  j[ranking_figure("val") + "_in_sample"] = true;
  j[ranking_figure("test")] = number(r.test_ndcg);
  j["test_precision@10"] = number(r.test_precision);
  j["test_recall@10"] = number(r.test_recall);
  j["validation_users"] = r.val_users;
  j["test_users"] = r.test_users;
  j["best_single"] = r.models[r.best_single].dir;
  for (const BlendedModel& m : r.models)
    j["models"].push_back({{"dir", m.dir},
                           {"ranked_by", m.ranked_by},
                           {"name", m.name},
                           {"validation_from", m.validation_from},
                           {"weight", m.weight},
                           {ranking_figure("val"), number(m.val_ndcg)},
                           {ranking_figure("test"), number(m.test_ndcg)}});
  return j;
}

void write_ranking_blend(const RankingBlendResult& r, const std::string& dir) {
  fs::create_directories(dir);
  write_text_atomic(dir + "/blend.json", json_text(ranking_blend_json(r), 2) + "\n");
  RunMetrics m;
  m.model = "blend";
  m.set(ranking_figure("val"), {r.val_ndcg});
  m.set(ranking_figure("test"), {r.test_ndcg});
  m.figures = {{ranking_figure("val") + "_in_sample", true}, {"details", "blend.json"}};
  for (const BlendedModel& b : r.models) m.figures["weights"][b.ranked_by] = b.weight;
  m.ranking_at_10 = {{"k", 10},
                     {"precision", r.test_precision},
                     {"recall", r.test_recall},
                     {"ndcg", r.test_ndcg},
                     {"users_evaluated", r.test_users}};
  m.write(dir + "/metrics.json");
}

void write_ranking_blend(const std::vector<RankingBlendResult>& runs, const std::string& dir) {
  if (runs.empty()) throw UsageError("write_ranking_blend: no runs");
  fs::create_directories(dir);
  nlohmann::json record = ranking_blend_json(runs.front());
  RunMetrics m;
  std::vector<double> val, test, precision, recall;
  for (size_t k = 0; k < runs.size(); ++k) {
    const RankingBlendResult& r = runs[k];
    nlohmann::json one = {
        {"run", k}, {ranking_figure("val"), r.val_ndcg}, {ranking_figure("test"), r.test_ndcg}};
    for (const BlendedModel& b : r.models) one["weights"][b.ranked_by] = b.weight;
    record["runs"].push_back(one);
    SeedMetrics seed;
    seed.run = static_cast<int64_t>(k);
    seed.metrics = {{ranking_figure("val"), r.val_ndcg}, {ranking_figure("test"), r.test_ndcg}};
    m.runs.push_back(seed);
    val.push_back(r.val_ndcg);
    test.push_back(r.test_ndcg);
    precision.push_back(r.test_precision);
    recall.push_back(r.test_recall);
  }
  write_text_atomic(dir + "/blend.json", json_text(record, 2) + "\n");
  m.model = "blend";
  m.set(ranking_figure("val"), val);
  m.set(ranking_figure("test"), test);
  m.set("test_precision@10", precision);
  m.set("test_recall@10", recall);
  m.figures = {{ranking_figure("val") + "_in_sample", true}, {"details", "blend.json"}};
  for (const BlendedModel& b : runs.front().models) m.figures["weights"][b.ranked_by] = b.weight;
  m.ranking_at_10 = {{"k", 10},
                     {"runs", runs.size()},
                     {"precision", m.mean("test_precision@10")},
                     {"precision_std", m.std_of("test_precision@10")},
                     {"recall", m.mean("test_recall@10")},
                     {"recall_std", m.std_of("test_recall@10")},
                     {"ndcg", m.mean(ranking_figure("test"))},
                     {"ndcg_std", m.std_of(ranking_figure("test"))},
                     {"users_evaluated", runs.front().test_users}};
  m.write(dir + "/metrics.json");
}

}  // namespace symgnn::ranking_blend
