// The one rule for a node's id, wherever an id enters: the ratings, graph and feature files,
// rows given in memory (Python, new users), graph edits that create nodes (the CLI, POST
// /v1/graph/edges, Python's edit_graph, and the journal replayed on every load), and the
// files symgnn writes (predictions, recommendations, export's users.txt and items.txt).
//
// Those files hold an id as it is, one per field or line, and the readers split on commas
// and tabs and trim spaces: an id that is empty, has surrounding spaces, or holds a comma,
// a double quote, a tab, a line break or another control character (NUL included) would
// shift a column or a line, or come back as another id. Ids longer than kMaxIdBytes are
// refused too: an id is a name, and a megabyte one is an accident that every list and
// answer would repeat.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace symgnn::data {

inline constexpr size_t kMaxIdBytes = 1024;

/// What in `id` breaks the rule, as a phrase after "id 'x' " ("holds a comma", "is empty");
/// "" where the id is fine.
std::string id_problem(std::string_view id);

/// "user id 'a,b' holds a comma, which the files symgnn reads and writes cannot hold; rename
/// the id": the sentence of an error about `id` of kind `what` ("user", "item", "node").
std::string id_refusal(const std::string& what, std::string_view id, const std::string& problem);

}  // namespace symgnn::data
