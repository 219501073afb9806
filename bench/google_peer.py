"""Ours beside Google's Firestore emulator (the jar the Firebase CLI runs) in one run, with one
table of ratios, and nginx's constant 200 as the ceiling of this machine's loopback HTTP.

Every row runs the same client against both servers, one after the other on a fresh process each:
start-up to ready, idle memory, seeding 100,000 documents (500-write REST commits), memory with
them, REST GET (wrk) and gRPC GetDocument (h2load, one stream per connection), a query returning
20 of the 100,000, a 2-update commit, a contended read-increment-write transaction, a 1-update
commit to the 100,000-document collection while a listener watches all of it, the write-to-
snapshot latency with 100 listeners attached, and memory after the load.

Where Google's emulator is absent (java or the jar missing), prints our column alone and says why.

Usage: EMULATOR_BIN=.build/release/emulator python3 bench/google_peer.py
Environment: WRK_SECONDS (5), STARTS (5 starts per server for the start-up median), COUNT (100000).
"""
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "python"))
from benchlib import CONNECTIONS, call, increment_counter, free_port, rss_mib, seed, stop, wait_http, wrk  # noqa: E402
from get_vs_nginx import nginx  # noqa: E402
from grpc_bench import get_document_request, h2load  # noqa: E402
import listen  # noqa: E402
from webchannel import google_emulator  # noqa: E402

SECONDS = int(os.environ.get("WRK_SECONDS", "5"))
STARTS = int(os.environ.get("STARTS", "5"))
COUNT = int(os.environ.get("COUNT", "100000"))
PROJECT = "bench"
COLL = f"c{COUNT}"
WRK_ENV = {"COLL": COLL, "COUNT": str(COUNT), "PROJECT": PROJECT}


class Server:
    """How to start one of the two servers and when it counts as ready."""

    def __init__(self, name, argv, ready_path):
        self.name, self.argv, self.ready_path = name, argv, ready_path

    def start(self):
        """Starts it on a free port; returns (process, port, seconds to the first 200)."""
        port = free_port()
        t0 = time.perf_counter()
        proc = subprocess.Popen([a.replace("{port}", str(port)) for a in self.argv], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}{self.ready_path}"
        while True:
            try:
                with urllib.request.urlopen(url, timeout=1) as r:
                    if r.status == 200:
                        return proc, port, time.perf_counter() - t0
            except OSError:
                pass
            if proc.poll() is not None or time.perf_counter() - t0 > 120:
                stop(proc)
                raise RuntimeError(f"{self.name} did not start")
            time.sleep(0.01)


def servers():
    ours = Server("ours", [os.environ["EMULATOR_BIN"], "start", "--port", "{port}", "--project", PROJECT,
                           "--log-level", "error"], "/emulator/v1/status")
    if not google_emulator.available():
        return [ours], "Google's Firestore emulator is not installed (java and cloud-firestore-emulator.jar): our column only"
    google = Server("Google's emulator", ["java", "-cp", google_emulator.JARS[0],
                                          "com.google.cloud.datastore.emulator.firestore.CloudFirestore",
                                          "--host", "127.0.0.1", "--port", "{port}"], "/")
    return [ours, google], None


def watched_commit(port):
    """A 1-update commit rate while one listener watches the whole COUNT-document collection."""
    conn = listen.Connection(port)
    t0 = time.perf_counter()
    conn.open(listen.listen_request(1, COLL))
    conn.pump(lambda: conn.total("current") >= 1, timeout=600)
    initial = time.perf_counter() - t0
    drainer = listen.Drainer(conn)
    drainer.start()
    try:
        return wrk(port, "commit.lua", SECONDS, WRK_ENV), initial
    finally:
        drainer.stop.set()
        drainer.join(5)
        conn.close()


def contended(port, threads=8, seconds=10):
    """Read-increment-write transactions on one counter from `threads` threads for `seconds`,
    retried on ABORTED (409); a call that waits more than 5 s counts as stalled and its thread
    starts a new transaction. Returns committed/s, p50 and whether the counter lost updates."""
    docs = f"/v1/projects/{PROJECT}/databases/(default)/documents"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    call(conn, "PATCH", docs + "/counters/c", {"fields": {"n": {"integerValue": "0"}}})
    latencies, stalls, lock = [], [0], threading.Lock()
    deadline = time.perf_counter() + seconds

    def worker():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            try:
                while time.perf_counter() < deadline:
                    if increment_counter(c, PROJECT):
                        with lock:
                            latencies.append((time.perf_counter() - t0) * 1000)
                        break
            except (OSError, http.client.HTTPException):
                with lock:
                    stalls[0] += 1
                c.close()
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.close()

    t0 = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(seconds + 30)
    elapsed = time.perf_counter() - t0
    time.sleep(1)
    _, data = call(conn, "GET", docs + "/counters/c")
    final = int(json.loads(data)["fields"]["n"]["integerValue"])
    if final != len(latencies):
        raise RuntimeError(f"the counter reads {final} after {len(latencies)} acknowledged commits")
    if not latencies:
        raise RuntimeError(f"no transaction committed in {seconds} s ({stalls[0]} calls waited over 5 s)")
    return {"rps": len(latencies) / elapsed, "p50_ms": statistics.median(latencies), "stalls": stalls[0]}


def measure(server):
    """Every row's value for one server (an exception in place of a row that failed)."""
    r = {}

    def step(key, fn):
        try:
            r[key] = fn()
        except Exception as e:  # noqa: BLE001 - a failing row is reported, the others still run
            r[key] = e

    starts = []
    for _ in range(STARTS):
        proc, _, seconds = server.start()
        starts.append(seconds)
        stop(proc)
    r["start"] = statistics.median(starts)
    proc, port, _ = server.start()
    try:
        time.sleep(1)
        r["idle"] = rss_mib(proc.pid)
        t0 = time.perf_counter()
        seed(port, PROJECT, COLL, COUNT)
        r["seed"] = COUNT / (time.perf_counter() - t0)
        r["seeded"] = rss_mib(proc.pid)
        name = f"projects/{PROJECT}/databases/(default)/documents/{COLL}/d7"

        def grpc_get():
            g = h2load(port, "/google.firestore.v1.Firestore/GetDocument", get_document_request(name), 1)
            if g["failed"]:
                raise RuntimeError(f"{g['failed']} calls failed")
            return {"rps": g["rps"]}
        step("rest_get", lambda: wrk(port, "get.lua", SECONDS, WRK_ENV))
        step("grpc_get", grpc_get)
        step("query", lambda: wrk(port, "query.lua", SECONDS, WRK_ENV))
        step("commit2", lambda: wrk(port, "commit.lua", SECONDS, {**WRK_ENV, "WRITES": "2"}))
        step("commit1", lambda: wrk(port, "commit.lua", SECONDS, WRK_ENV))
        step("txn", lambda: contended(port))
        step("watched", lambda: watched_commit(port))
        if isinstance(r["watched"], tuple):
            r["watched"], r["initial"] = r["watched"]
        else:
            r["initial"] = r["watched"]
        step("fanout", lambda: listen.latency(port, None, listeners=100, writes=200))
        r["loaded"] = rss_mib(proc.pid)
    finally:
        stop(proc)
    return r


def ceiling():
    work = tempfile.mkdtemp()
    port = free_port()
    ng = nginx(work, port)
    try:
        wait_http(port, "/")
        return wrk(port, "status.lua", SECONDS)
    finally:
        stop(ng)


def main():
    todo, absent = servers()
    results = {}
    for s in todo:
        print(f"== {s.name}", file=sys.stderr, flush=True)
        try:
            results[s.name] = measure(s)
        except Exception as e:  # noqa: BLE001 - a failing peer is reported, not fatal
            results[s.name] = e
    top = ceiling()
    ours = results["ours"]
    if isinstance(ours, Exception):
        raise ours
    theirs = results.get("Google's emulator")

    def cell(r, key, fmt):
        if isinstance(r, Exception):
            return f"failed: {r}"
        v = r.get(key)
        return f"failed: {v}" if isinstance(v, Exception) else fmt(v)

    def ratio(key, higher_is_better, value):
        if not isinstance(theirs, dict) or isinstance(theirs.get(key), Exception) or isinstance(ours.get(key), Exception):
            return ""
        a, b = value(ours[key]), value(theirs[key])
        if min(a, b) <= 0:
            return ""
        if higher_is_better:
            return f"{a / b:,.1f}× theirs"
        return f"{b / a:,.1f}× less" if a <= b else f"{a / b:,.1f}× more (worse)"

    def rate(v):
        errors = int(v.get("errors", 0))
        return (f"{v['rps']:,.1f}/s" if v["rps"] < 10 else f"{v['rps']:,.0f}/s") + \
            (f" (p50 {v['p50_ms']:.2f} ms)" if "p50_ms" in v and v["rps"] > 0 else "") + \
            (f", {errors:,} timeouts or errors" if errors else "")
    mib = lambda v: f"{v:,.1f} MiB"  # noqa: E731
    rows = [
        ("start-up to the first 200 (median of %d)" % STARTS, "start", False, lambda v: f"{v * 1000:,.0f} ms", lambda v: v),
        ("idle resident memory", "idle", False, mib, lambda v: v),
        (f"seeding {COUNT:,} documents (500-write REST commits, one Python client)", "seed", True,
         lambda v: f"{v:,.0f} documents/s", lambda v: v),
        (f"resident memory with {COUNT:,} documents", "seeded", False, mib, lambda v: v),
        (f"REST document GET (wrk, {CONNECTIONS} connections)", "rest_get", True, rate, lambda v: v["rps"]),
        (f"gRPC GetDocument (h2load, {CONNECTIONS} connections, 1 stream each)", "grpc_get", True, rate, lambda v: v["rps"]),
        (f"runQuery returning 20 of {COUNT:,} (equality filter, limit 20)", "query", True, rate, lambda v: v["rps"]),
        ("commit of 2 updates", "commit2", True, rate, lambda v: v["rps"]),
        (f"commit of 1 update to the {COUNT:,}-document collection, unwatched", "commit1", True, rate, lambda v: v["rps"]),
        ("the same while one listener watches the whole collection", "watched", True, rate, lambda v: v["rps"]),
        (f"initial snapshot of the {COUNT:,}-document collection for that listener", "initial", False,
         lambda v: f"{v * 1000:,.0f} ms", lambda v: v),
        ("read-increment-write transaction on one counter, 8 threads for 10 s (retried on ABORTED)", "txn", True,
         lambda v: rate(v) + (f", {v['stalls']} calls waited over 5 s" if v["stalls"] else ""), lambda v: v["rps"]),
        ("write-to-snapshot latency with 100 listeners attached (p50 of 200 writes)", "fanout", False,
         lambda v: f"p50 {statistics.median(v):.2f} ms, p90 {v[int(len(v) * 0.9)]:.2f} ms", lambda v: statistics.median(v)),
        ("resident memory after the load", "loaded", False, mib, lambda v: v),
    ]
    load = os.getloadavg()
    print(f"Ours beside Google's Firestore emulator (`bench/google_peer.py`; wrk 2 threads and h2load, {CONNECTIONS} connections, "
          f"{SECONDS} s per cell; a fresh process per server; load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}):")
    print()
    if absent:
        print(f"({absent}.)")
        print()
    print("| measure | ours | Google's emulator | ours against Google's |")
    print("|---|---|---|---|")
    print(f"| nginx answering a constant 200 (the machine's ceiling) | {top['rps']:,.0f}/s | | |")
    share = ours["rest_get"]["rps"] / top["rps"]
    for label, key, better_high, fmt, value in rows:
        theirs_cell = cell(theirs, key, fmt) if theirs is not None else "not installed"
        print(f"| {label} | {cell(ours, key, fmt)} | {theirs_cell} | {ratio(key, better_high, value)} |")
    print()
    print(f"Our REST GET is {share:.0%} of nginx's constant 200 in this run.")


if __name__ == "__main__":
    main()
