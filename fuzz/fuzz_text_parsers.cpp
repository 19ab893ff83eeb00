/// @file fuzz_text_parsers.cpp
/// libFuzzer target over every text parser (ratings CSV, MovieLens ratings/users/items/info,
/// ML-1M users/movies, edge lists, feature tables, prediction files). Bad input must end in
/// symgnn::Error; any other exception, crash, leak or undefined behaviour is a bug. Run with
/// scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "data/parsers.h"
#include "data/prediction_file.h"
#include "symgnn/error.h"

namespace {

/// Runs one parser; symgnn::Error is the expected way to refuse input.
template <class F>
void guarded(F&& f) {
  try {
    f();
  } catch (const symgnn::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace symgnn::data;
  const std::string text(reinterpret_cast<const char*>(data), size);

  // Ids for the edge-list and feature parsers: those of the ratings when they parse, plus a
  // fixed few, so that both known and unknown ids are reached.
  IdIndex users, items;
  for (const char* id : {"1", "2", "3", "a", "b"}) users.add(id), items.add(id);
  guarded([&] {
    PairRegistry seen;
    index_ratings(parse_ratings_text(text, "fuzz.csv"), "fuzz.csv", users, items, true, seen);
  });
  guarded([&] {
    IdIndex u, i;
    u.add("1");
    i.add("1");
    PairRegistry seen;
    index_ratings(parse_ratings_text(text, "fuzz.csv"), "fuzz.csv", u, i, false, seen);
  });
  guarded([&] { parse_edge_list_text(text, "fuzz.edges", users, "user"); });
  guarded([&] { parse_features_text(text, "fuzz.features", items, "item"); });
  guarded([&] { parse_predictions_text(text, "fuzz.predictions"); });
  guarded([&] { parse_pairs_text(text, "fuzz.pairs"); });

  guarded([&] {
    PairRegistry seen;
    parse_movielens_ratings(text, "u.data", Delimiter::Tab, 943, 1682, seen);
  });
  guarded([&] {
    PairRegistry seen;
    parse_movielens_ratings(text, "ratings.dat", Delimiter::DoubleColon, 0, 0, seen);
  });
  guarded([&] { parse_ml100k_info(text, "u.info"); });
  guarded([&] { parse_ml100k_vocabulary(text, "u.occupation"); });
  guarded([&] { parse_ml100k_max_id(text, "u.user"); });
  guarded([&] { parse_ml100k_users(text, "u.user", 3, {}); });
  guarded([&] { parse_ml100k_users(text, "u.user", 2, {"other", "writer"}); });
  guarded([&] { parse_ml100k_items(text, "u.item", 2, {}); });
  guarded([&] { parse_ml100k_items(text, "u.item", 1, {"a", "b"}); });
  guarded([&] { parse_ml1m_users(text, "users.dat"); });
  guarded([&] { parse_ml1m_movies(text, "movies.dat"); });
  return 0;
}
