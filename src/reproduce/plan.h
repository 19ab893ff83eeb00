// What `symgnn reproduce` runs: every table and figure of the paper's experiments, and
// beside Tables 2 and 3 the extended low-rank model (configs/<set>_lowrank_encoder.conf),
// as a list of `symgnn train` invocations ("cells"), one per (dataset, model, variant,
// layers, k), each training all seeds. A cell shared by several tables (the low-rank
// ML-100K model is in Table 3, Table 4, Figure 2 and Figure 3) is run once.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace symgnn::reproduce {

/// One benchmark as the paper names it, and where its files are under the data dir.
struct Benchmark {
  std::string key;                 // douban, flixster, flixster_u, yahoo, ml100k, ml1m
  std::string label;               // "Flixster (U)"
  std::string path;                // relative to the data directory
  std::string config_stem;         // configs/<stem>_<model>.conf
  std::vector<std::string> extra;  // extra --set arguments (flixster_u: no item graph)
};

/// The benchmarks of Tables 2 and 3 in the paper's column order.
const std::vector<Benchmark>& benchmarks();
const Benchmark& benchmark(const std::string& key);

struct Cell {
  std::string name;                       // directory name under runs/, unique per setting
  std::string benchmark;                  // Benchmark::key
  std::string model;                      // sylvester | lowrank | base
  std::string variant;                    // full | G | A ("" for sylvester, "extended": its own config)
  int layers = 2;                         // CGE layers (lowrank.layers) or hops (base.hops)
  int k = 10;                             // k of the k-NN graphs (ML-100K only)
  std::vector<std::string> args;          // arguments after `symgnn train` (no --out, --threads)
  std::vector<std::string> config_files;  // whose contents are part of the cache key
  double estimate_seconds = 0;            // for the ETA before anything was measured
};

struct PlanOptions {
  std::string data_dir;    // holds monti/*.mat, ml-100k/, ml-1m/
  std::string config_dir;  // the repository's configs/
  bool quick = false;      // 1 seed, 3 epochs, one a for the Sylvester baseline
  int seeds = 5;
  std::string device;             // passed to every cell as --device unless empty
  std::vector<std::string> only;  // parts to run: table2 table3 table4 fig2 fig3 ranking (empty: all)
};

struct Plan {
  std::vector<Cell> cells;
  std::vector<std::string> absent;   // "Yahoo Music (monti/yahoo_music.mat)": not run
  std::map<std::string, int> depth;  // "<benchmark>/<model>": CGE depth of its tuned config
};

/// Every part the report can show, in order.
const std::vector<std::string>& part_names();

/// The cells of the chosen parts whose data is present, deduplicated, cheapest
/// parts first so that an interrupted sweep has finished tables to show.
Plan make_plan(const PlanOptions& opts);

/// The name of the cell for a setting (the report looks cells up by it).
std::string cell_name(const std::string& benchmark, const std::string& model, const std::string& variant,
                      int layers = 2, int k = 10);

/// The cell of a model at its tuned config's depth (Tables 2-4 and Figure 3 use these;
/// Figure 2 varies the depth).
std::string tuned_cell(const Plan& plan, const std::string& benchmark, const std::string& model,
                       const std::string& variant, int k = 10);

/// The cell of the extended low-rank model (configs/<stem>_lowrank_encoder.conf).
std::string extended_cell(const std::string& benchmark);

/// The ranking part (docs/recommend.md): the closed-form ranking kinds, SyMGNN trained for
/// ranking (configs/<stem>_ranking.conf) and their blend, on these benchmarks.
const std::vector<std::string>& ranking_benchmarks();
/// The closed-form kinds the ranking part fits beside the learned models.
const std::vector<std::string>& ranking_kinds();
/// The cell of SyMGNN trained for ranking (configs/<stem>_ranking.conf).
std::string ranking_cell(const std::string& benchmark);
/// The folder under runs/ where `reproduce` writes the blend of the EASE cell and the
/// ranking cell (`blend --metric ndcg@10`, computed after the cells, not a cell itself).
std::string ranking_blend_dir(const std::string& benchmark);

/// The item-based ranker's cell of one seed (`--model elsa --set train.seed=S`, S = 1..):
/// a closed-form kind whose fit starts from a seeded A and draws its dropout, so one cell
/// per seed, read together as mean and std.
std::string elsa_cell(const std::string& benchmark, int seed);
/// The folder under runs/ where `reproduce` writes the blend of the EASE cell with each
/// seed's elsa cell (as ranking_blend_dir).
std::string elsa_blend_dir(const std::string& benchmark);

/// The default variant of a model's tuned config (what Tables 2 and 3 report).
std::string table_variant(const std::string& model);

/// The layer counts of Figure 2 and the k values of Figure 3.
const std::vector<int>& figure2_layers();
const std::vector<int>& figure3_k();

}  // namespace symgnn::reproduce
