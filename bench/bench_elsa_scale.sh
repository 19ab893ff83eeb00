#!/usr/bin/env bash
# The item-based ranker against catalogue width (issue 43, docs/scale.md "The item-based
# ranker at width"): generated sets of the same users and ratings over more and more items;
# on each, `symgnn train --model elsa` (its defaults: widths and epochs chosen on validation
# NDCG@10) and `symgnn recommend --all --k 10`. Prints, per width: the fit's seconds and
# peak resident memory, the width and epochs it chose, its test NDCG@10 beside popularity's
# (from metrics.json), and recommend's seconds and peak memory. Prints figures; asserts
# nothing.
#
#   bench/bench_elsa_scale.sh [SYMGNN] [ITEMS...]   (defaults: build/symgnn 26000 104000 260000)
#   USERS=20000 RATINGS=600000 THREADS=2 bench/bench_elsa_scale.sh
#
# About 20 minutes with the defaults on 2 threads (most of it the widest set).
set -euo pipefail
symgnn=${1:-build/symgnn}
shift || true
widths=("$@")
[ ${#widths[@]} -gt 0 ] || widths=(26000 104000 260000)
users=${USERS:-20000}
ratings=${RATINGS:-600000}
threads=${THREADS:-2}
[ -x "$symgnn" ] || { echo "bench_elsa_scale: no executable $symgnn (build it: cmake --build build --target symgnn)" >&2; exit 2; }
work=$(mktemp -d /tmp/symgnn-bench-elsa.XXXXXX)
trap 'rm -rf "$work"' EXIT
export OMP_WAIT_POLICY=PASSIVE

printf '%-8s %-8s %-10s %-10s %-8s %-12s %-12s %-10s %s\n' items ratings "fit (s)" "fit (MB)" "d/ep" "NDCG@10" popularity "rec (s)" "rec (MB)"
for items in "${widths[@]}"; do
  set_dir=$work/set$items run=$work/run$items
  "$symgnn" data generate --users "$users" --items "$items" --ratings "$ratings" --seed 1 --out "$set_dir" \
    >/dev/null 2>&1
  # elsa reads the item graph only.
  /usr/bin/time -f '%e %M' -o "$work/fit" "$symgnn" train --config "$set_dir/data.conf" --set data.user_graph_file= \
    --model elsa --threads "$threads" --progress lines --out "$run" >"$work/log" 2>&1 ||
    { echo "bench_elsa_scale: the fit on $items items failed:" >&2; tail -5 "$work/log" >&2; exit 1; }
  /usr/bin/time -f '%e %M' -o "$work/rec" "$symgnn" recommend --model "$run" --all --k 10 --threads "$threads" \
    --out "$work/recs.csv" >"$work/rlog" 2>&1 ||
    { echo "bench_elsa_scale: recommend on $items items failed:" >&2; tail -5 "$work/rlog" >&2; exit 1; }
  read -r fit_s fit_kb <"$work/fit"
  read -r rec_s rec_kb <"$work/rec"
  figures=$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
r = m.get("ranking_at_10", {})
print("%s/%s %.4f %.4f" % (m.get("elsa.d", "-"), m.get("elsa.epochs", "-"), r.get("ndcg", float("nan")),
                           r.get("popularity", {}).get("ndcg", float("nan"))))' "$run/metrics.json")
  read -r dep ndcg pop <<<"$figures"
  train=$(sed -n 's/^ratings .*(train \([0-9]*\).*/\1/p' "$work/log" | head -1)
  printf '%-8s %-8s %-10.0f %-10.0f %-8s %-12s %-12s %-10.1f %.0f\n' "$items" "$train" "$fit_s" \
    "$(echo "$fit_kb * 1.024 / 1000" | bc -l)" "$dep" "$ndcg" "$pop" "$rec_s" "$(echo "$rec_kb * 1.024 / 1000" | bc -l)"
done
