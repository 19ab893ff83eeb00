#!/usr/bin/env bash
# What the default run costs against catalogue width (issue 41, docs/scale.md "Width"):
# generated sets of the same users and ratings over more and more items, each trained by
# `symgnn train` with no config for a few epochs. Prints, per width: the prior the default
# chose (lowrank.prior = auto and its width), seconds per epoch (median over the epochs of
# run0/history.csv), the whole process's peak resident memory and that per training rating,
# and the ranker train.ranker = auto kept. Prints figures; asserts nothing.
#
#   bench/bench_width.sh [SYMGNN] [ITEMS...]      (defaults: build/symgnn 1000 10000 100000 260000)
#   USERS=20000 RATINGS=600000 EPOCHS=5 THREADS=2 bench/bench_width.sh
#
# About 10 minutes with the defaults on 2 threads (most of it the widest set).
set -euo pipefail
symgnn=${1:-build/symgnn}
shift || true
widths=("$@")
[ ${#widths[@]} -gt 0 ] || widths=(1000 10000 100000 260000)
users=${USERS:-20000}
ratings=${RATINGS:-600000}
epochs=${EPOCHS:-5}
threads=${THREADS:-2}
[ -x "$symgnn" ] || { echo "bench_width: no executable $symgnn (build it: cmake --build build --target symgnn)" >&2; exit 2; }
work=$(mktemp -d /tmp/symgnn-bench-width.XXXXXX)
trap 'rm -rf "$work"' EXIT

printf '%-8s %-10s %-9s %-12s %-14s %-16s %s\n' items ratings prior "s/epoch" "peak RSS (MB)" "bytes/rating" ranker
for items in "${widths[@]}"; do
  set_dir=$work/set$items run=$work/run$items
  "$symgnn" data generate --users "$users" --items "$items" --ratings "$ratings" --seed 1 --out "$set_dir" \
    >/dev/null 2>&1
  /usr/bin/time -f '%M' -o "$work/rss" "$symgnn" train --config "$set_dir/data.conf" --threads "$threads" \
    --set train.epochs="$epochs" --progress lines --out "$run" >"$work/log" 2>&1 ||
    { echo "bench_width: the run on $items items failed:" >&2; tail -5 "$work/log" >&2; exit 1; }
  rss_kb=$(cat "$work/rss")
  train=$(sed -n 's/^ratings .*(train \([0-9]*\).*/\1/p' "$work/log" | head -1)
  prior=$(awk -F' = ' '/^lowrank.prior = / {p=$2} /^lowrank.prior_width = / {w=$2} END {print (p=="encoder" ? "enc " w : p)}' \
    "$run/config.txt")
  per_epoch=$(awk -F, 'NR > 1 {print $7}' "$run/run0/history.csv" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  ranker=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("ranker", {}).get("kind", "-"))' \
    "$run/metrics.json")
  awk -v i="$items" -v t="$train" -v p="$prior" -v e="$per_epoch" -v k="$rss_kb" -v r="$ranker" \
    'BEGIN {printf "%-8s %-10s %-9s %-12.2f %-14.0f %-16.0f %s\n", i, t, p, e, k * 1.024 / 1000, k * 1024 / t, r}'
done
