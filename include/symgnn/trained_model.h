// symgnn: a trained model loaded for prediction, ranking and evaluation.
//
// `symgnn train --out DIR` writes DIR/model.pt: the run's config and weights (every
// averaged checkpoint when train.average_last > 1), and DIR/dataset.bin, the data it
// trained on. Loading rebuilds the model from that config over that data (the graphs and
// the training ratings are inputs of the forward pass), then loads the weights;
// predictions are the mean over the checkpoints, clipped to the rating range. `predict`,
// `recommend` and `evaluate` (src/cli/) are thin layers over this class and recommend.h.
// Torch stays behind the pimpl.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/delta.h"

namespace symgnn {

namespace infer {
struct ModelParts;  // infer/model_parts.h
class ColdLists;    // infer/cold_lists.h
}  // namespace infer

/// The files of a change, as the CLI's --new-* flags, a refresh folder and Python's new_*
/// arguments name them: in the formats of the data keys of the same names (docs/config.md),
/// with original ids. Only the ratings bring new ids; the other files describe ids that are
/// new (absent from training, present in the ratings). They become Deltas at those edges,
/// read once by infer/new_node_files.h against the model's data; the growth never opens them.
struct NewNodeFiles {
  std::string ratings;             // "user,item,rating": the new nodes' ratings
  std::string user_graph_file;     // "a,b[,w]" edges: of a new user, or between trained users (an edit)
  std::string item_graph_file;     // the same for items
  std::string user_features_file;  // "id,f1,..." one row per new user
  std::string item_features_file;  // "id,f1,..." one row per new item
  bool empty() const {
    return ratings.empty() && user_graph_file.empty() && item_graph_file.empty() &&
           user_features_file.empty() && item_features_file.empty();
  }
};

/// What is known about users and items absent from training (inductive prediction,
/// TrainedModel::load and with_new_nodes), as Deltas (symgnn/delta.h): the rows of files
/// read at the edges, then rows given in memory (serve's POST, Python's arrays, evaluate's
/// new-users protocol). Each is checked by the rules of the files of its kinds
/// (data/parsers.h); errors name a file's rows by their lines, and rows in memory by Delta's
/// names (a rating as ratings_name[k], an edge or feature row as line k + 1).
struct NewNodes {
  /// Each file a Delta named by its path, in the order ratings, user graph, item graph, user
  /// features, item features (infer::read_new_node_files).
  std::vector<Delta> files;
  Delta rows;
  /// The files' Deltas, then `rows`: the order every part is checked and joined in.
  std::vector<const Delta*> parts() const {
    std::vector<const Delta*> out;
    for (const Delta& f : files) out.push_back(&f);
    out.push_back(&rows);
    return out;
  }
  bool empty() const {
    for (const Delta* part : parts())
      if (!part->empty()) return false;
    return true;
  }
};

/// What NewNodes added to a loaded model's data (TrainedModel::load).
struct NewRatingsSummary {
  std::string file;
  int64_t ratings = 0;         // ratings read
  int64_t new_users = 0;       // ids absent from training, appended as users
  int64_t new_items = 0;       // ids absent from training, appended as items
  int64_t user_edges = 0;      // graph entries added to the new users' rows (file or k-NN)
  int64_t item_edges = 0;      // graph entries added to the new items' rows
  int64_t user_edits = 0;      // graph-file entries between two trained users: set in both directions
  int64_t item_edits = 0;      // the same between two trained items (symgnn/graph_edit.h)
  int64_t user_features = 0;   // new users given feature rows (the others have zeros)
  int64_t item_features = 0;   // new items given feature rows
  std::string user_graph_how;  // "file", "k-NN of ...", or "" (no graph): how new users were linked
  std::string item_graph_how;
  int64_t linked_users = 0;        // new users known by their user-graph links alone (no rating)
  int64_t linked_users_links = 0;  // graph entries naming them (a symmetric file gives a link twice)
  std::string linked_users_file;   // that file
};

/// One neighbour of TrainedModel::similar: a node index and its cosine similarity.
struct SimilarNode {
  int64_t index = 0;
  float similarity = 0.0f;
};

class TrainedModel {
 public:
  /// `path`: a directory written by `symgnn train --out` or its model.pt. `device`: "cpu"
  /// or "cuda[:N]". Throws DataError when there is no model there or it does not match
  /// its data.
  ///
  /// `files` (read against the saved model's data, infer/new_node_files.h) and then `rows`,
  /// for inductive prediction: the ratings of users (or items) absent from
  /// training join the data as training ratings of new nodes, and the model computes those
  /// nodes' representations from them with the trained weights. New nodes join the graphs
  /// as rows that gather from their neighbours (nothing of training links back to them):
  /// a k-NN graph links each to its graph.knn_k nearest nodes by the vectors it was built
  /// from (rating rows or features); a file graph takes the edges given (the graph files, the
  /// edge rows). Their side features are the rows of the
  /// features files, zeros without. The weight rows a model keeps per node (free
  /// embeddings, per-node gates, id inputs) are zero for new nodes. The rating mean and
  /// scale the model was trained with are kept. Learned models only.
  static TrainedModel load(const std::string& path, const std::string& device, const NewNodeFiles& files,
                           const Delta& rows = Delta{});
  /// load() with new ratings only (`new_ratings` may be empty: none).
  static TrainedModel load(const std::string& path, const std::string& device = "cpu",
                           const std::string& new_ratings = "");
  /// This model grown by `new_nodes` as load() grows the saved one, from the weights and
  /// data in memory, so that an answer comes from the model a request started with, whatever
  /// the folder on disk holds now (docs/reliability.md). Its ranker grows too where its kind
  /// places new nodes. The growth the door chooses (symgnn/update.h) where a change cannot be
  /// folded in or patched: front ends changing a model call apply().
  TrainedModel with_new_nodes(const NewNodes& new_nodes) const;
  /// Makes ahead what a user's fold-in (apply(..., Keep::user), symgnn/update.h) reads on its first call
  /// (RatingModel::prepare_folds: a trace of the forward pass, about six n x d tensors per member), so that a
  /// server's first new user is as quick as the others. Not thread-safe itself: call it before sharing the
  /// model.
  void prepare_fold_ins();
  /// The positions in dataset().train of user `user`'s ratings, ascending (an index built on
  /// first use, once).
  const std::vector<int64_t>& training_ratings_of(int64_t user) const;
  /// The index of a user (item) id, -1 where none (an index built on first use, once).
  int64_t user_index(const std::string& id) const;
  int64_t item_index(const std::string& id) const;
  /// A model held in memory (symgnn::fit evaluates what it has just trained this way).
  explicit TrainedModel(infer::ModelParts&& parts);
  TrainedModel(TrainedModel&&) noexcept;
  TrainedModel& operator=(TrainedModel&&) noexcept;
  ~TrainedModel();

  const RunConfig& config() const;
  /// The model's data as loaded from its config, graphs resolved. When the run retrained
  /// on all training ratings (train.protocol = retrain) the saved config has no
  /// validation carve, so `train` holds every rating the model learned from.
  const Dataset& dataset() const;
  int64_t users() const;
  int64_t items() const;
  float rating_min() const;
  float rating_max() const;
  /// Mean of the training ratings.
  float global_mean() const;
  /// Model name, e.g. "lowrank-G".
  std::string name() const;

  /// Predicted ratings of the index pairs (users[k], items[k]).
  std::vector<float> predict(const std::vector<int64_t>& users, const std::vector<int64_t>& items) const;
  /// The model's ranking scores of every item for each of `users`, row-major, users.size()
  /// x items(): what recommend and evaluate rank by. For a model trained for ratings, the
  /// predictions before clipping to the rating range (items predicted above the top rating
  /// still rank apart); for one trained or fitted for ranking, its own scores
  /// (RatingModel::score_items).
  std::vector<float> score_all_items(const std::vector<int64_t>& users) const;
  /// Predicted ratings (unclipped) of every item for each of `users`, row-major.
  std::vector<float> rating_all_items(const std::vector<int64_t>& users) const;
  /// Computes score_all_items() and rating_all_items() of every user once and answers them
  /// from memory from then on (a server's lists in microseconds instead of a forward pass
  /// each), where users() x items() <= max_pairs: 8 bytes a pair. Returns whether it did.
  /// Not thread-safe itself: call it before sharing the model between threads.
  bool cache_all_scores(int64_t max_pairs);
  /// Whether cache_all_scores() holds the scores.
  bool scores_cached() const;
  /// Whether score_all_items() are the predicted ratings: the model was trained for ratings
  /// only (objective rating, the Sylv. baseline), not for ranking, and no ranker was fitted
  /// beside it.
  bool ranks_by_rating() const;
  /// The kind of the ranker fitted beside the model (train.ranker: "ease", "itemknn"), whose
  /// scores score_all_items() returns while predict() and rating_all_items() come from the
  /// model; "" when the model ranks by its own scores. A model loaded with new nodes keeps
  /// only a ranker that places them (elsa, given the same new ratings); with another it
  /// ranks by its own scores (EASE and ItemKNN have no rows for new users). A user without
  /// ratings (a training user with none, a user a graph edit created) is no row to a ranker,
  /// which scores from rated items alone: see cold_listed().
  std::string ranker() const;
  /// The ranker's own scores of every item for each of `users` (row-major), before the user
  /// graph's term and the items' ratings that score_all_items() adds under train.ranker_graph =
  /// user and train.ranker_quality = item (infer/ranker_graph_term.h,
  /// infer/ranker_quality_term.h); empty without a ranker.
  std::vector<float> ranker_scores(const std::vector<int64_t>& users) const;
  /// Whether the user graph's term joins the ranker's lists (train.ranker_graph = user).
  bool ranker_graph_term() const;
  /// Whether the items' ratings join the ranker's lists (train.ranker_quality = item).
  bool ranker_quality_term() const;
  /// q(i) of every item (infer/ranker_quality_term.h) from the training and validation ratings
  /// the model was fitted on (ratings added later leave it, as they leave the ranker's fit), at
  /// train.ranker_quality_shrinkage (built on first use, once; thread-safe).
  const std::vector<float>& item_quality() const;
  /// Whether `user`'s list comes from infer/cold_lists.h (what the people linked to them
  /// rated, shrunk toward popularity): a user without training ratings, where a ranker is
  /// beside the model or the model is a kind that scores users from their rated items alone
  /// (popularity, itemknn, ease, elsa), unless train.cold_lists = model.
  bool cold_listed(int64_t user) const;
  /// Whether users without ratings are listed so (cold_listed() of such a user): also a new
  /// user given by follows alone (symgnn/update.h).
  bool lists_cold() const;
  /// The cold lists of the model's data (built on first use, once; thread-safe).
  const infer::ColdLists& cold_lists() const;
  /// What ranks `user`'s list, for people: the cold list's words where cold_listed(), else
  /// ranker() or, without one, name().
  std::string ranked_by(int64_t user) const;
  /// The items each user rated in the data the model trained on (train and validation
  /// ratings), sorted ascending: what recommendations exclude.
  const std::vector<std::vector<int64_t>>& seen_items() const;
  /// The `k` nodes of `side` nearest to node `index` (itself excluded), most similar first
  /// (ties by index): by the cosine of the model's own representations where the kind has
  /// them (RatingModel::node_representations; the members of an averaged model side by
  /// side), else by the cosine of the binary training interactions (co-ratings; nodes that
  /// share none are left out, so fewer than k may come back). Computed on first use, once
  /// (thread-safe); then each call is one product with the unit rows.
  std::vector<SimilarNode> similar(NodeSide side, int64_t index, int64_t k) const;
  /// What similar() compares for `side`: "representations" or "co-ratings".
  std::string similarity_basis(NodeSide side) const;
  /// "" when the model's data came from the snapshot its directory pins (dataset.bin: the
  /// directory needs none of the training files); else a one-line note that a directory
  /// written by an older symgnn read its config's files again.
  const std::string& data_note() const;
  /// What load()'s new nodes added (all zero without).
  const NewRatingsSummary& new_ratings() const;
  /// What the model holds (infer/model_parts.h): for the library's own layers that need its
  /// tensors (symgnn/export.h), not for callers.
  const infer::ModelParts& parts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace symgnn
