"""GET /v1/recommend written as a user would without `symgnn serve`: a Flask app over the
symgnn Python package, for bench/bench_serve.cpp to measure beside `serve`. Threaded, one
model loaded once. Listens on 127.0.0.1 only.

    PYTHONPATH=build/python python3 bench/serve_flask.py --model runs/douban --port 8081
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "python"))

import symgnn  # noqa: E402
from flask import Flask, jsonify, request  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, default=8081)
    args = parser.parse_args()
    model = symgnn.load(args.model, verbose=False)
    # One list before the clock starts: the package's first recommend sets up its scoring
    # (12.8 s on the generated 1 M set), which the server does at load; both are then
    # measured warm.
    model.recommend(model.model_.user_ids[0], k=1)
    app = Flask(__name__)

    @app.get("/healthz")
    def healthz():
        return jsonify(status="ok")

    @app.get("/v1/recommend")
    def recommend():
        user = request.args.get("user")
        k = int(request.args.get("k", 10))
        rows = model.recommend(user, k=k)
        items = [{"item": str(r.item), "prediction": float(r.prediction)} for r in rows.itertuples()]
        return jsonify(user=user, items=items)

    app.run(host="127.0.0.1", port=args.port, threaded=True)


if __name__ == "__main__":
    main()
