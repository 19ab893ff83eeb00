#!/usr/bin/env python3
"""The page of `symgnn serve` in a real browser (docs/serve.md, "The page").

Trains a small model on a ratings CSV written here (with a names file), starts
`symgnn serve` on a free port of 127.0.0.1, loads / in headless Chromium (Debian's
chromium and chromium-driver, driven by python3-selenium), picks a user and checks that
the list the page shows is the API's answer for that user, item names included; then
clicks an item and checks the similar items against GET /v1/similar.

Usage: browser_test.py SYMGNN_BINARY. Exit 77 (CTest's skip) when selenium, chromium or
chromedriver is missing, with a line saying which.
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

SKIP = 77


def skip(why):
    print("SKIP: " + why + " (scripts/setup.sh installs chromium, chromium-driver, python3-selenium)")
    sys.exit(SKIP)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    skip("python3-selenium is not installed")

CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMEDRIVER):
    skip("chromedriver is not installed")
if not os.path.exists(CHROMIUM):
    skip("chromium is not installed")


def write_data(folder):
    """A 60 x 40 ratings CSV with two taste groups, and names for every item."""
    rng = random.Random(3)
    ratings = os.path.join(folder, "ratings.csv")
    names = os.path.join(folder, "names.csv")
    with open(ratings, "w") as f:
        f.write("user,item,rating\n")
        for u in range(60):
            for i in range(40):
                if rng.random() < 0.35:
                    liked = (u % 2) == (i % 2)
                    r = min(5, max(1, (4 if liked else 2) + rng.choice([-1, 0, 0, 1])))
                    f.write("u%d,m%d,%d\n" % (u, i, r))
    with open(names, "w") as f:
        f.write("id,name\n")
        for i in range(40):
            f.write('m%d,"Film %d, part %s"\n' % (i, i, "AB"[i % 2]))
    return ratings, names


def get(port, path):
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=30) as r:
        return json.loads(r.read().decode("utf-8"))


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="symgnn-browser-")
    server = None
    driver = None
    try:
        ratings, names = write_data(work)
        model = os.path.join(work, "model")
        subprocess.run([binary, "train", "--data", ratings, "--preset", "paper", "--epochs", "5",
                        "--set", "lowrank.hidden=8", "--quiet", "--out", model], check=True)
        log = open(os.path.join(work, "serve.log"), "w")
        server = subprocess.Popen([binary, "serve", "--model", model, "--port", "0", "--item-names", names],
                                  stdout=log, stderr=subprocess.STDOUT)
        port = None
        deadline = time.time() + 60
        while time.time() < deadline and port is None:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", open(log.name).read())
            port = int(m.group(1)) if m else None
            if server.poll() is not None:
                raise SystemExit("serve exited: " + open(log.name).read())
            time.sleep(0.1)
        if port is None:
            raise SystemExit("serve did not print its port in 60 s")

        options = Options()
        options.binary_location = CHROMIUM
        for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
            options.add_argument(a)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(60)
        driver.get("http://127.0.0.1:%d/" % port)
        wait = WebDriverWait(driver, 30)
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")

        user = "u7"
        box = driver.find_element(By.ID, "user-input")
        box.clear()
        box.send_keys(user)
        driver.find_element(By.ID, "show").click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#recs li")) > 0)

        expected = get(port, "/v1/recommend?user=%s&k=10" % user)
        shown = [li.get_attribute("data-item") for li in driver.find_elements(By.CSS_SELECTOR, "#recs li")]
        want = [e["item"] for e in expected["items"]]
        assert shown == want, "page shows %s, the API answers %s" % (shown, want)
        first = driver.find_elements(By.CSS_SELECTOR, "#recs li")[0].text
        assert expected["items"][0]["name"] in first, "no name in '%s'" % first

        rated = get(port, "/v1/users?user=%s" % user)
        shown_rated = [li.get_attribute("data-item") for li in driver.find_elements(By.CSS_SELECTOR, "#rated li")]
        assert shown_rated == [e["item"] for e in rated["ratings"]], "rated list differs from the API"
        assert not set(shown) & set(shown_rated), "a rated item is recommended"

        driver.find_elements(By.CSS_SELECTOR, "#recs li")[0].click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#similar li")) > 0)
        similar = get(port, "/v1/similar?item=%s&k=10" % want[0])
        shown_similar = [li.get_attribute("data-item") for li in driver.find_elements(By.CSS_SELECTOR, "#similar li")]
        assert shown_similar == [e["item"] for e in similar["items"]], "similar list differs from the API"

        rows = driver.find_element(By.ID, "model-info").text
        assert "lowrank" in rows, "model panel: " + rows
        assert driver.find_elements(By.CSS_SELECTOR, "#curve polyline"), "no training curve drawn"
        print("browser test: page list for %s equals GET /v1/recommend (%d items), similar items equal "
              "GET /v1/similar" % (user, len(shown)))
    finally:
        if driver is not None:
            driver.quit()
        if server is not None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
