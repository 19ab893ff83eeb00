// symgnn: why a model scores an item for a user (docs/explain.md).
//
// explain() splits one score into the parts its inputs contribute, named by original ids:
// "you rated Heat (5)", "ann, whom you follow, rated it (5)", "Heat, linked to it in the
// item graph, which you rated (4)". Two methods, by kind:
//   exact      the kinds linear in their inputs (EASE, ItemKNN, the item-based ranker's
//              linear part, both Sylv. kinds): the parts sum to the score;
//   occlusion  the learned kinds (lowrank, base): a part is how much the score drops when
//              that one input (one of your ratings, one of your user-graph edges, one of
//              the item's item-graph edges) is taken out and the model recomputed with its
//              trained weights; the parts need not sum to the score.
// `symgnn explain`, GET /v1/explain and Python's explain() all call it.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace symgnn {

class TrainedModel;

/// One part of an explained score.
struct ExplanationPart {
  /// "rated" (a rating of yours), "neighbour" (a rating of the item by another user),
  /// "path" (another user's rating of another item, through both graphs), "user_edge" (an
  /// edge of yours in the user graph), "item_edge" (an edge of the item in the item graph),
  /// "constant" (a part no input owns: the mean rating, the deep path) or "rest" (the parts
  /// not shown, summed).
  std::string source;
  int64_t user = -1;             // the rater of a rating part, the neighbour of a user_edge
  int64_t item = -1;             // the item of a rating part, the other end of an item_edge
  std::string user_id, item_id;  // their original ids ("" where the index is -1)
  float rating = 0;              // the value of a rating part
  /// rated: the item is linked to the explained one in the item graph; neighbour and path:
  /// the user is linked to you in the user graph.
  bool linked = false;
  /// rated: the item is among the explained one's most similar (the item k-NN member of
  /// train.auto's combination: the same people rate both alike).
  bool similar = false;
  int64_t count = 0;  // rest: how many parts it sums
  double value = 0;   // its part of the score (occlusion: the score's drop without it)
  double share = 0;   // value / score (exact), value / sum of |value| (occlusion)
  std::string text;   // the part in words
};

struct Explanation {
  int64_t user = -1, item = -1;
  std::string user_id, item_id;
  /// "list": the score the lists rank by (the ranker's, where the model has one);
  /// "rating": the predicted rating (unclipped).
  std::string target;
  std::string model;   // the kind explained, e.g. "ease", "lowrank-G"
  std::string method;  // one line: the formula or the method
  bool exact = false;  // the parts (with "rest") sum to `score`
  double score = 0;
  std::vector<ExplanationPart> parts;  // largest |value| first, then "rest" where exact
  /// An exact split in one sentence, over all its parts (not only those shown), where
  /// ratings of linked or similar items or of linked people count: "2 people you follow
  /// rated it (4.5 on average); you rated 3 items the same people rate alike (3 on
  /// average)". Empty elsewhere.
  std::string sentence;
};

struct ExplainOptions {
  std::string target = "list";  // "list" or "rating"
  int64_t top = 5;              // parts shown; the others are summed into "rest" (exact)
  /// Occlusion: the most inputs recomputed (each is one forward pass of the model). Your
  /// user-graph and the item's item-graph edges come first, then your ratings of the items
  /// most like the explained one by the model's representations.
  int64_t candidates = 24;
  /// Display name of an item index ("" or no function: its original id).
  std::function<std::string(int64_t)> item_name;
};

/// Why `model` scores `item` for `user` (indices of the model's data). Throws ConfigError
/// for an unknown target, or a kind or saved state that cannot say, DataError for an index
/// out of range.
Explanation explain(const TrainedModel& model, int64_t user, int64_t item,
                    const ExplainOptions& options = {});

/// The explanation as JSON: user, item, target, model, method, exact, score and parts
/// (source, user, item, rating, linked, count, value, share, text), ids as strings.
nlohmann::json explanation_json(const Explanation& e);

}  // namespace symgnn
