/// @file fuzz_dataset_snapshot.cpp
/// libFuzzer target over the reader of a model directory's pinned data (dataset.bin,
/// src/data/dataset_snapshot.h), given the payload behind the seal: the checksum stops
/// accidental damage, this shows that deliberate bytes still end in symgnn::Error and never
/// in a crash, an allocation of what the file does not hold, or undefined behaviour. A
/// snapshot that reads must write back to the same bytes. Run with scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "data/dataset_snapshot.h"
#include "symgnn/error.h"
#include "util/checksum.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string payload(reinterpret_cast<const char*>(data), size);
  try {
    const symgnn::Dataset ds = symgnn::data::parse_snapshot(payload, "fuzz.bin");
    // What reads is a Dataset whose snapshot is the input itself, byte for byte (a version 1
    // or 2 file is written back as version 3).
    const bool older = payload.compare(0, 17, "symgnn-dataset-1\n") == 0 ||
                       payload.compare(0, 17, "symgnn-dataset-2\n") == 0;
    if (!older && symgnn::data::fingerprint(ds) != symgnn::sha256_hex(payload)) std::abort();
  } catch (const symgnn::Error&) {
  }
  return 0;
}
