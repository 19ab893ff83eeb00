#include "reproduce/plan.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "symgnn/config.h"
#include "symgnn/error.h"

namespace fs = std::filesystem;

namespace symgnn::reproduce {

const std::vector<Benchmark>& benchmarks() {
  static const std::vector<Benchmark> all = {
      {"douban", "Douban", "monti/douban.mat", "douban", {}},
      {"flixster", "Flixster", "monti/flixster.mat", "flixster", {}},
      // Table 2's "Flixster (U)": the same ratings with the user graph only.
      {"flixster_u",
       "Flixster (U)",
       "monti/flixster.mat",
       "flixster",
       {"--set", "graph.item_graph=identity"}},
      {"yahoo", "Yahoo Music", "monti/yahoo_music.mat", "yahoo", {}},
      {"ml100k", "ML-100K", "ml-100k", "ml100k", {"--split", "u1"}},
      // No ML-1M configs are tuned: it uses the ML-100K ones (random 10 % test split).
      {"ml1m", "ML-1M", "ml-1m", "ml100k", {}},
  };
  return all;
}

const Benchmark& benchmark(const std::string& key) {
  for (const auto& b : benchmarks())
    if (b.key == key) return b;
  throw UsageError("unknown benchmark '" + key + "'");
}

const std::vector<std::string>& part_names() {
  static const std::vector<std::string> parts = {"table4", "table3", "fig2", "fig3", "table2", "ranking"};
  return parts;
}

const std::vector<std::string>& ranking_benchmarks() {
  static const std::vector<std::string> v = {"ml100k", "douban", "flixster"};
  return v;
}

const std::vector<std::string>& ranking_kinds() {
  static const std::vector<std::string> v = {"itemknn", "ease", "sylvester_binary"};
  return v;
}

std::string ranking_cell(const std::string& bench) {
  return bench + "-lowrank-ranking";
}

std::string ranking_blend_dir(const std::string& bench) {
  return bench + "-ranking-blend";
}

std::string elsa_cell(const std::string& bench, int seed) {
  return bench + "-elsa-seed" + std::to_string(seed);
}

std::string elsa_blend_dir(const std::string& bench) {
  return bench + "-elsa-blend";
}

const std::vector<int>& figure2_layers() {
  static const std::vector<int> v = {1, 2, 3, 4};
  return v;
}
const std::vector<int>& figure3_k() {
  static const std::vector<int> v = {5, 10, 15, 20};
  return v;
}

std::string table_variant(const std::string& model) {
  // The tuned low-rank configs use the G variant: as accurate as the full model here
  // and several times cheaper (docs/results.md, Table 4); the base configs are full.
  return model == "lowrank" ? "G" : model == "base" ? "full" : "";
}

/// A kind fitted in closed form (symgnn/model_kinds.h) has no seeds, variants or depth.
static bool closed_form(const std::string& model) {
  return model_kind(model).fit == FitMethod::closed_form;
}

std::string cell_name(const std::string& bench, const std::string& model, const std::string& variant,
                      int layers, int k) {
  if (closed_form(model)) return bench + "-" + model;
  std::string name = bench + "-" + model + "-" + variant + "-L" + std::to_string(layers);
  if (bench == "ml100k" || bench == "ml1m") name += "-k" + std::to_string(k);
  return name;
}

std::string extended_cell(const std::string& bench) {
  return bench + "-lowrank-extended";
}

std::string tuned_cell(const Plan& plan, const std::string& bench, const std::string& model,
                       const std::string& variant, int k) {
  const auto it = plan.depth.find(bench + "/" + model);
  return cell_name(bench, model, variant, it == plan.depth.end() ? 2 : it->second, k);
}

namespace {

/// Seconds for one seed of a cell on 2 cores (measured here; only the ETA uses them).
double seed_seconds(const std::string& bench, const std::string& model, const std::string& variant) {
  const bool small = bench == "ml100k";
  if (model == "baseline") return 5;
  if (model == "sylvester") {
    static const std::map<std::string, double> s = {{"douban", 100}, {"flixster", 250}, {"flixster_u", 200},
                                                    {"yahoo", 300},  {"ml100k", 70},    {"ml1m", 900}};
    return s.at(bench);
  }
  const double variant_factor = variant == "G" ? 1.0 : variant == "A" ? 3.0 : 4.0;
  if (model == "lowrank")
    return (small ? 6.0 : bench == "flixster" || bench == "flixster_u" ? 10.0 : 30.0) * variant_factor;
  if (bench == "ml1m") return 1500;
  return small ? 10.0 * (variant == "G" ? 1.0 : variant == "A" ? 2.5 : 3.5) : 80.0;
}

class Builder {
 public:
  explicit Builder(const PlanOptions& o) : o_(o) {}

  bool present(const std::string& bench) {
    const Benchmark& b = benchmark(bench);
    if (fs::exists(o_.data_dir + "/" + b.path)) return true;
    const std::string why = b.label + " (" + o_.data_dir + "/" + b.path + ")";
    if (std::find(plan_.absent.begin(), plan_.absent.end(), why) == plan_.absent.end())
      plan_.absent.push_back(why);
    return false;
  }

  void add(const std::string& bench, const std::string& model, const std::string& variant, int layers = 2,
           int k = 10) {
    if (!present(bench)) return;
    Cell c;
    c.name = cell_name(bench, model, variant, layers, k);
    if (!seen_.insert(c.name).second) return;
    const Benchmark& b = benchmark(bench);
    c.benchmark = bench;
    c.model = model;
    c.variant = variant;
    c.layers = layers;
    c.k = k;
    c.args = {"--data", o_.data_dir + "/" + b.path};
    c.args.insert(c.args.end(), b.extra.begin(), b.extra.end());
    if (closed_form(model)) {
      c.args.insert(c.args.end(), {"--model", model});
      if (model == "sylvester") c.args.insert(c.args.end(), {"--set", "sylvester.tol=1e-6"});
      // No ranker beside these rating kinds, which the recommended preset would fit. Sylv.'s cell
      // is also the ranking table's "trained for ratings" row, so its lists are its own
      // predicted ratings, as the SyMGNN rows' paper-preset configs give theirs (with EASE beside
      // it the row would repeat EASE's lists). The bias baseline's lists no table reads, and the
      // rankers would be most of its cells' time (a minute on Douban, EASE at each penalty).
      if (model == "sylvester" || model == "baseline")
        c.args.insert(c.args.end(), {"--set", "train.ranker=none"});
      if (model == "sylvester" && o_.quick)
        c.args.insert(c.args.end(), {"--set", "sylvester.alphas=0.9", "--set", "sylvester.tol=1e-3"});
      c.estimate_seconds = seed_seconds(bench, model, variant) * (o_.quick ? 0.05 : 1.0);
    } else {
      const std::string config = o_.config_dir + "/" + b.config_stem + "_" + model + ".conf";
      if (!fs::exists(config)) throw UsageError(config + ": tuned config not found (use --configs DIR)");
      c.config_files.push_back(config);
      const std::string depth = model == "lowrank" ? "lowrank.layers=" : "base.hops=";
      c.args.insert(c.args.end(),
                    {"--config", config, "--model", model, "--variant", variant, "--set",
                     depth + std::to_string(layers), "--runs", std::to_string(o_.seeds), "--seed", "1"});
      if (bench == "ml100k" || bench == "ml1m")
        c.args.insert(c.args.end(), {"--set", "graph.knn_k=" + std::to_string(k)});
      if (o_.quick) c.args.insert(c.args.end(), {"--epochs", "3"});
      c.estimate_seconds = seed_seconds(bench, model, variant) * o_.seeds * (o_.quick ? 0.05 : 1.0);
    }
    if (!o_.device.empty()) c.args.insert(c.args.end(), {"--device", o_.device});
    plan_.cells.push_back(std::move(c));
  }

  /// The extended low-rank model of a benchmark: its configs/<stem>_lowrank_encoder.conf
  /// as written (the encoder prior, EMA weights, the retrain protocol), all seeds.
  void add_extended(const std::string& bench) {
    if (!present(bench)) return;
    // The retrain protocol trains each seed twice; ML-100K's config runs 1000 epochs.
    const double seconds = bench == "ml100k" ? 350.0 : bench == "yahoo" ? 60.0 : 300.0;
    // A rating row: its lists are read by no table, so no ranker is fitted beside it (its
    // config's recommended preset would fit them, a minute on Douban).
    add_config_cell(bench, extended_cell(bench), "extended", "_lowrank_encoder.conf",
                    seconds * o_.seeds * (o_.quick ? 0.01 : 1.0), {"--set", "train.ranker=none"});
  }

  /// A low-rank cell trained with configs/<stem><suffix> as written, all seeds; nothing
  /// when the config is absent (the report says so in its place).
  void add_config_cell(const std::string& bench, const std::string& name, const std::string& variant,
                       const std::string& suffix, double estimate_seconds,
                       const std::vector<std::string>& extra = {}) {
    const Benchmark& b = benchmark(bench);
    const std::string config = o_.config_dir + "/" + b.config_stem + suffix;
    if (!fs::exists(config)) return;
    Cell c;
    c.name = name;
    if (!seen_.insert(c.name).second) return;
    c.benchmark = bench;
    c.model = "lowrank";
    c.variant = variant;
    c.layers = depth_of(config);
    c.config_files.push_back(config);
    c.args = {"--data", o_.data_dir + "/" + b.path};
    c.args.insert(c.args.end(), b.extra.begin(), b.extra.end());
    c.args.insert(c.args.end(), {"--config", config, "--runs", std::to_string(o_.seeds), "--seed", "1"});
    c.args.insert(c.args.end(), extra.begin(), extra.end());
    if (o_.quick) c.args.insert(c.args.end(), {"--epochs", "3"});
    if (!o_.device.empty()) c.args.insert(c.args.end(), {"--device", o_.device});
    c.estimate_seconds = estimate_seconds;
    plan_.cells.push_back(std::move(c));
  }

  /// The ranking part's cells of a benchmark: the closed-form ranking kinds, the item-based
  /// ranker once per seed, and SyMGNN trained for ranking where configs/<stem>_ranking.conf
  /// exists. All carve 10 % of the
  /// training ratings for validation, as the ranking configs do, so that `blend --metric
  /// ndcg@10` can combine them.
  void add_ranking(const std::string& bench) {
    if (!present(bench)) return;
    const Benchmark& b = benchmark(bench);
    const std::vector<std::string> carve = {"--set", "data.val_fraction=0.1"};
    for (const std::string& kind : ranking_kinds()) {
      Cell c;
      c.name = cell_name(bench, kind, "");
      if (!seen_.insert(c.name).second) continue;
      c.benchmark = bench;
      c.model = kind;
      c.args = {"--data", o_.data_dir + "/" + b.path};
      c.args.insert(c.args.end(), b.extra.begin(), b.extra.end());
      c.args.insert(c.args.end(), {"--model", kind});
      c.args.insert(c.args.end(), carve.begin(), carve.end());
      if (kind == "sylvester_binary") {
        // A co-occurrence item graph and no user graph (docs/experiments.md, "Ranking").
        c.args.insert(c.args.end(), {"--set", "graph.item_graph=knn", "--set",
                                     "graph.knn_source=interactions", "--set", "graph.user_graph=identity"});
        if (o_.quick)
          c.args.insert(c.args.end(), {"--set", "sylvester.alphas=0.7", "--set", "sylvester.tol=1e-3"});
      }
      if (!o_.device.empty()) c.args.insert(c.args.end(), {"--device", o_.device});
      c.estimate_seconds = bench == "ml100k" ? 10.0 : 40.0;
      plan_.cells.push_back(std::move(c));
    }
    for (int seed = 1; seed <= o_.seeds; ++seed) {
      Cell c;
      c.name = elsa_cell(bench, seed);
      if (!seen_.insert(c.name).second) continue;
      c.benchmark = bench;
      c.model = "elsa";
      c.args = {"--data", o_.data_dir + "/" + b.path};
      c.args.insert(c.args.end(), b.extra.begin(), b.extra.end());
      c.args.insert(c.args.end(), {"--model", "elsa", "--set", "train.seed=" + std::to_string(seed)});
      c.args.insert(c.args.end(), carve.begin(), carve.end());
      if (o_.quick) c.args.insert(c.args.end(), {"--set", "elsa.dims=32", "--set", "elsa.epochs=2"});
      if (!o_.device.empty()) c.args.insert(c.args.end(), {"--device", o_.device});
      c.estimate_seconds = (bench == "ml100k" ? 15.0 : 50.0) * (o_.quick ? 0.1 : 1.0);
      plan_.cells.push_back(std::move(c));
    }
    add_config_cell(bench, ranking_cell(bench), "ranking", "_ranking.conf",
                    (bench == "ml100k" ? 240.0 : 130.0) * o_.seeds * (o_.quick ? 0.02 : 1.0));
  }

  static int depth_of(const std::string& config) {
    return static_cast<int>(start_config("", config).lowrank.layers);
  }

  /// The CGE depth (lowrank.layers or base.hops) the tuned config of (bench, model) sets.
  int depth(const std::string& bench, const std::string& model) {
    const std::string key = bench + "/" + model;
    if (auto it = plan_.depth.find(key); it != plan_.depth.end()) return it->second;
    const std::string config = o_.config_dir + "/" + benchmark(bench).config_stem + "_" + model + ".conf";
    const RunConfig rc = start_config("", fs::exists(config) ? config : "");
    const int d = static_cast<int>(model == "base" ? rc.base.hops : rc.lowrank.layers);
    plan_.depth[key] = d;
    return d;
  }

  /// A cell at the tuned config's depth.
  void add_tuned(const std::string& bench, const std::string& model, const std::string& variant, int k = 10) {
    add(bench, model, variant, closed_form(model) ? 2 : depth(bench, model), k);
  }

  Plan take() {
    // A quick run checks that every table and figure is made, not their figures: the bias
    // baseline that every cell prints beside its own figure chooses its shrinkage on one fold
    // of its cross-validation (most of a 3-epoch ML-100K cell's time otherwise), and EASE
    // fits one penalty instead of its grid.
    if (o_.quick)
      for (Cell& c : plan_.cells) {
        c.args.insert(c.args.end(), {"--set", "baseline.cv_max_held=1"});
        if (c.model == "ease") c.args.insert(c.args.end(), {"--set", "ease.lambdas=50"});
      }
    return std::move(plan_);
  }

 private:
  const PlanOptions& o_;
  Plan plan_;
  std::set<std::string> seen_;
};

}  // namespace

Plan make_plan(const PlanOptions& opts) {
  for (const auto& p : opts.only)
    if (std::find(part_names().begin(), part_names().end(), p) == part_names().end())
      throw UsageError("--only: unknown part '" + p +
                       "' (choose from table2, table3, table4, fig2, fig3, ranking)");
  auto wanted = [&](const std::string& part) {
    return opts.only.empty() || std::find(opts.only.begin(), opts.only.end(), part) != opts.only.end();
  };
  Builder b(opts);
  for (const auto& part : part_names()) {
    if (!wanted(part)) continue;
    if (part == "table4") {
      for (const char* model : {"base", "lowrank"})
        for (const char* v : {"full", "G", "A"}) b.add_tuned("ml100k", model, v);
    } else if (part == "table3") {
      for (const char* bench : {"ml100k", "ml1m"}) {
        for (const char* model : {"baseline", "sylvester", "lowrank", "base"})
          b.add_tuned(bench, model, table_variant(model));
        b.add_extended(bench);
      }
    } else if (part == "fig2") {
      for (const char* model : {"lowrank", "base"})
        for (int layers : figure2_layers()) b.add("ml100k", model, table_variant(model), layers);
    } else if (part == "fig3") {
      // With attention (the full models) and without (their G ablations: CGE only).
      for (const char* model : {"lowrank", "base"})
        for (const char* v : {"full", "G"})
          for (int k : figure3_k()) b.add_tuned("ml100k", model, v, k);
    } else if (part == "ranking") {
      for (const std::string& bench : ranking_benchmarks()) b.add_ranking(bench);
    } else if (part == "table2") {
      for (const char* bench : {"douban", "flixster", "flixster_u", "yahoo"}) {
        for (const char* model : {"baseline", "sylvester", "lowrank", "base"})
          b.add_tuned(bench, model, table_variant(model));
        b.add_extended(bench);
      }
    }
  }
  return b.take();
}

}  // namespace symgnn::reproduce
