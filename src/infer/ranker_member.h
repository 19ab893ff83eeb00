/// @file
/// The ranker beside a model (train.ranker, fit/ranker.h) as a member with a role: it orders
/// the lists while the model's members predict ratings. It holds the ranker as fitted (a model
/// directory of its own, loaded as a TrainedModel) and, once new nodes joined the model, the
/// users whose rows it computes from their rated items (RatingModel::score_rated_items) rather
/// than from its fitted state: a served model's new user costs their row alone. Every way a
/// model changes asks it once: grown() for new nodes and refreshes, with_created_nodes() for the
/// nodes a graph edit creates; a graph edit of links alone keeps it as it is (the closed-form
/// rankers read no graph at scoring).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace symgnn {
class TrainedModel;
struct Dataset;
struct NewNodes;
struct NewRatingsSummary;
}  // namespace symgnn

namespace symgnn::infer {

class RankerMember {
 public:
  /// `model`: the ranker; `fresh`: the users (ascending) whose rows come from their rated items;
  /// `network`: the network trained for ranking whose scores join the lists (train.ranker_network
  /// = on, infer/ranker_network_term.h), or null.
  explicit RankerMember(std::shared_ptr<const TrainedModel> model, std::vector<int64_t> fresh = {},
                        std::shared_ptr<const TrainedModel> network = nullptr);

  /// The ranker's model (its config, data and members): what export, explain and saving read.
  const TrainedModel& model() const { return *model_; }
  const std::shared_ptr<const TrainedModel>& model_ptr() const { return model_; }
  std::string name() const;
  /// The network trained for ranking beside the ranker (null: none; held only where
  /// train.ranker_network = on, by the fit and by TrainedModel::load), as fitted: it keeps its
  /// nodes when the model grows, and a node it was not fitted on gets no term.
  const std::shared_ptr<const TrainedModel>& network() const { return network_; }
  /// Mixes the network's term into `rows` (one row of n2 list scores per user, in place;
  /// infer/ranker_network_term.h) with `weight`: rows / their largest entry unless `scaled`, plus
  /// weight x the network's scaled row, for the users the network was fitted on (the others'
  /// rows are left as they are).
  void mix_network(std::vector<float>& rows, const std::vector<int64_t>& users, int64_t n2, double weight,
                   bool scaled) const;
  /// The users whose rows come from their rated items, ascending (none: the fitted state answers all).
  const std::vector<int64_t>& fresh_users() const { return fresh_; }

  /// The ranker's own scores of every item for `users`, row-major, before any user-graph term:
  /// the fresh users' from their rated items in `seen` (the model's rated items per user), the
  /// others' as fitted.
  std::vector<float> rows(const std::vector<int64_t>& users,
                          const std::vector<std::vector<int64_t>>& seen) const;
  /// Whether it scores a user from their rated items alone (one member of a kind that places new
  /// nodes, RatingModel::score_rated_items defined): a fold-in asks it for the row.
  bool scores_from_rated_items() const;
  /// Whether such a row is linear in the rated items (RatingModel::scores_linear_in_rated_items).
  bool linear_in_rated_items() const;
  /// The rows of users given by their rated items alone (`rated[b]`), row-major on the CPU.
  std::vector<float> rated_rows(const std::vector<std::vector<int64_t>>& rated) const;

 private:
  std::shared_ptr<const TrainedModel> model_;
  std::vector<int64_t> fresh_;
  std::shared_ptr<const TrainedModel> network_;
};

/// `ranker` after its model grew by `nodes` (`grown`: the model's grown data, its ratings from
/// `fitted_ratings` on added): where it scores users from their rated items and no item was
/// added, the ranker as it is with the users of those ratings made fresh; else the ranker grown
/// by the same nodes in the same order (so the indices agree), where its kind places new nodes
/// and no earlier growth made users fresh; else none (the lists are then the model's own).
std::shared_ptr<const RankerMember> grown(const std::shared_ptr<const RankerMember>& ranker,
                                          const NewNodes& nodes, const NewRatingsSummary& added,
                                          const Dataset& grown, size_t fitted_ratings);

/// `ranker` with the nodes the model's data `ds` gained without ratings (a graph edit's created
/// nodes), appended as the model's are: rows and columns it fits from ratings they have none of.
std::shared_ptr<const RankerMember> with_created_nodes(const std::shared_ptr<const RankerMember>& ranker,
                                                       const Dataset& ds);

}  // namespace symgnn::infer
