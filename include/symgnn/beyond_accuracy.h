// Beyond-accuracy figures of ranked lists (docs/recommend.md, "Beyond accuracy"): what the
// lists show, measured against the catalogue's training ratings rather than against
// held-out ratings. For each cut-off k, over the same users as the accuracy figures
// (symgnn/ranking.h: those with a relevant test item), each user's list L the first
// min(k, |list|) entries, c_i item i's number of distinct training raters, U the users:
//
//  - novelty        mean over users of the mean over L of -log2(max(c_i, 1) / U): the mean
//                   self-information of what is shown (Zhou et al., PNAS 2010; Vargas and
//                   Castells, RecSys 2011); higher is less obvious;
//  - avg_popularity mean over users of the mean c_i over L (ARP, Abdollahpouri et al.,
//                   FLAIRS 2019); lower leans less on the most-rated items;
//  - long_tail      mean over users of the share of L outside the head, the ceil(20 %) most
//                   rated items (ties: the lower index in the head; Abdollahpouri et al.,
//                   RecSys 2017); higher shows more of the tail;
//  - gini           the Gini index of exposure over the whole catalogue: with e_i the number of
//                   lists holding item i, sorted ascending e_(1) <= ... <= e_(n),
//                   G = sum_j (2j - n - 1) e_(j) / (n sum_j e_(j)) (0: every item shown
//                   equally often; towards 1: a few items take every slot; RecBole's
//                   GiniIndex); 0 when no list holds anything;
//  - diversity      intra-list diversity: mean over users with |L| >= 2 of the mean over the
//                   pairs of L of 1 - cos(v_a, v_b) (Ziegler et al., WWW 2005), v_i item i's
//                   vector: its row of the item graph where the model has one, else its
//                   binary column of training ratings (co-rating cosine); an item with a zero
//                   vector has similarity 0 to every other.
//
// Torch-free, so it is tested against brute force (tests/eval/test_beyond_accuracy.cpp);
// computed in src/eval/beyond_accuracy.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace symgnn::eval {

/// What the lists are measured against.
struct CatalogueProfile {
  int64_t users = 0;            // U
  std::vector<int64_t> raters;  // c_i, one per item
  /// The items' vectors v_i for diversity, as sparse rows: item i's entries are
  /// (index[p], value[p]) for p in [ptr[i], ptr[i + 1]), indices ascending.
  std::vector<int64_t> ptr, index;
  std::vector<float> value;
  std::string basis;  // what the vectors are: "item graph" or "co-ratings"
};

struct BeyondAccuracyAtK {
  int64_t k = 0;
  double novelty = 0, avg_popularity = 0, long_tail = 0, gini = 0, diversity = 0;
};

/// The figures' names in BeyondAccuracyAtK, in print order.
const std::vector<std::string>& beyond_accuracy_names();
/// The value of figure `name` in `a`; std::invalid_argument for another name.
double beyond_accuracy_value(const BeyondAccuracyAtK& a, const std::string& name);

/// Accumulates lists into the figures above. ks as RankingAccumulator's; the profile's
/// sizes must agree (ptr n + 1 long); std::invalid_argument otherwise.
class BeyondAccuracyAccumulator {
 public:
  BeyondAccuracyAccumulator(std::vector<int64_t> ks, CatalogueProfile profile);
  /// One user's ranked list (item indices, best first; entries past the largest k ignored).
  /// std::invalid_argument for an item outside the catalogue.
  void add(const std::vector<int64_t>& ranked);
  std::vector<BeyondAccuracyAtK> report() const;
  const CatalogueProfile& profile() const { return p_; }

 private:
  double cosine(int64_t a, int64_t b) const;

  std::vector<int64_t> ks_;
  int64_t max_k_ = 0;
  CatalogueProfile p_;
  std::vector<double> norm_;                                     // |v_i|
  std::vector<char> head_;                                       // 1 for the head's items
  std::vector<double> novelty_, popularity_, tail_, diversity_;  // sums per k
  std::vector<int64_t> diverse_users_;                           // users with |L| >= 2, per k
  std::vector<std::vector<int64_t>> exposure_;                   // per k: e_i
  int64_t users_ = 0;
};

}  // namespace symgnn::eval
