// The model directory's pinned data (dataset_snapshot.h). The payload is a magic line, a
// byte-order mark, then every field of the Dataset in a fixed order, each vector as its
// element count and its bytes; the atomic writer seals it (util/checksum.h), and the reader
// checks every count against the bytes left before it allocates.
#include "data/dataset_snapshot.h"

#include <cstdint>
#include <cstring>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "symgnn/config.h"
#include "symgnn/error.h"
#include "util/atomic_file.h"
#include "util/checksum.h"

namespace symgnn::data {

namespace {

// Version 2 added the test ratings of unknown ids after the test ratings, version 3 the
// time-aware split's report at the end, version 4 data.feedback after it, version 5 each
// side's directed links (NodeSet::directed) after that; version 1 to 4 files (without them)
// still load, as ratings with undirected graphs.
constexpr const char* kMagic = "symgnn-dataset-5\n";
constexpr const char* kMagicV4 = "symgnn-dataset-4\n";
constexpr const char* kMagicV3 = "symgnn-dataset-3\n";
constexpr const char* kMagicV2 = "symgnn-dataset-2\n";
constexpr const char* kMagicV1 = "symgnn-dataset-1\n";
// Read back as another value on a machine of the other byte order: refused, not misread.
constexpr uint64_t kByteOrder = 0x0102030405060708ULL;

class Writer {
 public:
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void f32(float v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void text(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  template <typename T>
  void vec(const std::vector<T>& v) {
    static_assert(std::is_arithmetic_v<T>);
    u64(v.size());
    raw(v.data(), v.size() * sizeof(T));
  }
  void texts(const std::vector<std::string>& v) {
    u64(v.size());
    for (const auto& s : v) text(s);
  }
  std::string bytes;

 private:
  void raw(const void* p, size_t n) {
    if (n > 0) bytes.append(static_cast<const char*>(p), n);
  }
};

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& path) : bytes_(bytes), path_(path) {}
  uint64_t u64() {
    uint64_t v;
    raw(&v, sizeof v, "a count");
    return v;
  }
  float f32() {
    float v;
    raw(&v, sizeof v, "a number");
    return v;
  }
  double f64() {
    double v;
    raw(&v, sizeof v, "a number");
    return v;
  }
  std::string text(const char* what) {
    const uint64_t n = count(1, what);
    std::string s(bytes_.data() + at_, n);
    at_ += n;
    return s;
  }
  template <typename T>
  std::vector<T> vec(const char* what) {
    const uint64_t n = count(sizeof(T), what);
    std::vector<T> v(n);
    raw(v.data(), n * sizeof(T), what);
    return v;
  }
  std::vector<std::string> texts(const char* what) {
    // Each string takes at least its 8-byte length.
    const uint64_t n = count(sizeof(uint64_t), what);
    std::vector<std::string> v;
    v.reserve(n);
    for (uint64_t k = 0; k < n; ++k) v.push_back(text(what));
    return v;
  }
  void expect_end() const {
    if (at_ != bytes_.size()) fail("bytes after the last field");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(path_ + ": not a dataset snapshot this symgnn can read (" + what + ")");
  }
  size_t at_ = 0;

 private:
  /// A count of elements of `size` bytes each, refused where the bytes left cannot hold them.
  uint64_t count(size_t size, const char* what) {
    const uint64_t n = u64();
    if (n > (bytes_.size() - at_) / size) fail(std::string(what) + ": count beyond the end of the file");
    return n;
  }
  void raw(void* p, size_t n, const char* what) {
    if (n == 0) return;  // an empty vector's data() may be null, which memcpy must not get
    if (n > bytes_.size() - at_) fail(std::string(what) + ": cut short");
    std::memcpy(p, bytes_.data() + at_, n);
    at_ += n;
  }
  const std::string& bytes_;
  const std::string& path_;
};

void put(Writer& w, const RatingList& r) {
  w.vec(r.user);
  w.vec(r.item);
  w.vec(r.value);
}

RatingList get_ratings(Reader& r, const char* what) {
  RatingList out;
  out.user = r.vec<int64_t>(what);
  out.item = r.vec<int64_t>(what);
  out.value = r.vec<float>(what);
  if (out.user.size() != out.value.size() || out.item.size() != out.value.size())
    r.fail(std::string(what) + ": columns of different lengths");
  return out;
}

void put(Writer& w, const NodeSet& s) {
  w.u64(static_cast<uint64_t>(s.count));
  w.texts(s.ids);
  w.u64(static_cast<uint64_t>(s.graph.num_nodes));
  w.vec(s.graph.src);
  w.vec(s.graph.dst);
  w.vec(s.graph.weight);
  w.u64(static_cast<uint64_t>(s.graph_origin));
  w.u64(static_cast<uint64_t>(s.features.rows));
  w.u64(static_cast<uint64_t>(s.features.cols));
  w.vec(s.features.values);
  w.texts(s.features.names);
  w.text(s.features_origin);
}

NodeSet get_nodes(Reader& r, const char* side) {
  const std::string what = std::string(side) + "s";
  NodeSet s;
  s.count = static_cast<int64_t>(r.u64());
  s.ids = r.texts(what.c_str());
  s.graph.num_nodes = static_cast<int64_t>(r.u64());
  s.graph.src = r.vec<int64_t>(what.c_str());
  s.graph.dst = r.vec<int64_t>(what.c_str());
  s.graph.weight = r.vec<float>(what.c_str());
  const uint64_t origin = r.u64();
  if (origin > static_cast<uint64_t>(GraphOrigin::Identity)) r.fail(what + ": unknown graph origin");
  s.graph_origin = static_cast<GraphOrigin>(origin);
  s.features.rows = static_cast<int64_t>(r.u64());
  s.features.cols = static_cast<int64_t>(r.u64());
  s.features.values = r.vec<float>(what.c_str());
  s.features.names = r.texts(what.c_str());
  s.features_origin = r.text(what.c_str());
  if (s.count <= 0 || s.count > (int64_t{1} << 40)) r.fail(what + ": count out of range");
  if (!s.ids.empty() && static_cast<int64_t>(s.ids.size()) != s.count)
    r.fail(what + ": ids do not match the count");
  if (s.graph.src.size() != s.graph.weight.size() || s.graph.dst.size() != s.graph.weight.size())
    r.fail(what + ": graph columns of different lengths");
  if (!s.graph.weight.empty() && s.graph.num_nodes != s.count)
    r.fail(what + ": graph size differs from the count");
  if ((s.graph_origin == GraphOrigin::None || s.graph_origin == GraphOrigin::Identity) &&
      !s.graph.weight.empty())
    r.fail(what + ": edges stored for a graph without any");
  // rows x cols must be the values' count: checked by division, which cannot overflow.
  const auto rows = static_cast<uint64_t>(s.features.rows), cols = static_cast<uint64_t>(s.features.cols);
  const uint64_t n = s.features.values.size();
  if (s.features.rows < 0 || s.features.cols < 0 ||
      (cols > 0 && (rows == 0 || n % rows != 0 || n / rows != cols)) || (cols == 0 && n != 0))
    r.fail(what + ": feature shape does not match its values");
  return s;
}

std::string payload_of(const Dataset& ds) {
  Writer w;
  w.bytes = kMagic;
  w.u64(kByteOrder);
  w.text(ds.name);
  w.text(ds.source);
  put(w, ds.users);
  put(w, ds.items);
  put(w, ds.train);
  put(w, ds.validation);
  put(w, ds.test);
  w.texts(ds.test_unknown.user);
  w.texts(ds.test_unknown.item);
  w.vec(ds.test_unknown.value);
  w.vec(ds.test_unknown.line);
  w.vec(ds.rating_levels);
  w.f32(ds.rating_min);
  w.f32(ds.rating_max);
  const TimeSplitReport& t = ds.time_split;
  w.text(t.split);
  w.f64(t.cutoff);
  for (const int64_t n : {t.last_n, t.users_kept, t.training_ratings, t.test_ratings, t.cold_item_ratings,
                          t.cold_items, t.cold_user_ratings, t.later_training})
    w.u64(static_cast<uint64_t>(n));
  w.text(ds.feedback);
  for (const NodeSet* side : {&ds.users, &ds.items}) {
    w.vec(side->directed.src);
    w.vec(side->directed.dst);
    w.vec(side->directed.weight);
  }
  return std::move(w.bytes);
}

bool same(const RatingList& a, const RatingList& b) {
  return a.user == b.user && a.item == b.item && a.value == b.value;
}
bool same(const UnknownRatings& a, const UnknownRatings& b) {
  return a.user == b.user && a.item == b.item && a.value == b.value;
}
bool same_graph(const NodeSet& a, const NodeSet& b) {
  return a.graph_origin == b.graph_origin && a.graph.num_nodes == b.graph.num_nodes &&
         a.graph.src == b.graph.src && a.graph.dst == b.graph.dst && a.graph.weight == b.graph.weight &&
         a.directed.src == b.directed.src && a.directed.dst == b.directed.dst &&
         a.directed.weight == b.directed.weight;
}
bool same_features(const NodeSet& a, const NodeSet& b) {
  return a.features.rows == b.features.rows && a.features.cols == b.features.cols &&
         a.features.values == b.features.values;
}

}  // namespace

void write_snapshot(const Dataset& ds, const std::string& path) {
  const std::string payload = payload_of(ds);
  write_file_atomic(
      path,
      [&](std::ostream& out) { out.write(payload.data(), static_cast<std::streamsize>(payload.size())); },
      Integrity::sealed);
}

Dataset read_snapshot(const std::string& path) {
  return parse_snapshot(read_sealed_file(path), path);
}

Dataset parse_snapshot(const std::string& bytes, const std::string& path) {
  Reader r(bytes, path);
  const bool v1 = bytes.compare(0, std::strlen(kMagicV1), kMagicV1) == 0;
  const bool v2 = bytes.compare(0, std::strlen(kMagicV2), kMagicV2) == 0;
  const bool v3 = bytes.compare(0, std::strlen(kMagicV3), kMagicV3) == 0;
  const bool v4 = bytes.compare(0, std::strlen(kMagicV4), kMagicV4) == 0;
  if (!v1 && !v2 && !v3 && !v4 && bytes.compare(0, std::strlen(kMagic), kMagic) != 0)
    r.fail("no symgnn-dataset-5 header");
  r.at_ = std::strlen(kMagic);
  if (r.u64() != kByteOrder) r.fail("written on a machine of another byte order");
  Dataset ds;
  ds.name = r.text("name");
  ds.source = r.text("source");
  ds.users = get_nodes(r, "user");
  ds.items = get_nodes(r, "item");
  ds.train = get_ratings(r, "training ratings");
  ds.validation = get_ratings(r, "validation ratings");
  ds.test = get_ratings(r, "test ratings");
  if (!v1) {
    ds.test_unknown.user = r.texts("test ratings of unknown ids");
    ds.test_unknown.item = r.texts("test ratings of unknown ids");
    ds.test_unknown.value = r.vec<float>("test ratings of unknown ids");
    ds.test_unknown.line = r.vec<long>("test ratings of unknown ids");
  }
  ds.rating_levels = r.vec<float>("rating levels");
  ds.rating_min = r.f32();
  ds.rating_max = r.f32();
  if (!v1 && !v2) {
    TimeSplitReport& t = ds.time_split;
    t.split = r.text("time-aware split");
    if (!t.split.empty() && t.split != "temporal" && t.split != "leave_last_out")
      r.fail("unknown time-aware split");
    t.cutoff = r.f64();
    for (int64_t* n : {&t.last_n, &t.users_kept, &t.training_ratings, &t.test_ratings, &t.cold_item_ratings,
                       &t.cold_items, &t.cold_user_ratings, &t.later_training})
      *n = static_cast<int64_t>(r.u64());
  }
  if (!v1 && !v2 && !v3) {
    ds.feedback = r.text("feedback");
    if (ds.feedback != "ratings" && ds.feedback != "implicit" && ds.feedback != "counts")
      r.fail("unknown feedback");
  }
  if (!v1 && !v2 && !v3 && !v4)
    for (NodeSet* side : {&ds.users, &ds.items}) {
      const std::string what = side == &ds.users ? "directed user links" : "directed item links";
      EdgeList& g = side->directed;
      g.src = r.vec<int64_t>(what.c_str());
      g.dst = r.vec<int64_t>(what.c_str());
      g.weight = r.vec<float>(what.c_str());
      if (g.src.size() != g.weight.size() || g.dst.size() != g.weight.size())
        r.fail(what + ": columns of different lengths");
      for (size_t e = 0; e < g.size(); ++e)
        if (g.src[e] < 0 || g.src[e] >= side->count || g.dst[e] < 0 || g.dst[e] >= side->count)
          r.fail(what + ": a link outside the nodes");
      if (g.size() > 0 && side->graph_origin != GraphOrigin::File)
        r.fail(what + ": links without a graph file");
      g.num_nodes = g.size() > 0 ? side->count : 0;
    }
  r.expect_end();
  validate_dataset(ds, path);
  return ds;
}

std::string first_difference(const Dataset& pinned, const Dataset& now, const DataConfig& cfg) {
  const bool same_ratings = same(pinned.train, now.train) && same(pinned.validation, now.validation) &&
                            pinned.users.ids == now.users.ids && pinned.items.ids == now.items.ids &&
                            pinned.users.count == now.users.count && pinned.items.count == now.items.count;
  // Each part, the config key of the file it was read from ("": data.source itself), its name.
  const std::tuple<bool, const char*, const std::string*, const char*> parts[] = {
      {same_ratings, "", nullptr, "the training ratings"},
      {same(pinned.test, now.test) && same(pinned.test_unknown, now.test_unknown), "test_file",
       &cfg.test_file, "the test ratings"},
      {same_graph(pinned.users, now.users), "user_graph_file", &cfg.user_graph_file, "the user graph"},
      {same_graph(pinned.items, now.items), "item_graph_file", &cfg.item_graph_file, "the item graph"},
      {same_features(pinned.users, now.users), "user_features_file", &cfg.user_features_file,
       "the user features"},
      {same_features(pinned.items, now.items), "item_features_file", &cfg.item_features_file,
       "the item features"},
  };
  for (const auto& [equal, key, file, what] : parts)
    if (!equal)
      return (file && !file->empty() ? "data." + std::string(key) + " " + *file
                                     : "data.source " + cfg.source) +
             ": " + what + " differ from the file the run trained on (" + kSnapshotFile +
             "): restore it, or train on the new data with --overwrite";
  return "";
}

std::string fingerprint(const Dataset& ds) {
  return sha256_hex(payload_of(ds));
}

Dataset with_validation_in_train(const Dataset& ds) {
  Dataset all = ds;
  const RatingList& v = ds.validation;
  for (size_t e = 0; e < v.size(); ++e) all.train.add(v.user[e], v.item[e], v.value[e]);
  all.validation = RatingList{};
  return all;
}

}  // namespace symgnn::data
