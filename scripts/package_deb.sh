#!/usr/bin/env bash
# Builds the Debian package of the command line, <build>/symgnn_<version>_amd64.deb
# (cmake/cpack.cmake: /usr/bin/symgnn, Depends from dpkg-shlibdeps). The build folder is
# SYMGNN_BUILD_DIR (default build/); one not yet configured is configured Release without
# tests, benchmarks and the Python package, which the .deb does not hold. cpack builds
# whatever the folder has out of date first (its preinstall step).
#   sudo apt-get install ./build/symgnn_*.deb     # then: symgnn version
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SYMGNN_BUILD_DIR:-build}
jobs=${SYMGNN_JOBS:-$(nproc)}
if [ ! -f "$build/CMakeCache.txt" ]; then
  bash scripts/setup.sh
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSYMGNN_BUILD_TESTS=OFF -DSYMGNN_BUILD_BENCH=OFF \
        -DSYMGNN_PYTHON=OFF >/dev/null
fi
cmake --build "$build" -j"$jobs"
(cd "$build" && cpack -G DEB)
ls -l "$build"/symgnn_*.deb
