#!/usr/bin/env bash
# Configures (Release) and builds everything into build/. Extra args go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=${SYMGNN_JOBS:-$(nproc)}
# A unity build (SYMGNN_UNITY_BUILD, CMakeLists.txt) where a clean build is what runs: in CI
# (CI=true) and in a new build directory (a fresh clone's scripts/demo.sh and scripts/test.sh:
# without it test.sh took 1,229 s on a 2-core Intel Xeon). A build/ configured before keeps
# what it was configured with (one file per compile for a developer who ran cmake), so that a
# change recompiles that file alone; SYMGNN_UNITY_BUILD=ON or OFF here decides for either.
unity=${SYMGNN_UNITY_BUILD:-}
if [ -z "$unity" ] && { [ "${CI:-}" = true ] || [ ! -f build/CMakeCache.txt ]; }; then unity=ON; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${unity:+-DSYMGNN_UNITY_BUILD=$unity} "$@" >/dev/null
# SYMGNN_BUILD_TARGETS (e.g. "symgnn"): only those targets; scripts/demo.sh builds only the
# binary it runs, scripts/test.sh everything.
if [ -n "${SYMGNN_BUILD_TARGETS:-}" ]; then
  # shellcheck disable=SC2086
  cmake --build build -j"$jobs" --target $SYMGNN_BUILD_TARGETS
else
  cmake --build build -j"$jobs"
fi
# The Python package (docs/python.md) into the system python3's site-packages, where it
# was built (python3-dev and pybind11-dev present) and that folder is writable.
if compgen -G "build/python/symgnn/_core*.so" >/dev/null; then
  if cmake --install build --component python >/dev/null 2>&1; then
    echo "build: installed the Python package (import symgnn) for $(command -v /usr/bin/python3 || echo python3)"
  else
    echo "build: the Python package is in build/python (PYTHONPATH=build/python); installing it needs root:" \
         "sudo cmake --install build --component python"
  fi
fi
