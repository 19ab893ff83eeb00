/// @file synthetic.cpp
/// The embedded default dataset: a seeded rating matrix whose structure lives on two community
/// graphs, so that a model which reads the graphs should beat one that does not when each node
/// has only a couple of dozen ratings.
///
/// Generator (per side, n nodes, C communities, rank r = 4):
///  1. communities: node k gets floor(k * C / n), then the labels are shuffled (balanced sizes);
///  2. graph (stochastic block model, weight 1, symmetric, GraphOrigin::File): each node links
///     to 4 random members of its own community and, with probability 1/2, to one node of
///     another community; after symmetrisation a node has ~8 within- and ~1 cross-community
///     neighbours;
///  3. latent factors: community centroid ~ N(0, I_r) plus 0.4 N(0, I_r) per node, then averaged
///     once over the node and its graph neighbours (smooth on the graph);
///  4. observed cells: round(density * n1 * n2) distinct cells (Floyd's sampling), score
///     s = <x_u, y_i> standardised over those cells, true rating 3 + 1.1 z, observed rating
///     round(clip(true + noise N(0, 1), 1, 5)); levels 1..5;
///  5. test split: test_fraction of the observed cells, drawn with split_seed.
///
/// Statistics at the defaults (300 x 300, 6 communities, density 0.08, noise 0.35, seed 7),
/// asserted by tests/data/test_synthetic.cpp:
///   | users | items | ratings | per user | directed edges per side | degree (mean, min..max) |
///   |   300 |   300 |    7200 |       24 | 2562 users, 2490 items  | 8.5, 4..15              |
/// Of a node's ~8.5 neighbours ~1 is in another community. Ratings 1..5 are used 9, 23, 36,
/// 22 and 9 % of the time (mean 3.0, std 1.09); 720 of them form the test split. Generation
/// takes ~3 ms.
/// All draws go through random_split.h's portable helpers and Box-Muller (not the
/// library-defined std:: distributions), so a seed gives the same matrix with any standard
/// library, up to last-bit differences of log/cos in the C maths library.
#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include "data/loaders.h"
#include "data/random_split.h"
#include "symgnn/error.h"

namespace symgnn::data {

namespace {

constexpr int kRank = 4;
constexpr int kWithinPicks = 4;
constexpr double kCrossProbability = 0.5;
constexpr double kNodeDeviation = 0.4;
constexpr double kRatingScale = 1.1;
// More ratings than this would not be a quick synthetic check any more.
constexpr double kMaxRatings = 5e7;

double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

double normal(std::mt19937_64& rng) {
  const double u1 = 1.0 - uniform01(rng);  // (0, 1]: log stays finite
  const double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

struct Side {
  std::vector<int64_t> community;
  std::vector<std::vector<int64_t>> neighbours;
  std::vector<double> factor;  // n x kRank, row-major
};

Side make_side(int64_t n, int64_t communities, std::mt19937_64& rng) {
  Side s;
  const int64_t c = std::max<int64_t>(1, std::min(communities, n));
  s.community.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) s.community[static_cast<size_t>(k)] = k * c / n;
  portable_shuffle(s.community, rng);
  std::vector<std::vector<int64_t>> members(static_cast<size_t>(c));
  for (int64_t k = 0; k < n; ++k)
    members[static_cast<size_t>(s.community[static_cast<size_t>(k)])].push_back(k);

  std::set<std::pair<int64_t, int64_t>> edges;
  const auto link = [&](int64_t a, int64_t b) {
    if (a != b) edges.emplace(std::min(a, b), std::max(a, b));
  };
  for (int64_t k = 0; k < n; ++k) {
    const auto& own = members[static_cast<size_t>(s.community[static_cast<size_t>(k)])];
    if (own.size() > 1)
      for (int p = 0; p < kWithinPicks; ++p) link(k, own[uniform_below(rng, own.size())]);
    if (c > 1 && uniform01(rng) < kCrossProbability) {
      int64_t other;
      do {
        other = static_cast<int64_t>(uniform_below(rng, static_cast<uint64_t>(n)));
      } while (s.community[static_cast<size_t>(other)] == s.community[static_cast<size_t>(k)]);
      link(k, other);
    }
  }
  s.neighbours.resize(static_cast<size_t>(n));
  for (const auto& [a, b] : edges) {
    s.neighbours[static_cast<size_t>(a)].push_back(b);
    s.neighbours[static_cast<size_t>(b)].push_back(a);
  }

  std::vector<double> centroid(static_cast<size_t>(c * kRank));
  for (double& x : centroid) x = normal(rng);
  std::vector<double> raw(static_cast<size_t>(n * kRank));
  for (int64_t k = 0; k < n; ++k)
    for (int d = 0; d < kRank; ++d)
      raw[static_cast<size_t>(k * kRank + d)] =
          centroid[static_cast<size_t>(s.community[static_cast<size_t>(k)] * kRank + d)] +
          kNodeDeviation * normal(rng);
  s.factor.assign(raw.size(), 0.0);
  for (int64_t k = 0; k < n; ++k) {
    const auto& nb = s.neighbours[static_cast<size_t>(k)];
    for (int d = 0; d < kRank; ++d) {
      double sum = raw[static_cast<size_t>(k * kRank + d)];
      for (int64_t j : nb) sum += raw[static_cast<size_t>(j * kRank + d)];
      s.factor[static_cast<size_t>(k * kRank + d)] = sum / static_cast<double>(nb.size() + 1);
    }
  }
  return s;
}

void fill_node_set(NodeSet& out, int64_t n, const Side& s) {
  out.count = n;
  out.graph.num_nodes = n;
  for (int64_t a = 0; a < n; ++a) {
    std::vector<int64_t> nb = s.neighbours[static_cast<size_t>(a)];
    std::sort(nb.begin(), nb.end());
    for (int64_t b : nb) out.graph.add(a, b, 1.0f);
  }
  out.graph_origin = GraphOrigin::File;
}

}  // namespace

Dataset make_synthetic(const DataConfig& cfg) {
  const int64_t n1 = cfg.synthetic_users, n2 = cfg.synthetic_items;
  if (n1 < 1 || n2 < 1) throw DataError("synthetic", 0, "synthetic_users and synthetic_items must be >= 1");
  const double cells = static_cast<double>(n1) * static_cast<double>(n2);
  const double wanted = std::round(std::clamp(cfg.synthetic_density, 0.0, 1.0) * cells);
  if (wanted > kMaxRatings)
    throw DataError("synthetic", 0,
                    "synthetic_density * users * items = " + std::to_string(wanted) +
                        " ratings; at most 5e7 are generated");
  const uint64_t m = static_cast<uint64_t>(std::max(2.0, std::min(wanted, cells)));
  const uint64_t total = static_cast<uint64_t>(n1) * static_cast<uint64_t>(n2);

  std::mt19937_64 rng(static_cast<uint64_t>(cfg.synthetic_seed));
  const Side users = make_side(n1, cfg.synthetic_communities, rng);
  const Side items = make_side(n2, cfg.synthetic_communities, rng);

  // Floyd's algorithm: m distinct cells in O(m) memory, then sorted for a fixed order.
  std::unordered_set<uint64_t> chosen;
  chosen.reserve(static_cast<size_t>(m) * 2);
  for (uint64_t j = total - m; j < total; ++j) {
    const uint64_t t = uniform_below(rng, j + 1);
    if (!chosen.insert(t).second) chosen.insert(j);
  }
  std::vector<uint64_t> cell(chosen.begin(), chosen.end());
  std::sort(cell.begin(), cell.end());

  std::vector<double> score(cell.size());
  double mean = 0.0;
  for (size_t k = 0; k < cell.size(); ++k) {
    const uint64_t u = cell[k] / static_cast<uint64_t>(n2), i = cell[k] % static_cast<uint64_t>(n2);
    double s = 0.0;
    for (int d = 0; d < kRank; ++d) s += users.factor[u * kRank + d] * items.factor[i * kRank + d];
    score[k] = s;
    mean += s;
  }
  mean /= static_cast<double>(cell.size());
  double var = 0.0;
  for (double s : score) var += (s - mean) * (s - mean);
  const double sd = std::sqrt(var / static_cast<double>(cell.size()));

  RatingList all;
  for (size_t k = 0; k < cell.size(); ++k) {
    const double z = sd > 0 ? (score[k] - mean) / sd : 0.0;
    const double noisy = 3.0 + kRatingScale * z + cfg.synthetic_noise * normal(rng);
    all.add(static_cast<int64_t>(cell[k] / static_cast<uint64_t>(n2)),
            static_cast<int64_t>(cell[k] % static_cast<uint64_t>(n2)),
            static_cast<float>(std::round(std::clamp(noisy, 1.0, 5.0))));
  }

  Dataset ds;
  ds.name = "synthetic";
  fill_node_set(ds.users, n1, users);
  fill_node_set(ds.items, n2, items);
  split_five_stars(all, cfg, ds);
  return ds;
}

}  // namespace symgnn::data
