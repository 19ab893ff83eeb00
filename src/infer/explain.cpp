// explain() (symgnn/explain.h): which model answers the target, its parts (exact from the
// kind, models/score_terms.h, or by occlusion, infer/explain_occlusion.h), the largest kept
// and the rest summed, each put in words.
#include "symgnn/explain.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "data/text_reader.h"
#include "infer/cold_lists.h"
#include "infer/explain_occlusion.h"
#include "infer/model_parts.h"
#include "infer/ranker_graph_term.h"
#include "infer/ranker_network_term.h"
#include "models/score_terms.h"
#include "symgnn/error.h"
#include "symgnn/model_kinds.h"
#include "symgnn/trained_model.h"
#include "util/text.h"

namespace symgnn {

namespace {

using Edges = std::set<std::pair<int64_t, int64_t>>;

Edges edges_of(const NodeSet& side) {
  Edges out;
  for (size_t e = 0; e < side.graph.src.size(); ++e)
    if (side.graph.src[e] != side.graph.dst[e]) out.insert({side.graph.src[e], side.graph.dst[e]});
  return out;
}

/// A directed graph file's links as given (NodeSet::directed): (a, b) where a follows b.
Edges links_of(const NodeSet& side) {
  Edges out;
  for (size_t e = 0; e < side.directed.size(); ++e) out.insert({side.directed.src[e], side.directed.dst[e]});
  return out;
}

/// The neighbours of `node` in `side`'s graph, ascending, itself left out.
std::vector<int64_t> neighbours(const NodeSet& side, int64_t node) {
  std::vector<int64_t> out;
  for (size_t e = 0; e < side.graph.src.size(); ++e)
    if (side.graph.src[e] == node && side.graph.dst[e] != node) out.push_back(side.graph.dst[e]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// How a user linked to another in the user graph is called, by where the graph came from.
std::string linked_user_words(const NodeSet& users) {
  return users.graph_origin == GraphOrigin::File ? "whom you follow"
                                                 : "a user like you by the k-NN user graph";
}

/// A name or id inside a sentence for people (UTF-8 kept, unlike the error messages' quote).
std::string in_quotes(const std::string& s) {
  return "'" + s + "'";
}

std::string rating_words(float r) {
  return "(" + fixed(r, r == std::floor(r) ? 0 : 2) + ")";
}

/// Puts each part in words.
struct Words {
  const Dataset& ds;
  const NodeSet& user_side;  // the model's users, whose graph names a neighbour
  const ExplainOptions& opt;
  int64_t user, item;
  Edges user_edges, item_edges;
  std::map<std::pair<int64_t, int64_t>, float> ratings;  // (user, item) -> value, train + validation
  Edges follows;  // a directed user graph's links (links_of); empty: undirected or built

  /// Whether `v`, linked to the user, is only someone who follows them (a directed graph
  /// where the user did not give the link to v).
  bool follower(int64_t v) const { return !follows.empty() && follows.count({user, v}) == 0; }
  std::string linked_words(int64_t v) const {
    return follower(v) ? "who follows you" : linked_user_words(user_side);
  }

  std::string item_name(int64_t i) const {
    const std::string n = opt.item_name ? opt.item_name(i) : "";
    return n.empty() ? in_quotes(ds.items.id_of(i)) : n;
  }
  std::string user_name(int64_t v) const { return in_quotes(ds.users.id_of(v)); }
  const float* rating_of(int64_t v, int64_t i) const {
    const auto it = ratings.find({v, i});
    return it == ratings.end() ? nullptr : &it->second;
  }

  void fill(ExplanationPart& p) const {
    if (p.user >= 0) p.user_id = ds.users.id_of(p.user);
    if (p.item >= 0) p.item_id = ds.items.id_of(p.item);
    if (p.source == "rated") {
      p.linked = item_edges.count({item, p.item}) > 0;
      p.text = "you rated " + item_name(p.item) + " " + rating_words(p.rating) +
               (p.linked ? ", which is linked to it in the item graph" : "") +
               (p.similar ? std::string(p.linked ? " and" : ",") + " which the same people rate alike" : "");
    } else if (p.source == "neighbour" || p.source == "path") {
      p.linked = user_edges.count({user, p.user}) > 0;
      const std::string who = user_name(p.user) + (p.linked ? ", " + linked_words(p.user) + "," : "");
      p.text = p.source == "neighbour" ? who + " rated it " + rating_words(p.rating)
                                       : who + " rated " + item_name(p.item) + " " + rating_words(p.rating);
    } else if (p.source == "user_edge") {
      const float* r = rating_of(p.user, item);
      p.text = "your link to " + user_name(p.user) + " (" + linked_words(p.user) + ")" +
               (r ? ", who rated it " + rating_words(*r) : "");
    } else if (p.source == "item_edge") {
      const float* r = rating_of(user, p.item);
      p.text = "its link to " + item_name(p.item) + " in the item graph" +
               (r ? ", which you rated " + rating_words(*r) : "");
    } else if (p.source == "rest") {
      p.text = std::to_string(p.count) + " other part" + (p.count == 1 ? "" : "s");
    }
  }
};

/// An exact split's parts in one sentence (Explanation::sentence): the linked people who
/// rated the item, your ratings of the items linked to it or rated alike, each group's
/// count and mean rating. `all` are every part, filled (linked, similar) by Words.
std::string in_a_sentence(const std::vector<ExplanationPart>& all, const Words& words) {
  const NodeSet& user_side = words.user_side;
  struct Group {
    int64_t count = 0;
    double sum = 0;
    void add(float r) { ++count, sum += r; }
    std::string mean() const {
      const double m = sum / static_cast<double>(count);
      return "(" + fixed(m, std::abs(m - std::round(m)) < 0.005 ? 0 : 2) + (count > 1 ? " on average)" : ")");
    }
  };
  Group people, followers, linked_items, similar_items;
  for (const ExplanationPart& p : all) {
    if (p.source == "neighbour" && p.linked) (words.follower(p.user) ? followers : people).add(p.rating);
    if (p.source == "rated" && p.linked) linked_items.add(p.rating);
    if (p.source == "rated" && p.similar) similar_items.add(p.rating);
  }
  std::vector<std::string> said;
  const auto plural = [](int64_t n, const std::string& one, const std::string& many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  if (people.count > 0)
    said.push_back(user_side.graph_origin == GraphOrigin::File
                       ? plural(people.count, "person you follow", "people you follow") + " rated it " +
                             people.mean()
                       : plural(people.count, "user like you", "users like you") +
                             " (the k-NN user graph) rated it " + people.mean());
  if (followers.count > 0)
    said.push_back(plural(followers.count, "person who follows you", "people who follow you") + " rated it " +
                   followers.mean());
  if (linked_items.count > 0)
    said.push_back("you rated " + plural(linked_items.count, "item", "items") +
                   " linked to it in the item graph " + linked_items.mean());
  if (similar_items.count > 0)
    said.push_back("you rated " + plural(similar_items.count, "item", "items") +
                   " the same people rate alike " + similar_items.mean());
  std::string out;
  for (const std::string& s : said) out += (out.empty() ? "" : "; ") + s;
  return out;
}

/// The rating parts of an exact split, named by who rated what.
ExplanationPart rating_part(const models::ScoreTerm& t, const Words& w) {
  ExplanationPart p;
  p.value = t.value;
  if (t.user < 0) {
    p.source = "constant";
    p.text = t.what;
    return p;
  }
  p.user = t.user, p.item = t.item;
  p.source = t.user == w.user ? "rated" : t.item == w.item ? "neighbour" : "path";
  p.similar = p.source == "rated" && t.what == models::kSimilarItemTerm;
  if (const float* r = w.rating_of(t.user, t.item)) p.rating = *r;
  return p;
}

/// The largest `top` parts by |value| (ties: as given), then the others summed as "rest".
std::vector<ExplanationPart> largest(std::vector<ExplanationPart> parts, int64_t top, bool sum_rest) {
  std::stable_sort(parts.begin(), parts.end(), [](const ExplanationPart& a, const ExplanationPart& b) {
    return std::abs(a.value) > std::abs(b.value);
  });
  if (static_cast<int64_t>(parts.size()) <= top) return parts;
  ExplanationPart rest;
  rest.source = "rest";
  for (size_t k = static_cast<size_t>(top); k < parts.size(); ++k) rest.value += parts[k].value, ++rest.count;
  parts.resize(static_cast<size_t>(top));
  if (sum_rest) parts.push_back(rest);
  return parts;
}

/// The mean of the members' splits: the parts of one input (rating, or a named constant)
/// averaged over the members, in the order they first appear.
models::ScoreTerms mean_terms(const std::vector<models::ExplainsScores*>& members, int64_t user, int64_t item,
                              const Dataset& ds) {
  models::ScoreTerms out;
  std::map<std::tuple<int64_t, int64_t, std::string>, size_t> at;
  const auto m = static_cast<double>(members.size());
  for (models::ExplainsScores* member : members) {
    models::ScoreTerms t = member->score_terms(user, item, ds);
    if (out.method.empty()) out.method = t.method;
    out.score += t.score / m;
    for (models::ScoreTerm& term : t.terms) {
      const auto key = std::make_tuple(term.user, term.item, term.what);
      const auto [it, added] = at.emplace(key, out.terms.size());
      if (added) {
        term.value /= m;
        out.terms.push_back(std::move(term));
      } else {
        out.terms[it->second].value += term.value / m;
      }
    }
  }
  if (members.size() > 1)
    out.method += " (the mean over the " + std::to_string(members.size()) + " saved weight sets)";
  return out;
}

/// The candidates occlusion recomputes: the user's and the item's graph edges first (at most
/// half the budget where ratings compete), then the user's training ratings of the items
/// nearest the explained one by the members' item representations.
std::vector<infer::OccludedInput> occlusion_candidates(const infer::ModelParts& parts, int64_t user,
                                                       int64_t item, int64_t budget) {
  using Kind = infer::OccludedInput::Kind;
  const Dataset& ds = parts.ds;
  const ModelKind& kind = model_kind(parts.cfg.model);
  std::vector<infer::OccludedInput> edges, ratings;
  // The two sides' edges taken in turn, so that a cut budget keeps some of each.
  const std::vector<int64_t> near_users =
      kind_reads_graph(kind, "user") ? neighbours(ds.users, user) : std::vector<int64_t>{};
  const std::vector<int64_t> near_items =
      kind_reads_graph(kind, "item") ? neighbours(ds.items, item) : std::vector<int64_t>{};
  for (size_t k = 0; k < std::max(near_users.size(), near_items.size()); ++k) {
    if (k < near_users.size()) edges.push_back({Kind::user_edge, user, near_users[k]});
    if (k < near_items.size()) edges.push_back({Kind::item_edge, item, near_items[k]});
  }
  std::vector<int64_t> rated;
  for (size_t e = 0; e < ds.train.size(); ++e)
    if (ds.train.user[e] == user && ds.train.item[e] != item) rated.push_back(ds.train.item[e]);
  const at::Tensor reps = infer::member_representations(parts, 1);
  if (reps.defined() && !rated.empty()) {
    const at::Tensor unit = reps / reps.norm(2, {1}, true).clamp_min(1e-12);
    const at::Tensor cos = unit.mv(unit[item]).contiguous();
    std::stable_sort(rated.begin(), rated.end(), [&](int64_t a, int64_t b) {
      return cos.data_ptr<float>()[a] > cos.data_ptr<float>()[b];
    });
  }
  for (const int64_t i : rated) ratings.push_back({Kind::rating, user, i});
  const size_t half = static_cast<size_t>(budget / 2);
  const size_t take_edges =
      std::min(edges.size(), std::max(half, static_cast<size_t>(budget) - std::min(ratings.size(), half)));
  edges.resize(take_edges);
  ratings.resize(std::min(ratings.size(), static_cast<size_t>(budget) - take_edges));
  edges.insert(edges.end(), ratings.begin(), ratings.end());
  return edges;
}

}  // namespace

Explanation explain(const TrainedModel& model, int64_t user, int64_t item, const ExplainOptions& options) {
  if (options.target != "list" && options.target != "rating")
    throw ConfigError("explain: target = " + data::quote(options.target) + ": must be list or rating");
  if (user < 0 || user >= model.users())
    throw DataError("explain", 0, "user index " + std::to_string(user) + " is no user of the model");
  if (item < 0 || item >= model.items())
    throw DataError("explain", 0, "item index " + std::to_string(item) + " is no item of the model");
  // The list's score is the ranker's where the model has one.
  const bool by_ranker = options.target == "list" && model.parts().ranker;
  const infer::ModelParts& parts = by_ranker ? model.parts().ranker->model().parts() : model.parts();
  const Dataset& ds = parts.ds;

  Explanation out;
  out.user = user, out.item = item;
  out.user_id = ds.users.id_of(user), out.item_id = ds.items.id_of(item);
  out.target = options.target;
  out.model = parts.members.front()->name();
  // The graphs that name a link are the model's: a ranker beside it is fitted on the same
  // users and items (the same indices) and reads none of them.
  const Dataset& graphs = model.dataset();
  Words words{ds, graphs.users,          options, user, item, edges_of(graphs.users), edges_of(graphs.items),
              {}, links_of(graphs.users)};
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e)
      words.ratings.emplace(std::make_pair(list->user[e], list->item[e]), list->value[e]);

  if (options.target == "list" && model.cold_listed(user)) {
    // A user without ratings: the list is infer/cold_lists.h's, split exactly into the
    // linked people who rated the item and the item's popularity.
    out.exact = true;
    out.model = model.ranked_by(user);
    out.method =
        "a user without ratings: what the people linked to them in the user graph rated, each rating "
        "as a share of the top rating, shrunk toward the items' popularity: score = (the linked raters' "
        "shares + w x popularity) / (linked raters + w), w = train.cold_popularity_weight "
        "(infer/cold_lists.h)";
    std::vector<ExplanationPart> all;
    for (const infer::ColdPart& c : model.cold_lists().parts(user, item)) {
      ExplanationPart p;
      p.value = c.value;
      out.score += c.value;
      if (c.user >= 0) {
        p.source = "neighbour", p.user = c.user, p.item = item, p.rating = c.rating;
      } else {
        p.source = "constant";
        p.text =
            "its popularity: " + std::to_string(static_cast<int64_t>(c.rating)) + " rating(s) in training";
      }
      all.push_back(p);
    }
    out.parts = largest(std::move(all), options.top, true);
    for (auto& p : out.parts) {
      p.share = out.score != 0 ? p.value / out.score : 0;
      words.fill(p);
    }
    return out;
  }
  // Every member splits its score (one member, or train.average_last's snapshots of a
  // combination): the split of their mean is the mean of their splits, part by part.
  std::vector<models::ExplainsScores*> exact;
  for (const auto& m : parts.members)
    if (models::ExplainsScores* e = m->explains_scores(); e && e->splits_scores()) exact.push_back(e);
  // A rating target of a ranking kind predicts by its damped biases: no split of inputs.
  const bool exact_here = !exact.empty() && exact.size() == parts.members.size() &&
                          (options.target == "list" || parts.members.front()->ranks_by_rating());
  if (exact_here) {
    models::ScoreTerms terms = mean_terms(exact, user, item, ds);
    // The user graph's term on the ranker's list (infer/ranker_graph_term.h): the ranker's
    // parts scaled as its row is, then one part per linked rater of the item.
    std::vector<infer::ColdPart> linked;
    const bool graph_term = by_ranker && model.ranker_graph_term();
    // The items' ratings on the ranker's list (infer/ranker_quality_term.h): one part.
    const bool quality_term = by_ranker && model.ranker_quality_term();
    // The network trained for ranking on the ranker's list (infer/ranker_network_term.h): one part.
    const std::shared_ptr<const TrainedModel> network = by_ranker ? model.parts().ranker->network() : nullptr;
    const bool network_term = network && user < network->users();
    if (graph_term || quality_term || network_term) {
      const std::vector<float> row = model.ranker_scores({user});
      const double scale = infer::ranker_row_scale(row.data(), model.items());
      for (auto& t : terms.terms) t.value /= scale;
      terms.score /= scale;
      terms.method += "; scaled by 1 / " + std::to_string(scale) + " (the row's largest score)";
    }
    if (graph_term) {
      terms.method += ", plus " + std::to_string(model.config().train.ranker_graph_weight) +
                      " x the shares of the top rating that the people linked in the user graph gave it, " +
                      "over (linked raters + " + std::to_string(model.config().train.ranker_graph_shrinkage) +
                      ") (infer/ranker_graph_term.h)";
      linked =
          model.cold_lists().linked_parts(user, item, model.config().train.ranker_graph_shrinkage,
                                          link_direction_of(model.config().train.ranker_graph_direction));
    }
    out.exact = true;
    out.method = terms.method;
    out.score = terms.score;
    std::vector<ExplanationPart> all;
    all.reserve(terms.terms.size() + linked.size());
    for (const auto& t : terms.terms) {
      all.push_back(rating_part(t, words));
      words.fill(all.back());
    }
    for (const infer::ColdPart& c : linked) {
      ExplanationPart p;
      p.source = "neighbour", p.user = c.user, p.item = item, p.rating = c.rating;
      p.value = model.config().train.ranker_graph_weight * c.value;
      out.score += p.value;
      all.push_back(p);
      words.fill(all.back());
    }
    if (quality_term) {
      ExplanationPart p;
      p.source = "constant";
      p.value = model.config().train.ranker_quality_weight *
                static_cast<double>(model.item_quality()[static_cast<size_t>(item)]);
      p.text =
          "how well it is rated: its raters' ratings above their own means, shrunk (the items' ratings, "
          "infer/ranker_quality_term.h)";
      out.score += p.value;
      out.method += ", plus " + std::to_string(model.config().train.ranker_quality_weight) +
                    " x how well the item is rated (infer/ranker_quality_term.h)";
      all.push_back(p);
    }
    if (network_term && item < network->items()) {
      const std::vector<float> row = network->score_all_items({user});
      std::vector<float> scaled(row.size());
      infer::scaled_network_row(row.data(), network->items(), scaled.data());
      ExplanationPart p;
      p.source = "constant";
      p.value =
          model.config().train.ranker_network_weight * static_cast<double>(scaled[static_cast<size_t>(item)]);
      p.text =
          "the network trained for ranking: its score of the item for this user, against its mean and top "
          "score (infer/ranker_network_term.h)";
      out.score += p.value;
      out.method += ", plus " + std::to_string(model.config().train.ranker_network_weight) +
                    " x the network trained for ranking's scaled score (infer/ranker_network_term.h)";
      all.push_back(p);
    }
    out.sentence = in_a_sentence(all, words);
    out.parts = largest(std::move(all), options.top, true);
    for (auto& p : out.parts) p.share = out.score != 0 ? p.value / out.score : 0;
  } else if (model_kind(parts.cfg.model).fit == FitMethod::trained) {
    const std::vector<infer::OccludedInput> inputs =
        occlusion_candidates(parts, user, item, std::max<int64_t>(options.candidates, 0));
    const std::vector<double> s = infer::occluded_scores(parts, user, item, options.target, inputs);
    out.method = out.model +
                 ": occlusion, each part the score's drop when that one input is taken out and the "
                 "model recomputed with its trained weights (" +
                 std::to_string(inputs.size()) + " inputs tried; the parts need not sum to the score)";
    out.score = s[0];
    std::vector<ExplanationPart> all;
    double mass = 0;
    for (size_t k = 0; k < inputs.size(); ++k) {
      ExplanationPart p;
      p.value = s[0] - s[k + 1];
      mass += std::abs(p.value);
      const auto& in = inputs[k];
      if (in.kind == infer::OccludedInput::Kind::rating) {
        p.source = "rated", p.user = in.a, p.item = in.b;
        if (const float* r = words.rating_of(in.a, in.b)) p.rating = *r;
      } else if (in.kind == infer::OccludedInput::Kind::user_edge) {
        p.source = "user_edge", p.user = in.b;
      } else {
        p.source = "item_edge", p.item = in.b;
      }
      all.push_back(p);
    }
    out.parts = largest(std::move(all), options.top, false);
    for (auto& p : out.parts) p.share = mass > 0 ? p.value / mass : 0;
  } else {
    throw ConfigError("explain: model = " + parts.cfg.model + " (" + out.model +
                      ") does not split its scores into its inputs' parts");
  }
  for (auto& p : out.parts) words.fill(p);
  return out;
}

nlohmann::json explanation_json(const Explanation& e) {
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& p : e.parts) {
    nlohmann::json j = {{"source", p.source}, {"value", p.value}, {"share", p.share}, {"text", p.text}};
    if (p.user >= 0) j["user"] = p.user_id;
    if (p.item >= 0) j["item"] = p.item_id;
    if (p.source == "rated" || p.source == "neighbour" || p.source == "path") j["rating"] = p.rating;
    if (p.source != "constant" && p.source != "rest") j["linked"] = p.linked;
    if (p.similar) j["similar"] = true;
    if (p.source == "rest") j["count"] = p.count;
    parts.push_back(std::move(j));
  }
  return {{"user", e.user_id}, {"item", e.item_id},  {"target", e.target},
          {"model", e.model},  {"method", e.method}, {"exact", e.exact},
          {"score", e.score},  {"parts", parts},     {"sentence", e.sentence}};
}

}  // namespace symgnn
