#!/usr/bin/env bash
# The lists of users the model was not trained on, on ML-100K u1 (docs/experiments.md,
# "Lists for users given after the fit"): 10 % of the users (seeded) lose their u1.base
# ratings; the default (no config) trains without them; their removed ratings are given to
# `recommend --new-ratings`; their lists of 10 are scored (NDCG@10) against their u1.test
# ratings >= 4, candidates the items they did not rate. Beside it, EASE fitted with their
# rows (train --model ease on all of u1.base) scores the same users' lists.
# About 4 minutes on 2 cores. Usage: scripts/new_users_ranking_ml100k.sh [OUT_DIR] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/new_users_ranking}
seed=${2:-1}
bin=${SYMGNN_BIN:-build/symgnn}
data=${SYMGNN_DATA_DIR:-../shared/data}/ml-100k
[ -d "$data" ] || { echo "skipped: $data is absent (set SYMGNN_DATA_DIR)"; exit 0; }
python3 scripts/hold_out_users_ml100k.py "$data" "$out" "$seed" --fraction 0.1
OMP_WAIT_POLICY=PASSIVE "$bin" train --data "$out/ml-100k" --split u1 --threads 1 --quiet --overwrite --out "$out/model" > "$out/train.log" 2>&1
users="$out/held_users.txt"
OMP_WAIT_POLICY=PASSIVE "$bin" recommend --model "$out/model" --new-ratings "$out/new_ratings.csv" --users "$users" --k 10 --out "$out/recs.csv" > "$out/rec.log" 2>&1 || { cat "$out/rec.log"; exit 1; }
score() {  # score LISTS.csv LABEL: NDCG@10 of the held-out users' lists
python3 - "$data" "$out" "$1" "$2" <<'PY'
import math, sys, csv
from collections import defaultdict
data, out, lists, label = sys.argv[1:5]
held = {l.strip() for l in open(f"{out}/held_users.txt") if l.strip()}
rel = defaultdict(set)
for l in open(f"{data}/u1.test"):
    u, i, r, _ = l.split('\t')
    if u in held and float(r) >= 4: rel[u].add(i)
recs = defaultdict(list)
rows = list(csv.reader(open(lists)))
hdr = rows[0]
ui, ii = hdr.index("user"), hdr.index("item")
for r in rows[1:]: recs[r[ui]].append(r[ii])
nd = []
for u, R in rel.items():
    if not R: continue
    lst = recs.get(u, [])[:10]
    dcg = sum(1 / math.log2(k + 2) for k, i in enumerate(lst) if i in R)
    idcg = sum(1 / math.log2(k + 2) for k in range(min(10, len(R))))
    nd.append(dcg / idcg)
print(f"{label}: {len(nd)} held-out users with a relevant test item, NDCG@10 {sum(nd)/len(nd):.4f}")
PY
}
score "$out/recs.csv" "the default trained without them, given their ratings"
grep -o "ranked by [^;]*" "$out/rec.log" | head -1
OMP_WAIT_POLICY=PASSIVE "$bin" train --data "$data" --split u1 --model ease --threads 1 --quiet --overwrite --out "$out/ease_all" > "$out/ease_train.log" 2>&1
OMP_WAIT_POLICY=PASSIVE "$bin" recommend --model "$out/ease_all" --users "$out/held_users.txt" --k 10 --out "$out/ease_recs.csv" > /dev/null 2>&1
score "$out/ease_recs.csv" "EASE fitted with their rows"
