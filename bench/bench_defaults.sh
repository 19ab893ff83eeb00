#!/usr/bin/env bash
# What `symgnn train` with no config costs and gives on each development set present
# (issue 62: "bench/ reports the default's time per set"): wall seconds, peak resident
# memory, the test RMSE beside `--model baseline`'s on the same split, and the summary's
# verdict line (what train.auto kept). One seed, the threads given (default 2).
#
#   bench/bench_defaults.sh [SET ...]     # sets: ciaodvd mls ml100k douban flixster
#   SYMGNN_THREADS=1 bench/bench_defaults.sh ciaodvd
#
# The data come from $SYMGNN_DATA_DIR or ../shared/data; a set that is absent is skipped
# with a line saying so. About 15-25 minutes for all five on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/symgnn
[ -x "$bin" ] || { echo "bench_defaults: build/symgnn missing: run scripts/build.sh first" >&2; exit 2; }
data=${SYMGNN_DATA_DIR:-../shared/data}
threads=${SYMGNN_THREADS:-2}
out=$(mktemp -d /tmp/bench_defaults.XXXXXX)
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(ciaodvd mls ml100k douban flixster)

args_of() {
  case "$1" in
    ciaodvd)
      local d=$data/real/ciaodvd
      [ -f "$d/train.csv" ] || return 1
      echo "--data $d/train.csv --set data.test_file=$d/test.csv --set data.user_graph_file=$d/user_graph.csv --set data.item_features_file=$d/item_features.csv" ;;
    mls)
      local d=$data/real/ml-latest-small
      [ -f "$d/train.csv" ] || return 1
      echo "--data $d/train.csv --set data.test_file=$d/test.csv --set data.item_features_file=$d/item_features.csv" ;;
    ml100k)
      [ -d "$data/ml-100k" ] || return 1
      echo "--data $data/ml-100k --split u1" ;;
    douban | flixster)
      [ -f "$data/monti/$1.mat" ] || return 1
      echo "--data $data/monti/$1.mat" ;;
    *) echo "bench_defaults: unknown set '$1' (ciaodvd mls ml100k douban flixster)" >&2; exit 2 ;;
  esac
}

# "seconds peak_kib" of a command, its output in $2.
timed() {
  local log=$1
  shift
  /usr/bin/time -f "%e %M" -o "$log.time" "$@" >"$log" 2>&1
  cat "$log.time"
}

printf '%-10s %9s %9s %10s %10s  %s\n' set seconds peak_MiB default baseline "verdict (train.auto)"
for s in "${sets[@]}"; do
  if ! a=$(args_of "$s"); then
    echo "$s: data absent under $data, skipped"
    continue
  fi
  # shellcheck disable=SC2086
  read -r sec kib < <(timed "$out/$s.default.log" "$bin" train $a --threads "$threads" --out "$out/$s.default")
  # shellcheck disable=SC2086
  "$bin" train $a --threads "$threads" --model baseline --out "$out/$s.baseline" >"$out/$s.baseline.log" 2>&1
  rmse() { python3 -c "import json,sys; print('%.4f' % json.load(open(sys.argv[1]))['test_rmse'])" "$1/metrics.json" 2>/dev/null || echo "?"; }
  verdict=$(grep -m1 '^kept:' "$out/$s.default.log" | cut -d';' -f1 || true)
  printf '%-10s %9.1f %9.0f %10s %10s  %s\n' "$s" "$sec" "$((kib / 1024))" "$(rmse "$out/$s.default")" \
    "$(rmse "$out/$s.baseline")" "$verdict"
done
echo "logs and model folders: $out"
