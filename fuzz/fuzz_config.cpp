/// @file fuzz_config.cpp
/// libFuzzer target over the config reader (src/util/config_io.cpp): config files and
/// --set assignments. Bad input must end in symgnn::Error. What it accepts must survive a
/// round trip: to_text() of the config it built reads back to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "symgnn/config.h"
#include "symgnn/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace symgnn;
  const std::string text(reinterpret_cast<const char*>(data), size);
  RunConfig cfg;
  try {
    load_config_text(cfg, text, "fuzz.conf");
    const std::string written = to_text(cfg);
    RunConfig again;
    load_config_text(again, written, "round-trip.conf");
    if (to_text(again) != written) std::abort();  // what was accepted must read back the same
  } catch (const Error&) {
  }
  try {
    RunConfig c;
    apply_override(c, text);
  } catch (const Error&) {
  }
  return 0;
}
