/// @file
/// The lists of users without training ratings (train.cold_lists = neighbours): a user
/// created by a graph edit, given with follows alone, or first seen in the test split is no
/// row to a ranker that scores users from their rated items (EASE, ItemKNN, the item-based
/// ranker: an empty row scores every item 0), so their list comes from the people linked to
/// them, shrunk toward the items' popularity:
///
///   score(u, i) = (sum_{v in V_u, v rated i} r~_vi + w x p_i) / (|V_u| + w)
///
/// V_u: u's neighbours in the model's user graph (both directions of an edge, counted once,
/// unweighted) who rated anything; r~_vi = (r_vi - lo) / (hi - lo), the rating as a share of
/// the scale (a top rating counts 1, the lowest 0; 1 where every rating is equal, as in
/// implicit data); p_i = n_i / max_j n_j, the item's count of ratings as a share of the most
/// rated item's; w, the popularity term's weight (train.cold_popularity_weight: chosen on
/// validation by fit/cold_list_choice.h under train.cold_lists = auto). Ratings are the
/// training and validation ratings the model knows. With nobody linked who rated, or under
/// train.cold_lists = popularity, the list is popularity's. The split is exact: each
/// neighbour's rating and the popularity term are the parts of the score, which explain names.
///
/// One function for every place a list is made (TrainedModel::score_all_items: recommend,
/// evaluate, serve, Python and the train summary's figures), so that they agree.
///
/// Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symgnn/dataset.h"

namespace symgnn::infer {

/// One part of score(u, i): a linked user's rating of the item (user >= 0), or the popularity
/// term (user -1, rating the item's count of ratings).
struct ColdPart {
  int64_t user = -1;
  float rating = 0;
  double value = 0;
};

class ColdLists {
 public:
  /// `popularity_weight` w above; `popularity_only`: every list popularity's; `validation`:
  /// whether ds.validation's ratings count (fit/cold_list_choice.h leaves them out to
  /// judge the lists on them).
  explicit ColdLists(const Dataset& ds, double popularity_weight = 1.0, bool popularity_only = false,
                     bool validation = true);

  int64_t items() const { return static_cast<int64_t>(count_.size()); }
  /// The neighbours of `user` in the user graph who rated anything, ascending.
  std::vector<int64_t> rated_neighbours(int64_t user) const;
  /// score(user, i) of every item, row-major, one row per user.
  std::vector<float> rows(const std::vector<int64_t>& users) const;
  /// rows() at another popularity weight (popularity_only: popularity's lists): the choice of
  /// fit/cold_list_choice.h tries several on one index.
  std::vector<float> rows(const std::vector<int64_t>& users, double weight, bool popularity_only) const;
  /// score(u, :) of a user the model does not hold, whose neighbours in the user graph are
  /// given (a new user's follows, user indices in any order): V_u those of them who rated.
  std::vector<float> row_among(std::vector<int64_t> neighbours) const;
  /// The parts of score(user, item), the linked users' first (ascending), popularity's last;
  /// they sum to the score.
  std::vector<ColdPart> parts(int64_t user, int64_t item) const;
  /// The linked raters' term alone, which the user graph adds to a ranker's lists
  /// (infer/ranker_graph_term.h): linked(u, i) = sum_{v in V_u, v rated i} r~_vi /
  /// (|V_u| + shrinkage), row-major, one row per user (zeros for a user nobody linked rated
  /// with). V_u as above, whatever train.cold_lists says; or, on a directed graph file, the
  /// raters `direction` reaches (out: whom u follows; in: who follows u).
  std::vector<float> linked_rows(const std::vector<int64_t>& users, double shrinkage,
                                 LinkDirection direction = LinkDirection::both) const;
  /// linked(u, :) of a user whose neighbours are given (a new user's follows): those of
  /// `neighbours` who rated, each once.
  std::vector<float> linked_row(std::vector<int64_t> neighbours, double shrinkage) const;
  /// The parts of linked(user, item): one per linked rater of the item, ascending.
  std::vector<ColdPart> linked_parts(int64_t user, int64_t item, double shrinkage,
                                     LinkDirection direction = LinkDirection::both) const;
  /// `user`'s neighbours in the user graph, whether or not they rated (both directions of an
  /// edge, once), ascending: whom serve's page shows as linked to them.
  std::vector<int64_t> neighbours(int64_t user) const;
  /// V_u: `user`'s neighbours who rated anything, ascending (whatever train.cold_lists says);
  /// on a directed graph file, those `direction` reaches.
  std::vector<int64_t> linked_raters(int64_t user, LinkDirection direction = LinkDirection::both) const;
  /// Whether the user graph is a directed file's, whose links read differently each way.
  bool has_directions() const { return out_.idx.size() > 0; }
  /// Those of `neighbours` (user indices, any order) who rated, ascending and each once.
  std::vector<int64_t> linked_raters_among(std::vector<int64_t> neighbours) const;
  /// What ranks `user`'s list, for people: "the 3 people linked to them in the user graph
  /// who rated, shrunk toward popularity", or "popularity (no rating and nobody linked who rated)".
  std::string ranked_by(int64_t user) const;
  /// ranked_by() of the user of row_among(neighbours).
  std::string ranked_by_among(std::vector<int64_t> neighbours) const;
  /// Those of `neighbours` who rated `item`, ascending, each with their rating (value: its
  /// share of the scale): whom an explanation of a new user's list names.
  std::vector<ColdPart> linked_parts_among(std::vector<int64_t> neighbours, int64_t item) const;

 private:
  float lo_ = 0, hi_ = 0;
  double weight_ = 1.0;
  bool popularity_only_ = false;
  std::vector<int64_t> count_;      // n_i: ratings of each item
  std::vector<double> popularity_;  // p_i
  struct Csr {
    std::vector<int64_t> ptr{0}, idx;
  };
  Csr graph_;                                       // the user graph's neighbours, both directions
  Csr out_, in_;                                    // a directed file's links each way (empty: undirected)
  std::vector<int64_t> rated_ptr_{0}, rated_item_;  // each user's rated items, CSR by item
  std::vector<float> rated_value_;

  double share(float r) const { return hi_ > lo_ ? (static_cast<double>(r) - lo_) / (hi_ - lo_) : 1.0; }
  /// (sum_{v in linked, v rated i} r~_vi + popularity_weight x p_i) / (|linked| + shrinkage)
  /// into `row` (n2 entries): score(u, :) where both weights are w, linked(u, :) where the
  /// popularity weight is 0; `sum` is n2 doubles of scratch.
  void fill_row(const std::vector<int64_t>& linked, double shrinkage, double popularity_weight,
                std::vector<double>& sum, float* row) const;
  /// The parts of `linked` who rated `item` (ascending as given), each share over `denominator`.
  std::vector<ColdPart> parts_of(const std::vector<int64_t>& linked, int64_t item, double denominator) const;
  std::string ranked_by_count(size_t linked) const;
  bool has_ratings(int64_t v) const { return rated_ptr_[v + 1] > rated_ptr_[v]; }
  const Csr& links(LinkDirection direction) const;
  /// v's rating of `item`, or nullptr.
  const float* rating_of(int64_t v, int64_t item) const;
};

}  // namespace symgnn::infer
