#!/usr/bin/env bash
# The whole C++ test suite under AddressSanitizer + UndefinedBehaviorSanitizer, in its own
# build folder (build-asan/). Too long for CI's budget (about an hour on 2 cores: a full
# instrumented build, then the tests at roughly 2-3x their usual time), so it runs on its
# own: before a release and after any change to memory-handling code (docs/reliability.md).
#
#   scripts/sanitize.sh [extra ctest args...]      e.g. scripts/sanitize.sh -R atomic
#
# Only symgnn's code is instrumented; LibTorch, HDF5 and OpenBLAS are Debian's builds. The
# Python tests are left out (the interpreter would need the ASan runtime preloaded).
# Exits non-zero on any sanitizer report: halt_on_error, and UBSan does not recover.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=${SYMGNN_JOBS:-$(nproc)}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# SYMGNN_PCH=OFF: this build also checks that every file includes the LibTorch headers it
# uses (the precompiled header of the default build would hide one missing).
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYMGNN_PYTHON=OFF -DSYMGNN_BUILD_BENCH=OFF -DSYMGNN_PCH=OFF \
  "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
  "${launcher[@]}" >/dev/null
cmake --build build-asan -j"$jobs"
# detect_leaks=0: LibTorch and OpenBLAS keep per-thread pools and registries alive until
# exit by design; this run judges memory errors and undefined behaviour, not exit-time state.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=0:detect_odr_violation=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export OMP_WAIT_POLICY=PASSIVE
start=$(date +%s)
# package.consumer builds a separate project against the installed libraries with plain
# flags; instrumented libraries cannot link there (undefined __asan_* symbols), and what it
# checks is the packaging, which scripts/test.sh covers.
(cd build-asan && ctest --output-on-failure -j"${SYMGNN_TEST_JOBS:-2}" -E '^package\.consumer$' "$@")
echo "sanitize.sh: the suite passed under ASan+UBSan in $(( $(date +%s) - start ))s"
