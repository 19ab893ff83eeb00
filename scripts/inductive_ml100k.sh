#!/usr/bin/env bash
# Inductive prediction on ML-100K u1 (docs/experiments.md, "New users"): 50 users' training
# ratings are removed from u1.base, the model is trained without them, and their ratings
# are then given to `symgnn predict --new-ratings`. Prints, for those users' u1.test
# ratings: the RMSE with --new-ratings, without (the model alone), the item-mean fallback,
# and the same users' RMSE from the model trained on all of u1.base.
# About 4 minutes on 2 cores per seed. Usage: scripts/inductive_ml100k.sh [OUT_DIR] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/inductive}
seed=${2:-1}
data=${SYMGNN_DATA_DIR:-../shared/data}/ml-100k
bin=${SYMGNN_BIN:-build/symgnn}
config=${SYMGNN_CONFIG:-configs/ml100k_lowrank_encoder.conf}
[ -d "$data" ] || { echo "skipped: $data is absent (set SYMGNN_DATA_DIR)"; exit 0; }
# The 50 held-out users: a seeded sample of the users with u1.test ratings.
python3 scripts/hold_out_users_ml100k.py "$data" "$out" "$seed" --count 50
# The pairs scored: the held-out users' u1.test ratings.
python3 - "$data" "$out" <<'PY'
import sys
data, out = sys.argv[1], sys.argv[2]
held = {l.strip() for l in open(f"{out}/held_users.txt") if l.strip()}
with open(f"{out}/pairs.csv", "w") as p:
    p.write("user,item\n")
    for t in (l.split('\t') for l in open(f"{data}/u1.test")):
        if t[0] in held: p.write(f"{t[0]},{t[1]}\n")
PY
"$bin" train --data "$out/ml-100k" --config "$config" --runs 1 --seed "$seed" --quiet --overwrite --out "$out/without"
"$bin" train --data "$data" --config "$config" --runs 1 --seed "$seed" --quiet --overwrite --out "$out/full"
"$bin" predict --model "$out/without" --pairs "$out/pairs.csv" --new-ratings "$out/new_ratings.csv" --out "$out/pred_new.csv"
"$bin" predict --model "$out/without" --pairs "$out/pairs.csv" --out "$out/pred_none.csv"
"$bin" predict --model "$out/full" --pairs "$out/pairs.csv" --out "$out/pred_full.csv"
python3 - "$data" "$out" <<'PY'
import math, sys
from collections import defaultdict
data, out = sys.argv[1], sys.argv[2]
truth = {(t[0], t[1]): float(t[2]) for t in (l.split('\t') for l in open(f"{data}/u1.test"))}
def rmse(path):
    rows = [l.strip().split(',') for l in open(path)][1:]
    return math.sqrt(sum((float(p) - truth[(u, i)]) ** 2 for u, i, p in rows) / len(rows)), len(rows)
s, n = defaultdict(float), defaultdict(int)
for l in open(f"{out}/ml-100k/u1.base"):
    u, i, r, _ = l.split('\t'); s[i] += float(r); n[i] += 1
mu = sum(s.values()) / sum(n.values())
pairs = [l.strip().split(',') for l in open(f"{out}/pairs.csv")][1:]
item_mean = math.sqrt(sum(((s[i] / n[i] if n[i] else mu) - truth[(u, i)]) ** 2 for u, i in pairs) / len(pairs))
new, k = rmse(f"{out}/pred_new.csv")
print(f"50 held-out users, {k} u1.test ratings:")
print(f"  --new-ratings (their u1.base ratings given at prediction time): RMSE {new:.4f}")
print(f"  the model alone (features, no ratings):                          RMSE {rmse(f'{out}/pred_none.csv')[0]:.4f}")
print(f"  item-mean fallback:                                              RMSE {item_mean:.4f}")
print(f"  trained normally on all of u1.base:                              RMSE {rmse(f'{out}/pred_full.csv')[0]:.4f}")
PY
