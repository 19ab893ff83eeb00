// The options of predict and recommend that describe users and items absent from training
// (symgnn/trained_model.h NewNodeFiles), and the summary line of what they added.
#include <sstream>

#include "cli/commands.h"
#include "symgnn/trained_model.h"

namespace symgnn::cli {

void add_new_node_options(CLI::App* cmd, NewNodeFiles& nodes) {
  cmd->add_option("--new-ratings", nodes.ratings,
                  "'user,item,rating' file of ratings by users (or of items) absent from training: the model "
                  "computes their representations from these (docs/recommend.md, \"New users\")");
  cmd->add_option(
      "--new-user-graph", nodes.user_graph_file,
      "edges 'a,b[,w]' (data.user_graph_file's format), for a model whose user graph came from a file: "
      "those of new users, and between trained users (a follow: set in both directions, every user's "
      "representation computed on the edited graph, docs/graph_edits.md); a user named here who is "
      "neither trained nor in --new-ratings is a new user known by their links alone, listed by the people "
      "they are linked to (as `graph edit --create` makes them); a k-NN graph links new users by itself");
  cmd->add_option("--new-item-graph", nodes.item_graph_file, "the same for new items");
  cmd->add_option("--new-user-features", nodes.user_features_file,
                  "'id,f1,...' rows of the new users (data.user_features_file's format; zeros without)");
  cmd->add_option("--new-item-features", nodes.item_features_file, "the same for new items");
}

std::string new_nodes_summary(const NewRatingsSummary& s) {
  if (s.ratings == 0 && s.new_users == 0 && s.new_items == 0 && s.user_edits == 0 && s.item_edits == 0 &&
      s.linked_users == 0)
    return "";
  std::ostringstream os;
  if (s.ratings > 0 || s.new_users > 0 || s.new_items > 0)
    os << ", with " << s.ratings << " new rating(s) of " << s.new_users << " new user(s) and " << s.new_items
       << " new item(s) from " << s.file;
  if (s.user_edits > 0 || s.item_edits > 0)
    os << ", with " << s.user_edits << " user-graph and " << s.item_edits
       << " item-graph entries between trained nodes set (graph edits)";
  const auto side = [&os](const char* noun, int64_t n, int64_t features, int64_t edges,
                          const std::string& how) {
    if (n == 0) return;
    os << "; new " << noun << "s: " << features << " with features, " << edges << " graph entries";
    if (!how.empty()) os << " (" << how << ")";
  };
  side("user", s.new_users, s.user_features, s.user_edges, s.user_graph_how);
  side("item", s.new_items, s.item_features, s.item_edges, s.item_graph_how);
  if (s.linked_users > 0)
    os << "; " << s.linked_users << " new user(s) known by their links alone (" << s.linked_users_links
       << " graph entries from " << s.linked_users_file << ", no rating)";
  return os.str();
}

}  // namespace symgnn::cli
