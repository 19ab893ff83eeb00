#!/usr/bin/env python3
"""symgnn from Python: fit the tuned low-rank config on ML-100K u1 (the synthetic default
when the data is absent), print the test RMSE and one user's top 10, and plot the
validation curve when matplotlib is installed.

    PYTHONPATH=build/python python3 examples/quickstart.py    # from the build tree
    python3 examples/quickstart.py                            # after cmake --install
"""

import csv
import os
import sys

import symgnn

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
data_dir = os.environ.get("SYMGNN_DATA_DIR") or os.path.join(root, "..", "shared", "data")
ml100k = os.path.join(data_dir, "ml-100k")

if os.path.isdir(ml100k):
    data = symgnn.load_dataset(ml100k, split="u1")
    model = symgnn.SyMGNN(config=os.path.join(root, "configs", "ml100k_lowrank_encoder.conf"), train_runs=1)
else:
    print(f"{ml100k} is absent (set SYMGNN_DATA_DIR): using the synthetic default", file=sys.stderr)
    data = symgnn.load_dataset("synthetic")
    model = symgnn.SyMGNN(train_epochs=200)

model.fit(data, out=os.path.join(root, "out", "quickstart"), overwrite=True)
print(f"{model.model_.name} on {data.name}: test RMSE {model.rmse(data):.4f}")
user = data.user_ids[0]
print(f"top 10 for user {user}:")
print(model.recommend(user, k=10).to_string(index=False))

# The validation curve of run 0 (history.csv of the model directory).
history = os.path.join(model.path_, "run0", "history.csv")
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot", file=sys.stderr)
    sys.exit(0)
with open(history) as f:
    rows = list(csv.DictReader(f))
epochs = [int(r["epoch"]) for r in rows]


def column(name):
    return [float(r[name]) if r.get(name) not in (None, "", "nan", "n/a") else float("nan") for r in rows]


plt.plot(epochs, column("train_rmse"), label="training RMSE")
val = column("val_rmse")
if any(v == v for v in val):
    plt.plot(epochs, val, label="validation RMSE")
else:  # the ML-100K config trains on all of u1.base: no validation carve
    plt.plot(epochs, column("test_rmse"), label="test RMSE (no validation carve in this config)")
plt.xlabel("epoch")
plt.ylabel("RMSE")
plt.legend()
plot = os.path.join(model.path_, "curve.png")
plt.savefig(plot, dpi=100)
print(f"wrote {plot}")
