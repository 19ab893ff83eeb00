/// @file fuzz_text_parsers.cpp
/// libFuzzer target over every text parser (ratings CSV, MovieLens ratings/users/items/info,
/// ML-1M users/movies, edge lists, feature tables, prediction files). Bad input must end in
/// symgnn::Error; any other exception, crash, leak or undefined behaviour is a bug. Run with
/// scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <set>
#include <string>

#include "data/parsers.h"
#include "data/prediction_file.h"
#include "guarded.h"
#include "symgnn/error.h"

using symgnn::fuzz::guarded;

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
  guarded([&] {
    LineReader in(std::string_view(text), "fuzz.features", true);
    read_features(in, items, "item");
  });
  guarded([&] { parse_predictions_text(text, "fuzz.predictions"); });
  guarded([&] { parse_pairs_text(text, "fuzz.pairs"); });
  guarded([&] { parse_user_list_text(text, "fuzz.users", users); });  // recommend --users
  // The readers that add the ids of feature and graph rows as nodes, and the test reader
  // that keeps ratings of unknown ids apart (data as users have it).
  guarded([&] {
    IdIndex ids;
    ids.add("1");
    LineReader in(std::string_view(text), "fuzz.edges", true);
    const symgnn::EdgeList g = read_edge_list_adding(in, ids, "user");
    for (size_t e = 0; e < g.size(); ++e)
      if (g.src[e] >= ids.size() || g.dst[e] >= ids.size()) std::abort();
  });
  guarded([&] {
    IdIndex ids;
    ids.add("1");
    LineReader in(std::string_view(text), "fuzz.features", true);
    const symgnn::FeatureMatrix m = read_features_adding(in, ids, "item");
    if (m.rows != ids.size() || m.values.size() != static_cast<size_t>(m.rows * m.cols)) std::abort();
  });
  guarded([&] {
    IdIndex u, i;
    for (const char* id : {"1", "2", "a"}) u.add(id), i.add(id);
    PairRegistry seen;
    symgnn::RatingList known;
    symgnn::UnknownRatings unknown;
    RatingIndexer indexer("fuzz.test", u, i, false, seen, known, &unknown);
    for (const RawRating& r : parse_ratings_text(text, "fuzz.test")) indexer.add(r);
    indexer.finish();
    if (unknown.user.size() != unknown.size() || unknown.item.size() != unknown.size()) std::abort();
  });

  // Interactions (data.feedback, data/feedback.h): pairs and counts, repeats merged; every
  // pair once in the output, every count positive.
  for (const char* feedback : {"implicit", "counts"})
    guarded([&] {
      IdIndex u, i;
      PairRegistry seen;
      symgnn::RatingList out;
      RatingIndexer indexer("fuzz.clicks", u, i, true, seen, out);
      indexer.merge_repeats(feedback);
      LineReader in(std::string_view(text), "fuzz.clicks", true);
      read_ratings(
          in, [&](const RawRating& r) { indexer.add(r); }, feedback);
      indexer.finish();
      std::set<std::pair<int64_t, int64_t>> pairs;
      for (size_t e = 0; e < out.size(); ++e)
        if (!pairs.emplace(out.user[e], out.item[e]).second || !(out.value[e] > 0)) std::abort();
    });
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
