"""Web UI timings with 100,000 documents and 10,000 users, measured in headless Chromium.

Each figure is the median of RUNS navigations (or actions) on loopback, from the moment the
browser is told to go (or the button is clicked) to the moment the page shows the data: the app
shell and scripts load, the page asks the emulator for the first page and renders it. The server's
own time for the same reads (median of RUNS calls from Python) is printed beside them.

    EMULATOR_BIN=.build/release/emulator python3 bench/ui_timing.py      (needs chromium, chromium-driver, selenium)

Prints a markdown section (machine, date, commit) on stdout; bench/run.sh appends it to RESULTS.md.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "python"))
from conftest import RunningEmulator  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

DOCS = int(os.environ.get("DOCS", "100000"))
USERS = int(os.environ.get("USERS", "10000"))
RUNS = int(os.environ.get("RUNS", "10"))
PROJECT = "bench-ui"
OWNER = {"Authorization": "Bearer owner"}


def seed(emu, s):
    base = f"{emu.url}/v1/projects/{PROJECT}/databases/(default)/documents"
    t0 = time.perf_counter()
    writes = []
    for i in range(DOCS):
        writes.append({"update": {"name": f"projects/{PROJECT}/databases/(default)/documents/items/i{i:06d}", "fields": {
            "n": {"integerValue": str(i)}, "title": {"stringValue": f"item {i}"}, "bucket": {"integerValue": str(i % 100)},
            "done": {"booleanValue": i % 3 == 0}}}})
        if len(writes) == 500:
            s.post(f"{base}:commit", json={"writes": writes}, headers=OWNER).raise_for_status()
            writes = []
    users = [{"localId": f"user{i:05d}", "email": f"user{i}@example.com", "displayName": f"User {i}", "createdAt": str(1_700_000_000_000 + i)}
             for i in range(USERS)]
    for k in range(0, USERS, 1000):
        s.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchCreate",
               json={"users": users[k:k + 1000]}, headers=OWNER).raise_for_status()
    return time.perf_counter() - t0


def driver():
    opts = Options()
    opts.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        opts.add_argument(a)
    return webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver")))


def until(d, fn, timeout=60):
    return WebDriverWait(d, timeout, poll_frequency=0.005).until(lambda x: fn(x))


def count(d, css):
    return len(d.find_elements(By.CSS_SELECTOR, css))


def navigation(d, url, ready):
    """Milliseconds from `get` to `ready(d)` being true (a blank page in between, so every run
    loads the shell afresh)."""
    d.get("about:blank")
    t0 = time.perf_counter()
    d.get(url)
    until(d, ready)
    return (time.perf_counter() - t0) * 1000


def median(samples):
    return f"{statistics.median(samples):.0f} ms (min {min(samples):.0f}, max {max(samples):.0f})"


def server(fn):
    samples = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        fn().raise_for_status()
        samples.append((time.perf_counter() - t0) * 1000)
    return f"{statistics.median(samples):.1f} ms"


def main():
    emu = RunningEmulator([], project=PROJECT)
    s = requests.Session()
    d = None
    try:
        seconds = seed(emu, s)
        ui = f"{emu.url}/ui"
        d = driver()
        # Warm the browser and the server once (first launch costs are not the UI's).
        navigation(d, f"{ui}/?project={PROJECT}", lambda x: count(x, ".stat") > 0)

        rows = []
        coll = [navigation(d, f"{ui}/firestore/items?project={PROJECT}", lambda x: count(x, "ul[aria-label='Documents'] li") >= 50) for _ in range(RUNS)]
        rows.append(("Firestore: collection of 100,000 documents, first 50 shown (with counts of every collection)", median(coll),
                     server(lambda: s.get(f"{emu.url}/emulator/v1/projects/{PROJECT}/databases/(default)/documents/items?pageSize=50"))))
        doc = [navigation(d, f"{ui}/firestore/items/i050000?project={PROJECT}", lambda x: count(x, "tr[data-field='title']") == 1
                          and count(x, "ul[aria-label='Documents'] li") >= 50) for _ in range(RUNS)]
        rows.append(("Firestore: a document in the middle of it (all three panes)", median(doc),
                     server(lambda: s.get(f"{emu.url}/emulator/v1/projects/{PROJECT}/databases/(default)/documents/items/i050000"))))
        more = []
        for _ in range(RUNS):
            navigation(d, f"{ui}/firestore/items?project={PROJECT}", lambda x: count(x, "ul[aria-label='Documents'] li") >= 50)
            b = d.find_element(By.XPATH, "//button[starts-with(., 'Load 50 more')]")
            t0 = time.perf_counter()
            b.click()
            until(d, lambda x: count(x, "ul[aria-label='Documents'] li") >= 100)
            more.append((time.perf_counter() - t0) * 1000)
        rows.append(("Firestore: next 50 documents (Load more)", median(more),
                     server(lambda: s.get(f"{emu.url}/emulator/v1/projects/{PROJECT}/databases/(default)/documents/items?pageSize=50&pageToken=i050000"))))
        users = [navigation(d, f"{ui}/auth?project={PROJECT}", lambda x: count(x, "table[aria-label='Users'] tbody tr") >= 50) for _ in range(RUNS)]
        rows.append(("Auth: 10,000 users, newest 50 shown (with codes waiting)", median(users),
                     server(lambda: s.get(f"{emu.url}/emulator/v1/projects/{PROJECT}/users?pageSize=50"))))
        search = []
        for i in range(RUNS):
            navigation(d, f"{ui}/auth?project={PROJECT}", lambda x: count(x, "table[aria-label='Users'] tbody tr") >= 50)
            box = d.find_element(By.CSS_SELECTOR, "input[aria-label='Search users']")
            needle, uid = f"user{1234 + i}@", f"user{1234 + i:05d}"
            t0 = time.perf_counter()
            box.send_keys(needle)
            until(d, lambda x: count(x, "table[aria-label='Users'] tbody tr") == 1 and uid in x.find_element(By.CSS_SELECTOR, "table[aria-label='Users'] tbody").text)
            search.append((time.perf_counter() - t0) * 1000)
        rows.append(("Auth: search the 10,000 users (typing to one row shown; includes the 250 ms typing pause)", median(search),
                     server(lambda: s.get(f"{emu.url}/emulator/v1/projects/{PROJECT}/users?pageSize=50&search=user1234%40"))))
        overview = [navigation(d, f"{ui}/?project={PROJECT}", lambda x: "100,000" in x.find_element(By.ID, "main").text) for _ in range(RUNS)]
        rows.append(("Overview with both counts", median(overview), server(lambda: s.get(f"{emu.url}/emulator/v1/projects/{PROJECT}/summary"))))
    finally:
        if d:
            d.quit()
        emu.stop()

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    chromium = subprocess.run([shutil.which("chromium") or "chromium", "--version"], capture_output=True, text=True).stdout.strip()
    print()
    print(f"### Web UI with {DOCS:,} documents and {USERS:,} users — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}")
    print()
    print(f"Machine: {os.cpu_count()} CPUs, {cpu}, load average {' '.join(open('/proc/loadavg').read().split()[:3])}. {chromium}, headless, 1280x800, "
          f"same machine as the emulator (`{os.path.basename(os.environ.get('EMULATOR_BIN', 'debug build'))}` binary). "
          f"Seeding took {seconds:.1f} s. Median of {RUNS} runs; the browser starts from `about:blank` each time, so every "
          "figure includes loading the page shell and scripts (revalidated by ETag).")
    print()
    print("| time to first render | in the browser | server time of its main read (Python client, round trip included) |")
    print("|---|---|---|")
    for label, browser_ms, server_ms in rows:
        print(f"| {label} | {browser_ms} | {server_ms} |")


if __name__ == "__main__":
    main()
