#!/usr/bin/env bash
# Configures (Release) and builds everything into build/. Extra args go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=${SYMGNN_JOBS:-$(nproc)}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$jobs"
