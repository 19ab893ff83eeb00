/// @file generate.h
/// `symgnn data generate`: large synthetic rating sets that look like real ones, written as
/// the files the CSV loader reads (ratings.csv, test.csv, user_graph.csv, item_graph.csv and
/// a data.conf for `symgnn train --config`). Torch-free.
///
/// The model (docs/scale.md):
///  - degrees: user u's number of ratings is min_degree + its share of the rest by a Zipf
///    law over a seeded random rank, w(r) = (r + 0.01 n1)^-user_exponent; items are drawn
///    by popularity p(r) = (r + 0.005 n2)^-item_exponent over their own seeded rank. Every
///    item gets at least one training rating (a cursor over the items hands each user one
///    not yet covered), so the loader knows every id the test file and graphs name;
///  - ratings: mu + b_u + b_i + <p_u, q_i> + noise, rounded to the stars 1..5 (mean about
///    3.5); the factors p_u, q_i are their community's centroid plus a private part;
///  - graphs: each node links to graph_k others of its own latent community, so the graphs
///    say who rates alike.
/// It streams: one user at a time, memory O(n1 + n2 + max degree), never a rating matrix.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace symgnn::data {

struct GenerateSpec {
  int64_t users = 0;
  int64_t items = 0;
  int64_t ratings = 0;  // training + test, exactly
  uint64_t seed = 1;
  double test_fraction = 0.1;  // test.csv holds exactly round(test_fraction * ratings)
  int64_t graph_k = 10;        // links per node in the graph files; 0: no graph files
  double user_exponent = 1.0;  // Zipf exponent of the user degrees
  double item_exponent = 1.0;  // Zipf exponent of the item popularity
  int64_t rank = 8;            // latent factors
  int64_t communities = 16;    // latent clusters per side
  std::string out_dir;
  bool overwrite = false;  // replace a set already in out_dir
};

/// Named sizes: "ml10m-like" (69,878 x 10,677, 10 M ratings) and "netflix-like"
/// (480,189 x 17,770, 100 M). False for an unknown name.
bool generate_preset(const std::string& name, GenerateSpec& spec);

/// UsageError naming the option (--users, --ratings, ...) when the spec cannot be met.
void check_generate_spec(const GenerateSpec& spec);

struct GenerateSummary {
  int64_t train = 0, test = 0;
  int64_t user_edges = 0, item_edges = 0;  // lines written to the graph files
  uint64_t bytes = 0;                      // of every file written
  double seconds = 0;
  double mean_rating = 0;
  int64_t max_user_degree = 0, max_item_degree = 0;
};

/// Writes the set into spec.out_dir (created if missing; each file atomically, data.conf
/// last with absolute paths). `progress` gets a line now and then (may be empty).
/// Same spec -> byte-identical files.
GenerateSummary generate_dataset(const GenerateSpec& spec,
                                 const std::function<void(const std::string&)>& progress);

}  // namespace symgnn::data
