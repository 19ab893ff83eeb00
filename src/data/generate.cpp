/// @file generate.cpp
/// The streaming generator behind `symgnn data generate` (model and guarantees: generate.h).
/// One pass over the users writes ratings.csv and test.csv together; the graphs follow.
/// Every random draw comes from SplitMix64 streams keyed by (seed, purpose, node), so the
/// files are the same bytes on every machine and standard library.
#include "data/generate.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <utility>
#include <vector>

#include "symgnn/error.h"
#include "util/atomic_file.h"

namespace fs = std::filesystem;

namespace symgnn::data {

namespace {

/// SplitMix64: tiny, fast and fully specified (std:: distributions are not portable).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [0, n).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  /// Standard normal (Box-Muller; the second value is kept for the next call).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u = 1.0 - uniform(), v = uniform();
    const double r = std::sqrt(-2.0 * std::log(u));
    spare_ = r * std::sin(2.0 * M_PI * v);
    has_spare_ = true;
    return r * std::cos(2.0 * M_PI * v);
  }

 private:
  uint64_t s_;
  double spare_ = 0;
  bool has_spare_ = false;
};

/// The stream for one purpose (and node): independent of the order nodes are visited in.
Rng stream(uint64_t seed, uint64_t purpose, uint64_t node = 0) {
  Rng mix(seed ^ (purpose * 0xD1B54A32D192ED03ull));
  Rng keyed(mix.next() ^ (node * 0x9E3779B97F4A7C15ull));
  keyed.next();
  return keyed;
}

enum Purpose : uint64_t { kUserRank = 1, kItemRank, kFactors, kUserRatings, kUserGraph, kItemGraph };

/// Walker/Vose alias table: O(1) draws from a fixed discrete distribution.
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& w) : prob_(w.size()), alias_(w.size()) {
    const size_t n = w.size();
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    std::vector<double> scaled(n);
    std::vector<uint32_t> small, large;
    for (size_t k = 0; k < n; ++k) {
      scaled[k] = w[k] * static_cast<double>(n) / total;
      (scaled[k] < 1.0 ? small : large).push_back(static_cast<uint32_t>(k));
    }
    while (!small.empty() && !large.empty()) {
      const uint32_t s = small.back(), l = large.back();
      small.pop_back();
      prob_[s] = scaled[s];
      alias_[s] = l;
      scaled[l] -= 1.0 - scaled[s];
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (uint32_t k : large) prob_[k] = 1.0, alias_[k] = k;
    for (uint32_t k : small) prob_[k] = 1.0, alias_[k] = k;  // rounding leftovers
  }
  uint32_t draw(Rng& r) const {
    const uint64_t k = r.below(prob_.size());
    return r.uniform() < prob_[k] ? static_cast<uint32_t>(k) : alias_[k];
  }

 private:
  std::vector<double> prob_;
  std::vector<uint32_t> alias_;
};

std::vector<uint32_t> permutation(size_t n, Rng rng) {
  std::vector<uint32_t> p(n);
  std::iota(p.begin(), p.end(), 0u);
  for (size_t k = n; k > 1; --k) std::swap(p[k - 1], p[rng.below(k)]);
  return p;
}

/// Zipf weights with an offset (r + r0)^-a, by rank; the offset flattens the head so that
/// the most popular node holds a realistic share (~0.3% of the ratings) rather than ~10%.
std::vector<double> zipf_by_rank(size_t n, double exponent, double offset_fraction) {
  const double r0 = std::max(1.0, offset_fraction * static_cast<double>(n));
  std::vector<double> w(n);
  for (size_t r = 0; r < n; ++r) w[r] = std::pow(static_cast<double>(r) + r0, -exponent);
  return w;
}

/// Degrees summing to exactly spec.ratings, each in [min_degree, items]: min_degree plus a
/// Zipf share of the rest by the user's random rank; rounding leftovers go to the top ranks.
std::vector<uint32_t> user_degrees(const GenerateSpec& spec) {
  const auto n1 = static_cast<size_t>(spec.users);
  const auto cap = static_cast<uint64_t>(spec.items);
  const int64_t per_user = spec.ratings / spec.users;
  const auto min_degree =
      static_cast<uint64_t>(std::clamp<int64_t>(per_user / 5, 1, std::min<int64_t>(20, spec.items)));
  const std::vector<uint32_t> user_at_rank = permutation(n1, stream(spec.seed, kUserRank));
  const std::vector<double> w = zipf_by_rank(n1, spec.user_exponent, 0.01);
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  const double extra = static_cast<double>(spec.ratings) - static_cast<double>(min_degree * n1);
  std::vector<uint32_t> d(n1);
  uint64_t sum = 0;
  for (size_t r = 0; r < n1; ++r) {
    const auto share = static_cast<uint64_t>(std::floor(extra * w[r] / total));
    d[user_at_rank[r]] = static_cast<uint32_t>(std::min(cap, min_degree + share));
    sum += d[user_at_rank[r]];
  }
  // sum <= ratings: floors and caps only lower it. Top ranks take the rest one at a time
  // (ratings <= users * items, so there is always room).
  auto left = static_cast<uint64_t>(spec.ratings) - sum;
  while (left > 0)
    for (size_t r = 0; r < n1 && left > 0; ++r)
      if (d[user_at_rank[r]] < cap) ++d[user_at_rank[r]], --left;
  return d;
}

/// Latent structure of one side: a community per node and rank-dim factors (centroid of
/// the community plus a private part), and a bias per node.
struct Side {
  std::vector<uint16_t> community;
  std::vector<float> factors;  // n x rank
  std::vector<float> bias;
};

Side make_side(int64_t n, const GenerateSpec& spec, uint64_t salt, double bias_sd) {
  Rng rng = stream(spec.seed, kFactors, salt);
  const auto rank = static_cast<size_t>(spec.rank);
  // Factor entries of sd 0.46 make <p_u, q_i> of sd ~0.6 at rank 8 (most of it shared
  // by the community, so that the community graphs carry the signal).
  const double centroid_sd = 0.40 / std::sqrt(static_cast<double>(rank) / 8.0);
  const double private_sd = 0.23 / std::sqrt(static_cast<double>(rank) / 8.0);
  std::vector<float> centroids(static_cast<size_t>(spec.communities) * rank);
  for (float& c : centroids) c = static_cast<float>(centroid_sd * rng.normal());
  Side s;
  s.community.resize(static_cast<size_t>(n));
  s.factors.resize(static_cast<size_t>(n) * rank);
  s.bias.resize(static_cast<size_t>(n));
  for (size_t v = 0; v < static_cast<size_t>(n); ++v) {
    s.community[v] = static_cast<uint16_t>(rng.below(static_cast<uint64_t>(spec.communities)));
    for (size_t f = 0; f < rank; ++f)
      s.factors[v * rank + f] =
          centroids[s.community[v] * rank + f] + static_cast<float>(private_sd * rng.normal());
    s.bias[v] = static_cast<float>(bias_sd * rng.normal());
  }
  return s;
}

/// A line "a,b[,c]\n" of decimal numbers.
class LineBuilder {
 public:
  LineBuilder& num(uint64_t v) {
    if (p_ != buf_) *p_++ = ',';
    p_ = std::to_chars(p_, buf_ + sizeof buf_, v).ptr;
    return *this;
  }
  void emit(StreamingFileWriter& w) {
    *p_++ = '\n';
    w.write(std::string_view(buf_, static_cast<size_t>(p_ - buf_)));
    p_ = buf_;
  }

 private:
  char buf_[96];
  char* p_ = buf_;
};

/// Each node links to graph_k others of its community (all of them when fewer): one
/// "a,b" line per link, 1-based ids; the loader adds the reverse edges.
int64_t write_graph(const std::string& path, const Side& side, int64_t k, uint64_t seed, uint64_t purpose,
                    uint64_t& bytes) {
  const size_t n = side.community.size();
  std::vector<std::vector<uint32_t>> members(*std::max_element(side.community.begin(), side.community.end()) +
                                             1u);
  for (size_t v = 0; v < n; ++v) members[side.community[v]].push_back(static_cast<uint32_t>(v));
  std::vector<uint32_t> mark(n, 0);
  StreamingFileWriter out(path);
  LineBuilder line;
  int64_t lines = 0;
  for (size_t v = 0; v < n; ++v) {
    const std::vector<uint32_t>& m = members[side.community[v]];
    const auto stamp = static_cast<uint32_t>(v + 1);
    mark[v] = stamp;
    if (static_cast<int64_t>(m.size()) - 1 <= k) {
      for (uint32_t w : m)
        if (w != v) line.num(v + 1).num(w + 1).emit(out), ++lines;
      continue;
    }
    Rng rng = stream(seed, purpose, v);
    for (int64_t picked = 0; picked < k;) {
      const uint32_t w = m[rng.below(m.size())];
      if (mark[w] == stamp) continue;
      mark[w] = stamp;
      line.num(v + 1).num(w + 1).emit(out);
      ++picked, ++lines;
    }
  }
  out.commit();
  bytes += out.bytes_written();
  return lines;
}

std::string with_commas(int64_t v) {
  std::string s = std::to_string(v);
  for (int k = static_cast<int>(s.size()) - 3; k > 0; k -= 3) s.insert(static_cast<size_t>(k), ",");
  return s;
}

const char* const kFiles[] = {"ratings.csv", "test.csv", "user_graph.csv", "item_graph.csv", "data.conf"};

}  // namespace

bool generate_preset(const std::string& name, GenerateSpec& spec) {
  if (name == "ml10m-like") {
    spec.users = 69878, spec.items = 10677, spec.ratings = 10000000;
    return true;
  }
  if (name == "netflix-like") {
    spec.users = 480189, spec.items = 17770, spec.ratings = 100000000;
    return true;
  }
  return false;
}

void check_generate_spec(const GenerateSpec& s) {
  const auto bad = [](const std::string& what) { throw UsageError(what); };
  if (s.users < 1 || s.users > (int64_t{1} << 31))
    bad("--users " + std::to_string(s.users) + ": must be in 1..2147483648");
  if (s.items < 1 || s.items > (int64_t{1} << 31))
    bad("--items " + std::to_string(s.items) + ": must be in 1..2147483648");
  if (s.ratings < std::max(s.users, s.items))
    bad("--ratings " + std::to_string(s.ratings) + ": must be at least max(--users, --items) = " +
        std::to_string(std::max(s.users, s.items)) + " (every user and item needs a training rating)");
  if (static_cast<double>(s.ratings) > static_cast<double>(s.users) * static_cast<double>(s.items))
    bad("--ratings " + std::to_string(s.ratings) +
        ": more than --users x --items = " + std::to_string(s.users * s.items) + " distinct pairs");
  if (!(s.test_fraction > 0.0 && s.test_fraction < 1.0))
    bad("--test-fraction " + std::to_string(s.test_fraction) + ": must be in (0, 1)");
  if (std::llround(s.test_fraction * static_cast<double>(s.ratings)) < 1)
    bad("--test-fraction " + std::to_string(s.test_fraction) + ": leaves no test rating out of " +
        std::to_string(s.ratings));
  if (s.graph_k < 0 || s.graph_k > 100000)
    bad("--graph-k " + std::to_string(s.graph_k) + ": must be in 0..100000");
  for (const auto& [name, v] : {std::pair<const char*, double>{"--user-exponent", s.user_exponent},
                                {"--item-exponent", s.item_exponent}})
    if (!(v >= 0.0 && v <= 4.0)) bad(std::string(name) + " " + std::to_string(v) + ": must be in 0..4");
  if (s.out_dir.empty()) bad("--out: a folder is required");
  std::error_code ec;
  if (fs::exists(s.out_dir, ec) && !fs::is_directory(s.out_dir, ec))
    bad("--out " + s.out_dir + ": exists and is not a folder");
  if (!s.overwrite)
    for (const char* f : kFiles)
      if (fs::exists(fs::path(s.out_dir) / f, ec))
        bad("--out " + s.out_dir + ": already holds " + f + " (pass --overwrite to replace the set)");
}

GenerateSummary generate_dataset(const GenerateSpec& spec,
                                 const std::function<void(const std::string&)>& progress) {
  check_generate_spec(spec);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::error_code ec;
  fs::create_directories(spec.out_dir, ec);
  if (ec) throw Error(spec.out_dir + ": cannot create the folder (" + ec.message() + ")");
  const fs::path dir = fs::absolute(spec.out_dir).lexically_normal();
  // data.conf announces a complete set: an old one goes first, so that a run that fails
  // part-way never leaves it pointing at new ratings beside old graphs.
  fs::remove(dir / "data.conf", ec);

  const auto n1 = static_cast<size_t>(spec.users), n2 = static_cast<size_t>(spec.items);
  const std::vector<uint32_t> degree = user_degrees(spec);
  const Side users = make_side(spec.users, spec, 1, 0.35);
  const Side items = make_side(spec.items, spec, 2, 0.35);
  std::vector<double> popularity(n2);
  {
    const std::vector<uint32_t> item_at_rank = permutation(n2, stream(spec.seed, kItemRank));
    const std::vector<double> w = zipf_by_rank(n2, spec.item_exponent, 0.005);
    for (size_t r = 0; r < n2; ++r) popularity[item_at_rank[r]] = w[r];
  }
  const AliasTable by_popularity(popularity);

  // Coverage: user u takes forced[u] items not yet covered (in id order) before drawing by
  // popularity, so every item has a training rating. As many as its share of the items,
  // more when the users after it could not take the rest.
  std::vector<uint32_t> forced(n1);
  uint64_t protected_count = 0;
  {
    std::vector<uint64_t> after(n1 + 1, 0);
    for (size_t u = n1; u-- > 0;) after[u] = after[u + 1] + degree[u];
    uint64_t covered = 0;
    for (size_t u = 0; u < n1; ++u) {
      const auto share = static_cast<uint64_t>((static_cast<unsigned __int128>(u + 1) * n2 + n1 - 1) / n1);
      const uint64_t must = n2 - covered > after[u + 1] ? n2 - covered - after[u + 1] : 0;
      const uint64_t want = std::max(share > covered ? share - covered : 0, must);
      forced[u] = static_cast<uint32_t>(std::min<uint64_t>({want, degree[u], n2 - covered}));
      covered += forced[u];
      protected_count += std::max<uint32_t>(forced[u], 1);  // a user's first rating trains too
    }
  }
  const auto ratings = static_cast<uint64_t>(spec.ratings);
  auto test_left = static_cast<uint64_t>(std::llround(spec.test_fraction * static_cast<double>(ratings)));
  uint64_t eligible_left = ratings - protected_count;
  if (test_left > eligible_left)
    throw UsageError("--test-fraction " + std::to_string(spec.test_fraction) + ": asks for " +
                     std::to_string(test_left) + " test ratings but only " + std::to_string(eligible_left) +
                     " can be held out (each user and item keeps a training rating)");

  GenerateSummary sum;
  StreamingFileWriter train_out((dir / "ratings.csv").string());
  StreamingFileWriter test_out((dir / "test.csv").string());
  train_out.write("user,item,rating\n");
  test_out.write("user,item,rating\n");
  const auto rank = static_cast<size_t>(spec.rank);
  const uint32_t heavy = static_cast<uint32_t>(n2 / 4);
  std::vector<uint32_t> mark(n2, 0), item_count(n2, 0);
  std::vector<std::pair<uint32_t, bool>> chosen;  // (item, kept for training)
  std::vector<std::pair<double, uint32_t>> keys;
  LineBuilder line;
  uint64_t next_cover = 0, star_sum = 0, done = 0;
  double last_report = 0;
  for (size_t u = 0; u < n1; ++u) {
    Rng rng = stream(spec.seed, kUserRatings, u);
    const auto stamp = static_cast<uint32_t>(u + 1);
    chosen.clear();
    for (uint32_t f = 0; f < forced[u]; ++f) {
      const auto i = static_cast<uint32_t>(next_cover++);
      mark[i] = stamp;
      chosen.emplace_back(i, true);
    }
    const uint32_t draws = degree[u] - forced[u];
    if (draws > heavy) {
      // Many items: weighted sampling without replacement in one pass (Efraimidis-Spirakis
      // keys log(U)/w, the largest win), where rejection would keep hitting chosen items.
      keys.clear();
      for (uint32_t i = 0; i < n2; ++i)
        if (mark[i] != stamp) keys.emplace_back(std::log(1.0 - rng.uniform()) / popularity[i], i);
      std::nth_element(keys.begin(), keys.begin() + draws, keys.end(), std::greater<>());
      for (uint32_t k = 0; k < draws; ++k) chosen.emplace_back(keys[k].second, false);
    } else {
      for (uint32_t k = 0; k < draws;) {
        const uint32_t i = by_popularity.draw(rng);
        if (mark[i] == stamp) continue;
        mark[i] = stamp;
        chosen.emplace_back(i, false);
        ++k;
      }
    }
    std::sort(chosen.begin(), chosen.end());
    if (forced[u] == 0) chosen.front().second = true;
    const float* p = &users.factors[u * rank];
    for (const auto& [i, keep] : chosen) {
      const float* q = &items.factors[static_cast<size_t>(i) * rank];
      double score = 3.53 + users.bias[u] + items.bias[i] + 0.75 * rng.normal();
      for (size_t f = 0; f < rank; ++f) score += static_cast<double>(p[f]) * q[f];
      const auto star = static_cast<uint64_t>(std::clamp<long>(std::lround(score), 1, 5));
      bool to_test = false;
      if (!keep) {
        // Selection sampling (Knuth's Algorithm S): exactly test_left of the eligible.
        to_test = rng.uniform() * static_cast<double>(eligible_left) < static_cast<double>(test_left);
        --eligible_left;
        if (to_test) --test_left;
      }
      line.num(u + 1).num(i + 1).num(star).emit(to_test ? test_out : train_out);
      ++(to_test ? sum.test : sum.train);
      star_sum += star;
      ++item_count[i];
    }
    sum.max_user_degree = std::max<int64_t>(sum.max_user_degree, degree[u]);
    done += degree[u];
    if (progress && elapsed() - last_report >= 3.0) {
      last_report = elapsed();
      progress("generate: " + std::to_string(done * 100 / ratings) + "% (" +
               with_commas(static_cast<int64_t>(done)) + " of " + with_commas(spec.ratings) + " ratings), " +
               std::to_string(std::lround(last_report)) + " s");
    }
  }
  train_out.commit();
  test_out.commit();
  sum.bytes += train_out.bytes_written() + test_out.bytes_written();
  sum.mean_rating = static_cast<double>(star_sum) / static_cast<double>(ratings);
  sum.max_item_degree = *std::max_element(item_count.begin(), item_count.end());

  std::string conf = "# written by symgnn data generate: " + with_commas(spec.users) + " users x " +
                     with_commas(spec.items) + " items, " + with_commas(spec.ratings) + " ratings, seed " +
                     std::to_string(spec.seed) + "\n";
  conf += "data.source = " + (dir / "ratings.csv").string() + "\n";
  conf += "data.test_file = " + (dir / "test.csv").string() + "\n";
  if (spec.graph_k > 0) {
    if (progress) progress("generate: graphs (" + std::to_string(spec.graph_k) + " links per node)");
    sum.user_edges =
        write_graph((dir / "user_graph.csv").string(), users, spec.graph_k, spec.seed, kUserGraph, sum.bytes);
    sum.item_edges =
        write_graph((dir / "item_graph.csv").string(), items, spec.graph_k, spec.seed, kItemGraph, sum.bytes);
    conf += "data.user_graph_file = " + (dir / "user_graph.csv").string() + "\n";
    conf += "data.item_graph_file = " + (dir / "item_graph.csv").string() + "\n";
  } else {
    // A stale graph of an earlier set in this folder must not be read with this one.
    fs::remove(dir / "user_graph.csv", ec);
    fs::remove(dir / "item_graph.csv", ec);
  }
  write_text_atomic((dir / "data.conf").string(), conf, Integrity::none);
  sum.bytes += conf.size();
  sum.seconds = elapsed();
  return sum;
}

}  // namespace symgnn::data
