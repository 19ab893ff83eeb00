// symgnn: one change to a trained model's data, given in memory by original ids.
//
// A Delta holds what a change brings: ratings, graph edges (added or removed, on the user or
// the item side; an edge may create the node it names) and side-feature rows. Every way of
// changing a model takes one: a new user's ratings (serve's POST /v1/recommend, Python's
// recommend_new_user, the CLI's --new-ratings files once read), a refresh, a graph edit
// (symgnn/graph_edit.h, serve's POST /v1/graph/edges, `symgnn graph edit`), and a dataset
// given in memory (symgnn/data_rows.h holds its edges and feature rows as Delta rows). The
// rows are checked where they are applied, by the rules of the files of the same kinds
// (docs/data.md), without being printed as text for the files' readers.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace symgnn {

/// The two sides of the rating matrix.
enum class NodeSide { users, items };

/// "user" or "item", as messages and the journal write a side.
inline const char* side_word(NodeSide side) {
  return side == NodeSide::users ? "user" : "item";
}

/// What an edge row does to its graph.
enum class EdgeOp { add, remove };

inline const char* op_word(EdgeOp op) {
  return op == EdgeOp::add ? "add" : "remove";
}

struct Delta {
  /// One rating (an interaction for a model of clicks or counts), by original ids.
  struct Rating {
    std::string user;
    std::string item;
    double value = 0;
    long line = 0;  // the line of the file it was read from (errors name it); 0: given in memory
  };
  /// One edge of a side's graph, as a line of a graph file "a,b[,w]". Graphs stay symmetric:
  /// (a, b) is also (b, a); a directed graph file's direction is kept beside (a follows b).
  struct Edge {
    Edge() = default;
    Edge(std::string a_, std::string b_, double weight_ = 1.0)
        : a(std::move(a_)), b(std::move(b_)), weight(weight_) {}
    Edge(NodeSide side_, EdgeOp op_, std::string a_, std::string b_, double weight_ = 1.0)
        : side(side_), op(op_), a(std::move(a_)), b(std::move(b_)), weight(weight_) {}
    NodeSide side = NodeSide::users;
    EdgeOp op = EdgeOp::add;
    std::string a, b;     // the edge's ends
    double weight = 1.0;  // add: the edge's weight (finite, > 0)
    /// add, in a graph edit: an end that is no node of that side becomes one (appended after the
    /// others, in the order the edits name them), a node that joins by its edges alone.
    bool create = false;
    /// With create: the side features of the node the edge creates, its end `a`; empty: zeros.
    std::vector<double> features;
  };
  /// One node's side features, as a line of a features file "id,f1,...".
  struct Features {
    Features() = default;
    Features(std::string id_, std::vector<double> values_) : id(std::move(id_)), values(std::move(values_)) {}
    Features(NodeSide side_, std::string id_, std::vector<double> values_)
        : side(side_), id(std::move(id_)), values(std::move(values_)) {}
    NodeSide side = NodeSide::users;
    std::string id;
    std::vector<double> values;
  };

  std::vector<Rating> ratings;
  std::vector<Edge> edges;
  std::vector<Features> features;
  /// How errors name the rows: `ratings_name`[k] for rating k (from 0), `edges_name` and
  /// `features_name` with the row counted from 1 as a file's line.
  std::string ratings_name = "new ratings", edges_name = "new edges", features_name = "new features";

  bool empty() const { return ratings.empty() && edges.empty() && features.empty(); }
  /// The edge (feature) rows of one side, in their order.
  std::vector<Edge> edges_of(NodeSide side) const {
    std::vector<Edge> out;
    for (const Edge& e : edges)
      if (e.side == side) out.push_back(e);
    return out;
  }
  std::vector<Features> features_of(NodeSide side) const {
    std::vector<Features> out;
    for (const Features& f : features)
      if (f.side == side) out.push_back(f);
    return out;
  }
};

}  // namespace symgnn
