#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs CTest, then fuzzes the
# text parsers for a bounded time (SYMGNN_FUZZ_SECONDS, default 20; 0 skips).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export OMP_WAIT_POLICY=PASSIVE
(cd build && ctest --output-on-failure -j"${SYMGNN_TEST_JOBS:-2}")
fuzz_seconds=${SYMGNN_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" -gt 0 ] && [ -x scripts/fuzz.sh ]; then
  bash scripts/fuzz.sh "$fuzz_seconds"
fi
