#!/usr/bin/env python3
"""Soak test of `symgnn serve` (docs/reliability.md, "Soak"): bounded in time and count.

Trains a small low-rank model on the synthetic set (unless --model DIR is given), starts
`symgnn serve` on a free port of 127.0.0.1 with 4 workers, and sends mixed requests from
32 clients for --seconds (default 60): lists of known users, lists of new users from their
ratings, predictions, similar items, health; one client reloads the models every 5 s
(POST /v1/admin/reload), and SIGHUP reloads them too. Then SIGTERM.

Before the load, 8 idle connections are opened: a request behind them must be answered
within 3 s; at the end, SIGTERM with 8 idle connections open must end the server within 5 s.
Passes (exit 0) when no request failed (every answer 200, no connection error), the p99
latency is under --p99 seconds (default 2.0), those two bounds hold and the server exits 0. Prints the count, the statuses and p50/p99 per route either way. Standard library
only; at most 32 * seconds * 1000 requests, so it stops by itself.

    scripts/soak_serve.py [--symgnn build/symgnn] [--model DIR] [--seconds 60] [--p99 2.0]
"""
import argparse
import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time


def request(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--symgnn", default=os.path.join(os.path.dirname(__file__), "..", "build", "symgnn"))
    ap.add_argument("--model", help="a model directory to serve (default: train one, about 10 s)")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--p99", type=float, default=2.0, help="the largest p99 latency passed, in seconds")
    a = ap.parse_args()

    work = tempfile.mkdtemp(prefix="symgnn-soak-")
    model = a.model
    if model is None:
        model = os.path.join(work, "model")
        subprocess.run([a.symgnn, "train", "--epochs", "20", "--no-compare", "--quiet", "--out", model],
                       check=True)
    token_file = os.path.join(work, "token.txt")
    token = "soak-token-0123456789"
    with open(token_file, "w") as f:
        f.write(token + "\n")
    log_path = os.path.join(work, "serve.log")
    log = open(log_path, "w")
    server = subprocess.Popen([a.symgnn, "serve", "--model", "main=" + model, "--port", "0", "--threads", "4",
                               "--admin-token-file", token_file], stdout=log, stderr=log)
    port = None
    for _ in range(600):
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", open(log_path).read())
        if m:
            port = int(m.group(1))
            break
        if server.poll() is not None:
            break
        time.sleep(0.1)
    if port is None:
        print("soak: the server did not start:\n" + open(log_path).read(), file=sys.stderr)
        server.kill()
        return 1

    # Idle connections, twice the workers: a request still gets its turn within a few
    # seconds (each holds a worker for serve's 1 s idle time, not the library's 5 s).
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(8)]
    time.sleep(0.2)
    t0 = time.monotonic()
    idle_status, _ = request(port, "GET", "/healthz")
    idle_wait = time.monotonic() - t0
    for s in idle:
        s.close()

    users = json.loads(request(port, "GET", "/v1/users?limit=50")[1])["users"]
    items = [e["item"] for e in json.loads(request(port, "GET", "/v1/recommend?user=%s&k=20" % users[0])[1])["items"]]

    def routes(rng):
        user = rng.choice(users)
        pick = rng.random()
        if pick < 0.35:
            return "list", "GET", "/v1/recommend?user=%s&k=10" % user, None
        if pick < 0.55:
            given = rng.sample(items, 3)
            body = {"k": 5, "ratings": [{"item": i, "rating": rng.choice([1, 2, 3, 4, 5])} for i in given]}
            return "new user", "POST", "/v1/recommend", json.dumps(body)
        if pick < 0.75:
            body = {"pairs": [{"user": rng.choice(users), "item": rng.choice(items)} for _ in range(20)]}
            return "predict", "POST", "/v1/predict", json.dumps(body)
        if pick < 0.9:
            return "similar", "GET", "/v1/similar?item=%s&k=5" % rng.choice(items), None
        return "health", "GET", "/healthz", None

    results = []  # (route, status or error, seconds)
    lock = threading.Lock()
    end = time.monotonic() + a.seconds

    def client(seed):
        rng = random.Random(seed)
        count = 0
        while time.monotonic() < end and count < a.seconds * 1000:
            name, method, path, body = routes(rng)
            t0 = time.monotonic()
            try:
                status, _ = request(port, method, path, body, {"Content-Type": "application/json"} if body else None)
            except Exception as e:  # a reset or a timeout is a failed request
                status = type(e).__name__
            with lock:
                results.append((name, status, time.monotonic() - t0))
            count += 1

    def reloader():
        k = 0
        while time.monotonic() < end:
            time.sleep(5)
            k += 1
            if k % 2:
                status, _ = request(port, "POST", "/v1/admin/reload", b"", {"Authorization": "Bearer " + token})
                with lock:
                    results.append(("reload", status, 0.0))
            else:
                server.send_signal(signal.SIGHUP)

    threads = [threading.Thread(target=client, args=(s,)) for s in range(a.clients)]
    threads.append(threading.Thread(target=reloader))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(8)]
    time.sleep(0.2)
    t0 = time.monotonic()
    server.send_signal(signal.SIGTERM)
    try:
        code = server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        code = "still running 30 s after SIGTERM"
    stop_wait = time.monotonic() - t0
    for s in idle:
        s.close()

    failed = [r for r in results if r[1] != 200]
    print("soak: %d requests from %d clients in %.0f s" % (len(results), a.clients, a.seconds))
    worst = 0.0
    for name in sorted({r[0] for r in results}):
        times = sorted(r[2] for r in results if r[0] == name)
        p50, p99 = times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]
        if name != "reload":
            worst = max(worst, p99)
        statuses = {}
        for r in results:
            if r[0] == name:
                statuses[r[1]] = statuses.get(r[1], 0) + 1
        print("  %-9s %6d  p50 %7.1f ms  p99 %7.1f ms  statuses %s" % (name, len(times), 1e3 * p50, 1e3 * p99,
                                                                        statuses))
    print("  /healthz behind 8 idle connections on 4 workers: %s after %.2f s" % (idle_status, idle_wait))
    print("  server exit after SIGTERM, 8 idle connections open: %s after %.2f s" % (code, stop_wait))
    slow = idle_status != 200 or idle_wait >= 3.0 or stop_wait >= 5.0
    ok = not failed and worst < a.p99 and code == 0 and not slow
    if slow:
        print("soak: FAILED: idle connections held the server (limits: 3 s for a request behind them, "
              "5 s for SIGTERM)", file=sys.stderr)
    if failed:
        print("soak: FAILED: %d requests did not get 200, e.g. %s" % (len(failed), failed[:3]), file=sys.stderr)
    if worst >= a.p99:
        print("soak: FAILED: p99 %.2f s >= %.2f s" % (worst, a.p99), file=sys.stderr)
    if code != 0:
        print("soak: FAILED: the server's exit: %s; its log: %s" % (code, log_path), file=sys.stderr)
    print("soak: %s" % ("passed" if ok else "failed"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
