#!/usr/bin/env bash
# The main job on the embedded default: builds, then trains on the generated synthetic
# dataset and shows that the graphs help (RMSE with vs without them).
set -euo pipefail
cd "$(dirname "$0")/.."
# Only the binary it runs: the tests, benchmarks and the Python module are built by
# scripts/test.sh.
# The packages that binary needs, not the tests' (scripts/setup.sh).
export SYMGNN_PACKAGES=${SYMGNN_PACKAGES:-build}
SYMGNN_BUILD_TARGETS=symgnn bash scripts/build.sh
export OMP_WAIT_POLICY=PASSIVE
./build/symgnn data info synthetic
./build/symgnn train "$@"
