#!/usr/bin/env bash
# Builds the libFuzzer target over the text parsers with clang++ directly (no CMake: the root
# project needs LibTorch, the parsers do not) and runs it for a bounded time.
#
#   scripts/fuzz.sh [seconds=30] [extra libFuzzer flags...]
#
# Seeds come from fuzz/corpus/ (committed); new inputs go to fuzz/corpus-run/ (ignored).
# Exits non-zero when the fuzzer finds a crash, a leak or undefined behaviour; the reproducer
# is written to build-fuzz/ (crash-*, leak-*, ...).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-30}"
shift || true
build="$root/build-fuzz"
bin="$build/fuzz_text_parsers"
mkdir -p "$build" "$root/fuzz/corpus-run"

sources=(
  "$root/fuzz/fuzz_text_parsers.cpp"
  "$root/src/data/text_reader.cpp"
  "$root/src/data/ratings_csv.cpp"
  "$root/src/data/movielens.cpp"
  "$root/src/data/random_split.cpp"
  "$root/src/data/prediction_file.cpp"
)
# Rebuild only when a source or header changed.
if [[ ! -x "$bin" ]] || [[ -n "$(find "$root/fuzz" "$root/src/data" "$root/src/util" "$root/include" \
      -newer "$bin" \( -name '*.cpp' -o -name '*.h' \) -print -quit)" ]]; then
  echo "fuzz.sh: building $bin"
  "${CXX:-clang++}" -std=c++17 -g -O1 -Wall -Wextra \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root/include" -I"$root/src" "${sources[@]}" -o "$bin"
fi

cd "$build"
echo "fuzz.sh: running for ${seconds}s"
exec "$bin" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  "$@" "$root/fuzz/corpus-run" "$root/fuzz/corpus"
