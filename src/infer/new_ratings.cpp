#include "infer/new_ratings.h"

#include <algorithm>
#include <unordered_set>

#include "data/parsers.h"
#include "data/text_reader.h"
#include "symgnn/error.h"

namespace symgnn::infer {

namespace {

uint64_t pair_key(int64_t u, int64_t i) {
  return (static_cast<uint64_t>(u) << 32) | static_cast<uint64_t>(i);
}

/// Grows a side to the ids of `index`: explicit ids, isolated graph nodes, zero features.
int64_t grow_side(NodeSet& side, const data::IdIndex& index) {
  const int64_t added = index.size() - side.count;
  if (added == 0) return 0;
  side.ids = index.ids();
  side.count = index.size();
  side.graph.num_nodes = side.count;
  if (!side.features.empty()) {
    side.features.rows = side.count;
    side.features.values.resize(static_cast<size_t>(side.count * side.features.cols), 0.0f);
  }
  return added;
}

}  // namespace

NewRatingsSummary add_new_ratings(Dataset& ds, const std::string& file) {
  const std::string text = data::read_text_file(file);
  const std::vector<data::RawRating> raw = data::parse_ratings_text(text, file);
  data::IdIndex users = data::id_index(ds.users), items = data::id_index(ds.items);
  data::PairRegistry within_file;  // duplicates inside the file, with both lines
  const RatingList added = data::index_ratings(raw, file, users, items, /*add_new=*/true, within_file);
  std::unordered_set<uint64_t> known;  // pairs the model's data already holds
  for (const RatingList* r : {&ds.train, &ds.validation, &ds.test})
    for (size_t e = 0; e < r->size(); ++e) known.insert(pair_key(r->user[e], r->item[e]));
  for (size_t e = 0; e < added.size(); ++e) {
    const float v = added.value[e];
    if (known.count(pair_key(added.user[e], added.item[e])))
      throw DataError(file, raw[e].line,
                      "the pair (" + data::quote(raw[e].user) + ", " + data::quote(raw[e].item) +
                          ") is already in the model's data");
    if (!ds.rating_levels.empty() &&
        std::find(ds.rating_levels.begin(), ds.rating_levels.end(), v) == ds.rating_levels.end())
      throw DataError(
          file, raw[e].line,
          "rating " + data::quote(std::to_string(v)) + " is not one of the model's rating levels");
    if (v < ds.rating_min || v > ds.rating_max)
      throw DataError(file, raw[e].line, "rating outside the model's rating range");
    ds.train.add(added.user[e], added.item[e], v);
  }
  NewRatingsSummary s;
  s.file = file;
  s.ratings = static_cast<int64_t>(added.size());
  s.new_users = grow_side(ds.users, users);
  s.new_items = grow_side(ds.items, items);
  return s;
}

}  // namespace symgnn::infer
