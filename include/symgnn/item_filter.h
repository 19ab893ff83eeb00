// symgnn: which items a list may show (docs/recommend.md, "Filters"): items never to show
// (for everyone or per user), a candidate set, and rules on item attributes. The same
// filter behind `recommend` and `rank`, serve's GET and POST, and Python: given by original
// ids (ItemFilterSpec), resolved once against a model (make_item_filter), applied by
// recommend_each (symgnn/recommend.h) on top of the items a user rated.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace symgnn {

class TrainedModel;

/// Item attributes (`--item-attributes FILE`): item id -> key -> value. Two forms, told by
/// the first line: "id,key=value,key=value,..." lines, or a CSV/TSV table whose header names
/// the columns (the first column the item id).
struct ItemAttributes {
  std::string source;             // the file, for messages
  std::vector<std::string> keys;  // every key seen, in first-seen order
  std::unordered_map<std::string, std::map<std::string, std::string>> of;  // id -> key -> value
  bool empty() const { return of.empty(); }
};

/// Reads an attributes file; DataError naming the file and line for a malformed line (a
/// field without '=' in the key=value form, a row with more columns than the header, an id
/// given twice).
ItemAttributes read_item_attributes(const std::string& path);

/// A filter by original ids. Every id must be an item of the model (DataError otherwise: a
/// candidate or an exclusion that is no item is a mistake, not a no-op).
struct ItemFilterSpec {
  std::vector<std::string> exclude;                              // never shown to anyone
  std::vector<std::pair<std::string, std::string>> exclude_for;  // (user, item): not to that user
  bool has_items = false;                                        // `items` restricts (even when empty)
  std::vector<std::string> items;                                // the candidate set
  std::vector<std::pair<std::string, std::string>> where;        // key = value; all must hold
  /// Where the parts came from, for messages ("--exclude", "\"exclude\""), and how the caller
  /// gives the item attributes `where` reads (the CLI's flag, Python's keyword, the server's).
  std::string exclude_name = "exclude", items_name = "items", where_name = "where";
  std::string attributes_name = "--item-attributes FILE";
  bool empty() const { return exclude.empty() && exclude_for.empty() && !has_items && where.empty(); }
};

/// A filter resolved to item indices.
struct ItemFilter {
  std::vector<char> allowed;  // per item: 1 may be shown; empty: every item may
  std::unordered_map<int64_t, std::vector<int64_t>> excluded_for;  // user -> items, ascending
  std::string what;  // the filters given ("items, exclude and where"), for messages; "" for none
  bool empty() const { return allowed.empty() && excluded_for.empty(); }
};

/// `spec` against `model`'s users and items; `attributes` must be given (non-null, not
/// empty) where spec.where is. ConfigError for a `where` key the attributes do not have
/// (naming the keys they do), or a `where` without attributes; DataError for an id that is
/// no item (or no user, in exclude_for).
ItemFilter make_item_filter(const TrainedModel& model, const ItemFilterSpec& spec,
                            const ItemAttributes* attributes);

/// The "--exclude FILE" format: lines "item" (never shown) or "user,item" (not to that
/// user), an optional header ("item" or "user,item"); added to `spec`.
void read_exclusions(const std::string& path, ItemFilterSpec& spec);
/// The "--items FILE" format: one item id per line, an optional header "item"; the
/// candidate set of `spec`.
void read_candidates(const std::string& path, ItemFilterSpec& spec);
/// "key=value" (`--where`) into spec.where; ConfigError without '=' or with an empty key.
void add_where(const std::string& clause, ItemFilterSpec& spec);

}  // namespace symgnn
