#!/usr/bin/env python3
"""Holds users out of ML-100K u1's training ratings, for the new-user checks
(scripts/inductive_ml100k.sh, scripts/new_users_ranking_ml100k.sh).

    hold_out_users_ml100k.py DATA OUT SEED (--count N | --fraction F)

A seeded sample of users (--count N among the users with u1.test ratings, or --fraction F
of the users with u1.base ratings) loses its u1.base ratings. Writes OUT/ml-100k/ (u1.base
without them; u.data, which marks the folder as MovieLens-100K, with what the model may see:
that u1.base and all of u1.test; the other files as they are), OUT/new_ratings.csv (their
removed ratings, user,item,rating) and OUT/held_users.txt (their ids, one per line).
"""
import argparse
import random
import shutil
from pathlib import Path

p = argparse.ArgumentParser()
p.add_argument("data")
p.add_argument("out")
p.add_argument("seed", type=int)
how = p.add_mutually_exclusive_group(required=True)
how.add_argument("--count", type=int)
how.add_argument("--fraction", type=float)
a = p.parse_args()
data, out = Path(a.data), Path(a.out)
(out / "ml-100k").mkdir(parents=True, exist_ok=True)
for name in ("u.info", "u.user", "u.item", "u.genre", "u.occupation", "u1.test"):
    shutil.copy(data / name, out / "ml-100k" / name)
base = open(data / "u1.base").readlines()
test = open(data / "u1.test").readlines()
if a.count is not None:
    users = sorted({int(l.split("\t")[0]) for l in test})
    held = set(random.Random(a.seed).sample(users, a.count))
else:
    users = sorted({int(l.split("\t")[0]) for l in base})
    held = set(random.Random(a.seed).sample(users, int(len(users) * a.fraction)))
kept = [l for l in base if int(l.split("\t")[0]) not in held]
with open(out / "ml-100k" / "u1.base", "w") as f:
    f.writelines(kept)
with open(out / "new_ratings.csv", "w") as f:
    f.write("user,item,rating\n")
    for l in base:
        u, i, r, _ = l.split("\t")
        if int(u) in held:
            f.write(f"{u},{i},{r}\n")
with open(out / "ml-100k" / "u.data", "w") as f:
    f.writelines(kept + test)
with open(out / "held_users.txt", "w") as f:
    f.write("\n".join(map(str, sorted(held))) + "\n")
