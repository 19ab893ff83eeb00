/// @file
/// elsa.dims and elsa.deep_hidden read once: the item-based ranker (elsa_model.h) trains
/// each width, and the default's ranker choice (src/fit/ranker.cpp) sizes an epoch by the
/// first. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace symgnn::models {

/// "128,512" -> {128, 512}; ConfigError naming the value when a part is no whole number
/// >= 1 (at most 10^6) or there is none.
std::vector<int64_t> parse_elsa_dims(const std::string& text);
/// elsa.deep_hidden: "0,256" -> {0, 256}, as parse_elsa_dims but 0 (no deep path) allowed.
std::vector<int64_t> parse_elsa_deep_hidden(const std::string& text);

}  // namespace symgnn::models
