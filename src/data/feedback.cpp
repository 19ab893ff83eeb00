// data.feedback (feedback.h).
#include "data/feedback.h"

#include <cmath>
#include <filesystem>
#include <vector>

#include "data/random_split.h"
#include "data/text_reader.h"
#include "symgnn/error.h"

namespace fs = std::filesystem;

namespace symgnn::data {

std::string resolved_feedback(const DataConfig& cfg) {
  if (cfg.feedback != "auto") return cfg.feedback;
  const std::string& src = cfg.source;
  if (src == "synthetic" || !fs::is_regular_file(src) || fs::path(src).extension() == ".mat")
    return "ratings";
  // The first line decides, as the reader's header rule does; the reader then names any
  // line that differs.
  LineReader in(src, true);
  TextLine ln;
  in.next(ln);
  std::vector<std::string_view> f;
  split_fields(ln.text, detect_delimiter(ln.text), f);
  return f.size() == 2 ? "implicit" : "ratings";
}

void apply_feedback(Dataset& ds, const std::string& feedback, const std::string& where) {
  ds.feedback = feedback;
  if (feedback == "ratings") return;
  const bool counts = feedback == "counts";
  const auto transform = [&](std::vector<float>& values, const char* split) {
    for (float& v : values) {
      if (counts && !(v > 0))
        throw DataError(
            where + ": " + split + " count " + std::to_string(v) +
            " is not positive (data.feedback = counts: each row an interaction counted at least once)");
      v = counts ? static_cast<float>(std::log1p(static_cast<double>(v))) : 1.0f;
    }
  };
  transform(ds.train.value, "training");
  transform(ds.validation.value, "validation");
  transform(ds.test.value, "test");
  transform(ds.test_unknown.value, "test");
  ds.rating_levels = distinct_levels({&ds.train, &ds.validation, &ds.test});
  if (ds.rating_levels.empty()) ds.rating_levels = {1.0f};
  ds.rating_min = ds.rating_levels.front();
  ds.rating_max = ds.rating_levels.back();
}

}  // namespace symgnn::data
