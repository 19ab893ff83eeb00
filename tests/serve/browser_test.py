#!/usr/bin/env python3
"""The page of `symgnn serve` in a real browser (docs/serve.md, "The page").

Trains a small model on a ratings CSV written here (with a names file and an attributes
file), starts `symgnn serve` on a free port of 127.0.0.1, and drives / in headless Chromium
(Debian's chromium and chromium-driver, driven by python3-selenium). Every list the page
shows is compared with the API's answer to the same request:

- /?user=u7 shows u7's rated items and list on load, without a click, and the address
  follows the user shown;
- an item's similar items (GET /v1/similar);
- the filters: exclude, where (serve --item-attributes) and a candidate set leaving fewer
  than k, where the page must show the server's sentence;
- a candidate list ranked (GET /v1/rank), fresh ratings (POST /v1/recommend with "user"
  and "ratings"; the rated items leave the list);
- the training curves: the RMSEs on one chart with labelled axes and tick values that
  cover them;
- the list figures of metrics.json (the ranking and beyond-accuracy figures) in tables;
- the social parts (the model trained with a user graph, serve with an admin token): /
  without ?user shows the first user's lists at once, the where box names the attribute
  keys, the people linked to a user, who among them rated each listed item, and follow and
  unfollow from the page through POST /v1/graph/edges, the lists shown again.

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
import urllib.error
import urllib.parse
import urllib.request

SKIP = 77


def skip(why):
    print("SKIP: " + why + " (scripts/setup.sh installs chromium, chromium-driver, python3-selenium)")
    sys.exit(SKIP)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.common.exceptions import ElementClickInterceptedException, TimeoutException
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
    """A 60 x 40 ratings CSV with two taste groups, names for every item, and an attributes
    table giving each item its part (A: even items, B: odd ones)."""
    rng = random.Random(3)
    ratings = os.path.join(folder, "ratings.csv")
    names = os.path.join(folder, "names.csv")
    attributes = os.path.join(folder, "attributes.csv")
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
    with open(attributes, "w") as f:
        f.write("id,part\n")
        for i in range(40):
            f.write("m%d,%s\n" % (i, "AB"[i % 2]))
    return ratings, names, attributes


def write_links(folder):
    """A user graph: each user linked to the two next users of the same taste group."""
    links = os.path.join(folder, "user_graph.csv")
    with open(links, "w") as f:
        for u in range(60):
            for step in (2, 4):
                if u + step < 60:
                    f.write("u%d,u%d\n" % (u, u + step))
    return links


def call(port, path, body=None):
    """(status, JSON answer) of GET path, or of POST path with `body` as JSON."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode("utf-8"))


def get(port, path, body=None):
    status, answer = call(port, path, body)
    assert status == 200, "%s answered %d: %s" % (path, status, answer)
    return answer


def items_of(answer):
    return [e["item"] for e in answer["items"]]


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="symgnn-browser-")
    server = None
    driver = None
    try:
        ratings, names, attributes = write_data(work)
        links = write_links(work)
        token = "browser-test-admin-token"
        with open(os.path.join(work, "token.txt"), "w") as f:
            f.write(token + "\n")
        model = os.path.join(work, "model")
        subprocess.run([binary, "train", "--data", ratings, "--preset", "paper", "--epochs", "5",
                        "--set", "lowrank.hidden=8", "--set", "data.user_graph_file=" + links, "--quiet",
                        "--out", model], check=True)
        log = open(os.path.join(work, "serve.log"), "w")
        server = subprocess.Popen([binary, "serve", "--model", model, "--port", "0", "--item-names", names,
                                   "--item-attributes", attributes, "--admin-token-file",
                                   os.path.join(work, "token.txt")], stdout=log, stderr=subprocess.STDOUT)
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
        wait = WebDriverWait(driver, 30)

        def shown(css):
            # One script, so that a list the page is replacing is never read half old, half new.
            return driver.execute_script(
                "return Array.from(document.querySelectorAll(arguments[0])).map((li) => li.dataset.item);",
                css + " li")

        def until(what, condition, state):
            """Waits for `condition`; on time out fails with `what` and `state()`, what the page shows."""
            try:
                wait.until(lambda d: condition())
            except TimeoutException:
                raise AssertionError("%s: the page shows %s" % (what, state()))

        def until_list(css, want, what):
            until(what, lambda: shown(css) == want, lambda: "%s, the API answers %s" % (shown(css), want))

        def press(element_id):
            """Clicks a button once it can take the click: the lists' explanations arrive after
            the lists and move what is below them, so a click aimed a moment earlier can land
            on a list item instead (ElementClickInterceptedException), or, where they move it
            between the aim and the click, elsewhere without a word (a loaded machine once left
            the ranked list empty so). The button notes the click it receives; a click it did
            not receive is aimed again."""
            def attempt():
                button = driver.find_element(By.ID, element_id)
                driver.execute_script(
                    "const b = arguments[0]; b.scrollIntoView({block: 'center'}); b.dataset.pressed = '';"
                    "b.addEventListener('click', () => { b.dataset.pressed = 'yes'; }, {once: true});", button)
                try:
                    button.click()
                except ElementClickInterceptedException:
                    return False
                return driver.execute_script("return arguments[0].dataset.pressed === 'yes';", button)
            until("a click on #" + element_id, attempt, lambda: "#%s covered by another element" % element_id)

        def fill(element_id, text):
            box = driver.find_element(By.ID, element_id)
            box.clear()
            if text:
                box.send_keys(text)

        user = "u7"
        base = "/v1/recommend?user=%s&k=10" % user

        # 1. ?user=ID: the user's lists on load, without a click.
        driver.get("http://127.0.0.1:%d/?user=%s" % (port, user))
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
        expected = get(port, base)
        want = items_of(expected)
        until_list("#recs", want, "the list of /?user=%s on load" % user)
        first = driver.find_elements(By.CSS_SELECTOR, "#recs li")[0].text
        assert expected["items"][0]["name"] in first, "no name in '%s'" % first
        rated = [e["item"] for e in get(port, "/v1/users?user=%s" % user)["ratings"]]
        until_list("#rated", rated, "the rated items of %s" % user)
        assert not set(want) & set(rated), "a rated item is recommended"
        assert driver.find_element(By.ID, "user-input").get_attribute("value") == user

        # Why each item is there, beside it: the parts GET /v1/explain gives.
        why = get(port, "/v1/explain?user=%s&item=%s&top=3&candidates=8" % (user, want[0]))
        texts = [p["text"] for p in why["parts"] if p["source"] != "rest"]

        def first_why():
            return driver.execute_script(
                "const w = document.querySelector('#recs li .why'); return w ? w.textContent : '';")
        until("the explanation beside %s" % want[0],
              lambda: first_why().startswith("why: ") and all(t in first_why() for t in texts),
              lambda: "%r, the API explains %r" % (first_why(), texts))

        # The address follows the user shown.
        fill("user-input", "u12")
        press("show")
        until_list("#recs", items_of(get(port, "/v1/recommend?user=u12&k=10")), "the list of u12")
        assert driver.current_url.endswith("/?user=u12"), "address after showing u12: " + driver.current_url
        fill("user-input", user)
        press("show")
        until_list("#recs", want, "the list of %s again" % user)
        assert driver.current_url.endswith("/?user=%s" % user), "address: " + driver.current_url

        # 2. An item's similar items.
        driver.find_elements(By.CSS_SELECTOR, "#recs li")[0].click()
        similar = [e["item"] for e in get(port, "/v1/similar?item=%s&k=10" % want[0])["items"]]
        until_list("#similar", similar, "the items similar to %s" % want[0])

        # 3. Filters: exclude, where (the attributes file), then a candidate set leaving fewer than k.
        fill("f-exclude", "%s, %s" % (want[0], want[1]))
        press("f-apply")
        excluded = items_of(get(port, base + "&exclude=%s,%s" % (want[0], want[1])))
        until_list("#recs", excluded, "the list with exclude=%s,%s" % (want[0], want[1]))
        assert want[0] not in excluded and want[1] not in excluded

        fill("f-exclude", "")
        fill("f-where", "part=A")
        press("f-apply")
        # The '=' inside the value encoded, as the page's URLSearchParams sends it: cpp-httplib
        # keeps the last '='-separated piece of a bare "where=part=A" as the value.
        part_a = items_of(get(port, base + "&where=" + urllib.parse.quote("part=A", safe="")))
        until_list("#recs", part_a, "the list with where=part=A")
        assert all(int(i[1:]) % 2 == 0 for i in part_a), "where=part=A answered " + str(part_a)

        # Three candidates, fewer than k: the shorter list, and the note saying so.
        fill("f-where", "")
        three = want[:3]
        fill("f-items", " ".join(three))
        press("f-apply")
        short = get(port, base + "&items=" + ",".join(three))
        assert "fewer than k" in short["note"] and short["returned"] == 3, short
        until_list("#recs", items_of(short), "the shorter list of items=" + ",".join(three))
        until("the note of the shorter list", lambda: driver.find_element(By.ID, "recs-note").text == short["note"],
              lambda: "'%s', the server says '%s'" % (driver.find_element(By.ID, "recs-note").text, short["note"]))

        # Only rated items as candidates: none left, the one refusal.
        fill("f-items", " ".join(rated[:2]))
        press("f-apply")
        status, refusal = call(port, base + "&items=" + ",".join(rated[:2]))
        assert status == 400 and "no candidate item" in refusal["error"], refusal
        until("the refusal of items=" + ",".join(rated[:2]),
              lambda: driver.find_element(By.ID, "recs-error").text == refusal["error"] and not shown("#recs"),
              lambda: "'%s' and %s, the server says '%s'" % (
                  driver.find_element(By.ID, "recs-error").text, shown("#recs"), refusal["error"]))

        press("f-clear")
        until_list("#recs", want, "the list with the filters cleared")
        assert driver.find_element(By.ID, "recs-error").text == "", "the refusal stays after a list"

        # 4. A candidate list, ranked.
        candidates = ["m%d" % i for i in (5, 12, 0, 33, 8, 21, 2, 17)]
        fill("rank-items", ", ".join(candidates))
        press("rank-go")
        ranked = items_of(get(port, "/v1/rank?user=%s&items=%s" % (user, ",".join(candidates))))
        until_list("#ranked", ranked, "the ranked candidates")
        assert sorted(ranked) == sorted(candidates)

        # 5. Fresh ratings: the refreshed list, without the items just rated.
        fresh = [{"item": want[0], "rating": 5}, {"item": want[1], "rating": 1}]
        rows = driver.find_elements(By.CSS_SELECTOR, "#fresh-rows tr")
        assert len(rows) >= 2, "the fresh-ratings form has %d rows" % len(rows)
        for row, r in zip(rows, fresh):
            row.find_element(By.CSS_SELECTOR, ".fresh-item").send_keys(r["item"])
            row.find_element(By.CSS_SELECTOR, ".fresh-rating").send_keys(str(r["rating"]))
        press("fresh-go")
        refreshed = items_of(get(port, "/v1/recommend", {"user": user, "ratings": fresh, "k": 10}))
        until_list("#fresh", refreshed, "the list after fresh ratings")
        assert want[0] not in refreshed and want[1] not in refreshed, "a freshly rated item is listed"
        # A new user known by whom they follow alone: no rating, the follows field (issue 63).
        for row in driver.find_elements(By.CSS_SELECTOR, "#fresh-rows tr"):
            row.find_element(By.CSS_SELECTOR, ".fresh-item").clear()
            row.find_element(By.CSS_SELECTOR, ".fresh-rating").clear()
        driver.find_element(By.ID, "fresh-new").click()
        follows = ["u3", "u7"]
        fill("fresh-follows", ", ".join(follows))
        press("fresh-go")
        by_follows = get(port, "/v1/recommend", {"ratings": [], "edges": follows, "k": 10})
        until_list("#fresh", items_of(by_follows), "the list of a new user who follows %s" % follows)
        until("the note names what ranked them",
              lambda: by_follows["ranked_by"] in driver.find_element(By.ID, "fresh-note").text,
              lambda: "%r, the API says %r" % (driver.find_element(By.ID, "fresh-note").text,
                                              by_follows["ranked_by"]))

        # 6. The training curves: the RMSEs share one chart, its axes labelled and ticked.
        info = get(port, "/v1/models")["models"][0]
        curve = info["training_curve"]
        cols = curve["columns"]
        rmse = [r[cols.index(c)] for r in curve["rows"] for c in ("train_rmse", "val_rmse")
                if isinstance(r[cols.index(c)], (int, float))]
        chart = driver.find_element(By.CSS_SELECTOR, '#curves svg[data-quantity="RMSE"]')
        series = [p.get_attribute("data-series") for p in chart.find_elements(By.TAG_NAME, "polyline")]
        assert series == ["train_rmse", "val_rmse"], "the RMSE chart draws " + str(series)
        labels = {t.get_attribute("data-axis"): t.text
                  for t in chart.find_elements(By.CSS_SELECTOR, "text.axis-label")}
        assert labels == {"x": "epoch", "y": "RMSE"}, "axis labels: " + str(labels)
        y_ticks = [float(t.text) for t in chart.find_elements(By.CSS_SELECTOR, 'text.tick[data-axis="y"]')]
        x_ticks = [float(t.text) for t in chart.find_elements(By.CSS_SELECTOR, 'text.tick[data-axis="x"]')]
        assert len(y_ticks) >= 2 and len(x_ticks) >= 2, "ticks: x %s, y %s" % (x_ticks, y_ticks)
        assert y_ticks == sorted(y_ticks) and y_ticks[0] <= min(rmse) and y_ticks[-1] >= max(rmse), \
            "y ticks %s do not cover the RMSEs %s to %s" % (y_ticks, min(rmse), max(rmse))

        # 7. The list figures of metrics.json: ranking and beyond accuracy, as the file holds them.
        with open(os.path.join(model, "metrics.json")) as f:
            evaluation = json.load(f)["evaluation"]
        beyond = evaluation.get("beyond_accuracy")
        assert beyond, "the trained model's metrics.json has no beyond_accuracy: " + json.dumps(evaluation)
        assert info["metrics"]["evaluation"]["beyond_accuracy"] == beyond, "/v1/models differs from metrics.json"

        def figures(table):
            """figure -> (label, the value kept in data-value, the text shown) of a table's rows."""
            out = {}
            for tr in driver.find_elements(By.CSS_SELECTOR, "#%s tr" % table):
                td = tr.find_element(By.TAG_NAME, "td")
                out[tr.get_attribute("data-figure")] = (tr.find_element(By.TAG_NAME, "th").text,
                                                        float(td.get_attribute("data-value")), td.text)
            return out

        names_shown = {"novelty": "novelty", "gini": "Gini index of exposure", "diversity": "intra-list diversity",
                       "avg_popularity": "average popularity", "long_tail": "long-tail share"}
        table = figures("beyond")
        assert set(table) == {n + "@10" for n in names_shown}, "beyond-accuracy rows: " + str(sorted(table))
        for name, label in names_shown.items():
            shown_label, value, text = table[name + "@10"]
            assert shown_label == label, "%s is labelled '%s'" % (name, shown_label)
            assert abs(value - beyond[name + "@10"]) <= 1e-12 * max(1.0, abs(value)), (name, value, beyond)
            assert text == "%.4f" % beyond[name + "@10"], (name, text)
        table = figures("ranking-figures")
        ranking = {k: v for k, v in evaluation["ranking"].items() if re.search(r"@\d+$", k)}
        assert ranking and set(table) == set(ranking), \
            "ranking rows %s, metrics.json %s" % (sorted(table), sorted(ranking))
        for key, v in ranking.items():
            assert abs(table[key][1] - v) <= 1e-12 * max(1.0, abs(v)), (key, table[key], v)

        # 8. The social parts. / without ?user: the first user's lists at once.
        first_user = get(port, "/v1/users?limit=1")["users"][0]
        driver.get("http://127.0.0.1:%d/" % port)
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
        until_list("#recs", items_of(get(port, "/v1/recommend?user=%s&k=10" % first_user)),
                   "the first user's list on / without ?user")
        assert driver.current_url.endswith("/?user=%s" % first_user), "address: " + driver.current_url
        placeholder = driver.find_element(By.ID, "f-where").get_attribute("placeholder")
        assert "part" in placeholder, "the where box's placeholder: " + placeholder

        # The people linked to u7, and who among them rated each listed item.
        fill("user-input", user)
        press("show")

        def linked_shown():
            return driver.execute_script(
                "return Array.from(document.querySelectorAll('#linked li')).map((li) => li.dataset.user);")
        linked = get(port, "/v1/users?user=%s" % user)["linked"]
        assert linked, "u7 has no linked people in the API's answer"
        until("the people linked to %s" % user, lambda: linked_shown() == linked,
              lambda: "%s, the API answers %s" % (linked_shown(), linked))
        listed = get(port, base)["items"]
        assert all("linked_raters" in e for e in listed), listed
        with_raters = [(n, e) for n, e in enumerate(listed) if e["linked_raters"]]
        assert with_raters, "no listed item of %s was rated by a linked person: %s" % (user, listed)
        n, e = with_raters[0]

        def raters_line():
            return driver.execute_script(
                "const li = document.querySelectorAll('#recs li')[arguments[0]];"
                "const w = li ? li.querySelector('.linked-raters') : null; return w ? w.textContent : '';", n)
        want_line = "%d %s linked to you rated it: " % (len(e["linked_raters"]),
                                                        "person" if len(e["linked_raters"]) == 1 else "people")
        until("who linked rated %s" % e["item"],
              lambda: raters_line().startswith(want_line) and all(r["user"] in raters_line()
                                                                   for r in e["linked_raters"]),
              lambda: "%r, the API says %s" % (raters_line(), e["linked_raters"]))

        # Follow and unfollow from the page: the edge reaches the API, the page shows it.
        other = next("u%d" % v for v in range(59, -1, -1) if "u%d" % v not in linked and "u%d" % v != user)
        fill("admin-token", token)
        fill("follow-id", other)
        press("follow-go")
        until("%s followed from the page" % other, lambda: other in (get(port, "/v1/users?user=%s" % user)["linked"]),
              lambda: "the API's linked: %s" % get(port, "/v1/users?user=%s" % user)["linked"])
        after = get(port, "/v1/users?user=%s" % user)["linked"]
        until("the people linked after the follow", lambda: linked_shown() == after,
              lambda: "%s, the API answers %s" % (linked_shown(), after))
        until_list("#recs", items_of(get(port, base)), "the list after the follow")
        button = driver.find_element(By.CSS_SELECTOR, '#linked li[data-user="%s"] button.unfollow' % other)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        button.click()
        until("the people linked after the unfollow", lambda: linked_shown() == linked,
              lambda: "%s, the API answers %s" % (linked_shown(), get(port, "/v1/users?user=%s" % user)["linked"]))
        assert get(port, "/v1/users?user=%s" % user)["linked"] == linked

        print("browser test: /?user=%s shows GET /v1/recommend's %d items on load; exclude, where and a "
              "refused candidate set, GET /v1/rank, fresh ratings, a new user known by follows alone, similar "
              "items, the RMSE chart's axes "
              "and the %d ranking and %d beyond-accuracy figures of metrics.json agree with the API; / shows %s's "
              "lists at once; %d linked people, who rated item %s, a follow and an unfollow of %s from the page"
              % (user, len(want), len(ranking), len(names_shown), first_user, len(linked), e["item"], other))
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
