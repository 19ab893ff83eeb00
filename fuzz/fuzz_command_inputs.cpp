/// @file fuzz_command_inputs.cpp
/// libFuzzer target over the inputs of the commands beside train that the text parsers'
/// target does not reach: `tune`'s space files (src/tune/space.h), the metrics.json that
/// `blend`, `reproduce` and serve read back (RunMetrics::from_json), and the torchrun
/// variables of the multi-process start-up (src/train/distributed_env.h), set from the
/// input's first six lines. Bad input must end in symgnn::Error; any other exception, crash
/// or undefined behaviour is a bug. Run with scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "guarded.h"
#include "symgnn/error.h"
#include "symgnn/run_metrics.h"
#include "train/distributed_env.h"
#include "tune/space.h"

using symgnn::fuzz::guarded;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  guarded([&] { symgnn::tune::parse_space(text, "fuzz.space"); });

  // A metrics.json as blend and reproduce read it; text that is no JSON is the parser's to
  // refuse (the readers wrap its error), so only parsed documents go on.
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) guarded([&] { symgnn::RunMetrics::from_json(j, "fuzz/metrics.json"); });

  // One variable a line, in this order; a line "-" leaves it unset.
  static const char* const names[] = {"WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                                      "RANK",       "LOCAL_RANK",  "SYMGNN_DIST_TIMEOUT"};
  size_t at = 0;
  for (const char* name : names) {
    const size_t nl = text.find('\n', at);
    const std::string value = at <= text.size()
                                  ? text.substr(at, nl == std::string::npos ? std::string::npos : nl - at)
                                  : std::string("-");
    if (value == "-" || value.find('\0') != std::string::npos)
      unsetenv(name);
    else
      setenv(name, value.c_str(), 1);
    at = nl == std::string::npos ? text.size() + 1 : nl + 1;
  }
  guarded([&] {
    const symgnn::train::DistributedEnv env = symgnn::train::read_distributed_env();
    // What is accepted is a world the launcher can start.
    if (env.world_size < 1 || env.rank < 0 || (env.world_size > 1 && env.rank >= env.world_size))
      std::abort();
    if (env.world_size > 1 && (env.port < 1 || env.port > 65535 || env.timeout_seconds < 1)) std::abort();
  });
  return 0;
}
