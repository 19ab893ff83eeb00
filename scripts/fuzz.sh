#!/usr/bin/env bash
# Builds the libFuzzer targets with clang++ directly (no CMake: the root project needs
# LibTorch, these readers do not) and runs each for a bounded time.
#
#   scripts/fuzz.sh [seconds=30] [extra libFuzzer flags...]
#
# Targets (fuzz/): text_parsers (every text format, the pairs reader included), config (config
# files and --set), mat (the MATLAB v7.3 reader, from recipes for small HDF5 files),
# serve_api (serve's request handler, where build/ has the libraries), dataset_snapshot (a
# model directory's dataset.bin, behind its seal), command_inputs (tune's space files, the
# metrics.json blend and reproduce read, the torchrun variables). The seconds are shared:
# half to text_parsers, a quarter to config, mat and serve_api each, an eighth to
# dataset_snapshot and command_inputs (1.5 times the seconds in all, as many at a time as there
# are cores);
# SYMGNN_FUZZ_TARGETS="config mat" runs only those. Seeds come from fuzz/corpus/<target>/
# (committed; the config target also reads configs/); new inputs go to fuzz/corpus-run/
# (ignored). Exits non-zero when a fuzzer finds a crash, a leak or undefined behaviour; the
# reproducer is written to build-fuzz/ (crash-*, leak-*, ...).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-30}"
shift || true
build="$root/build-fuzz"
mkdir -p "$build"

# The util sources the readers need (the checksum check of prediction files, the writer it uses).
util=("$root/src/util/checksum.cpp" "$root/src/util/atomic_file.cpp" "$root/src/util/fault_injection.cpp"
      "$root/src/util/strings.cpp" "$root/src/util/text.cpp")
data=("$root/src/data/text_reader.cpp" "$root/src/data/ratings_csv.cpp" "$root/src/data/movielens.cpp"
      "$root/src/data/random_split.cpp" "$root/src/data/prediction_file.cpp" "$root/src/data/time_split.cpp"
      "$root/src/data/id_rule.cpp" "$root/src/data/feedback.cpp")
hdf5_cflags=$(pkg-config --cflags hdf5 2>/dev/null || echo -I/usr/include/hdf5/serial)
hdf5_libs=$(pkg-config --libs hdf5 2>/dev/null || echo "-L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5")

# build <target> <sources...> -- <link flags...>: rebuilt only when a source or header changed.
build() {
  local name="$1"; shift
  local sources=() flags=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do sources+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  flags=("$@")
  local bin="$build/fuzz_$name"
  if [[ ! -x "$bin" ]] || [[ -n "$(find "$root/fuzz" "$root/src/data" "$root/src/util" "$root/src/tune" \
        "$root/src/train" "$root/include" \
        -newer "$bin" \( -name '*.cpp' -o -name '*.h' \) -print -quit)" ]]; then
    echo "fuzz.sh: building $bin"
    "${CXX:-clang++}" -std=c++17 -g -O1 -Wall -Wextra \
      -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
      -I"$root/include" -I"$root/src" $hdf5_cflags "${sources[@]}" -o "$bin" -lcrypto "${flags[@]}"
  fi
}

# The builds, then the fuzzers, run side by side, as many at a time as the machine has cores
# (SYMGNN_JOBS): each build is one clang process compiling its sources one after another. A
# failed build stops the script when it is waited for.
jobs=${SYMGNN_JOBS:-$(nproc)}
pids=()
spawn() {
  "$@" &
  pids+=($!)
  if (( ${#pids[@]} >= jobs )); then
    local finished
    wait -n -p finished "${pids[@]}"  # whichever ends first; a failure stops the script (set -e)
    local left=()
    for pid in "${pids[@]}"; do [[ "$pid" != "$finished" ]] && left+=("$pid"); done
    pids=("${left[@]}")
  fi
}
# Waits for every job spawned so far; a failed one stops the script (set -e).
wait_all() {
  for pid in "${pids[@]}"; do wait "$pid"; done
  pids=()
}
# serve_api: the request handler of `symgnn serve` (src/serve/api.cpp and the routes' files,
# the same as SYMGNN_SERVE_API_SOURCES in CMakeLists.txt, instrumented), linked
# against the rest of the project as built in build/ (it answers from LibTorch models): only
# where build/ holds the libraries (scripts/build.sh; scripts/test.sh builds them first).
default_targets="text_parsers config mat dataset_snapshot command_inputs"
libs="$root/build"
if [[ -f "$libs/libsymgnn_serve.a" && -f "$libs/generated/serve/page_html.h" ]]; then
  default_targets="$default_targets serve_api"
  torch_libs=(/usr/lib/x86_64-linux-gnu/libtorch.so /usr/lib/x86_64-linux-gnu/libtorch_cpu.so
              /usr/lib/x86_64-linux-gnu/libc10.so)
  build_serve_api() {
    local bin="$build/fuzz_serve_api"
    local api=("$root"/src/serve/{api,api_request,new_user}.cpp "$root"/src/serve/routes_*.cpp)
    if [[ ! -x "$bin" || "$root/fuzz/fuzz_serve_api.cpp" -nt "$bin" || "$libs/libsymgnn_serve.a" -nt "$bin" ||
          -n "$(find "$root/src/serve" -newer "$bin" \( -name '*.cpp' -o -name '*.h' \) -print -quit)" ]]; then
      echo "fuzz.sh: building $bin"
      "${CXX:-clang++}" -std=c++17 -g -O1 -Wall -Wextra \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -I"$root/include" -I"$root/src" -I"$libs/generated" $hdf5_cflags \
        "$root/fuzz/fuzz_serve_api.cpp" "${api[@]}" -o "$bin" \
        -Wl,--start-group "$libs"/libsymgnn_*.a -Wl,--end-group \
        "${torch_libs[@]}" $hdf5_libs -lcrypto -lcpp-httplib -lpthread -ldl -Wl,-rpath,/usr/lib/x86_64-linux-gnu
    fi
  }
  # The longest build: started first, beside the others.
  spawn build_serve_api
else
  echo "fuzz.sh: serve_api skipped: build/ has no libsymgnn_serve.a yet (scripts/build.sh builds it)"
fi

spawn build text_parsers "$root/fuzz/fuzz_text_parsers.cpp" "${data[@]}" "${util[@]}"
spawn build config "$root/fuzz/fuzz_config.cpp" "$root/src/util/config_io.cpp" "$root/src/util/presets.cpp" \
  "${util[@]}"
spawn build mat "$root/fuzz/fuzz_mat.cpp" "$root/src/data/mat_v73.cpp" -- $hdf5_libs
# dataset_snapshot: the reader of a model directory's dataset.bin; its invariants check
# (validate_dataset) lives beside load_dataset, so the whole torch-free data folder links in.
spawn build dataset_snapshot "$root/fuzz/fuzz_dataset_snapshot.cpp" "$root"/src/data/*.cpp "${util[@]}" -- $hdf5_libs

# command_inputs: tune's space files, the metrics.json blend and reproduce read back, and the
# torchrun variables of the multi-process start-up.
spawn build command_inputs "$root/fuzz/fuzz_command_inputs.cpp" "$root/src/tune/space.cpp" \
  "$root/src/util/run_metrics.cpp" \
  "$root/src/train/distributed_env.cpp" "$root/src/util/config_io.cpp" "$root/src/util/presets.cpp" "${util[@]}"

wait_all


targets=(${SYMGNN_FUZZ_TARGETS:-$default_targets})
fuzzer_flags=("$@")
# run_target <name> <seconds> <seed folders...>: its log in build-fuzz/<name>.log, its exit
# status in build-fuzz/<name>.status (read below, once every fuzzer has stopped).
run_target() {
  local t="$1" share="$2" status=0
  shift 2
  "$build/fuzz_$t" -max_total_time="$share" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "${fuzzer_flags[@]}" "$root/fuzz/corpus-run/$t" "$@" > "$build/$t.log" 2>&1 || status=$?
  echo "$status" > "$build/$t.status"
}
cd "$build"
for t in "${targets[@]}"; do
  case "$t" in
    text_parsers) share=$(( seconds / 2 )); seeds=("$root/fuzz/corpus/text") ;;
    config) share=$(( seconds / 4 )); seeds=("$root/fuzz/corpus/config" "$root/configs") ;;
    mat) share=$(( seconds / 4 )); seeds=("$root/fuzz/corpus/mat") ;;
    serve_api) share=$(( seconds / 4 )); seeds=("$root/fuzz/corpus/serve_api") ;;
    dataset_snapshot) share=$(( seconds / 8 )); seeds=("$root/fuzz/corpus/dataset_snapshot") ;;
    command_inputs) share=$(( seconds / 8 )); seeds=("$root/fuzz/corpus/command_inputs") ;;
    *) echo "fuzz.sh: unknown target '$t' (text_parsers, config, mat, serve_api, dataset_snapshot, command_inputs)" >&2; exit 2 ;;
  esac
  [[ ${#targets[@]} -eq 1 ]] && share=$seconds
  (( share < 1 )) && share=1
  mkdir -p "$root/fuzz/corpus-run/$t"
  rm -f "$build/$t.status"
  echo "fuzz.sh: $t for ${share}s"
  spawn run_target "$t" "$share" "${seeds[@]}"
done
wait_all

for t in "${targets[@]}"; do
  echo "fuzz.sh: $t:"
  tail -n 12 "$build/$t.log"
  status=$(cat "$build/$t.status" 2>/dev/null || echo 1)
  if [[ "$status" -ne 0 ]]; then
    # The report itself (sanitizer, abort or uncaught exception), not only the statistics.
    grep -m 20 -E "ERROR|Assertion|terminate|what\(\)|runtime error|SUMMARY" "$build/$t.log" >&2 || true
    echo "fuzz.sh: $t failed (exit $status); the whole log is $build/$t.log" >&2
    exit "$status"
  fi
done
