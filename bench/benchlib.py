"""Shared helpers for the benchmark drivers: ports, processes, HTTP calls, seeding, wrk runs."""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.parse

CONNECTIONS = int(os.environ.get("CONNECTIONS", "16"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(port, path, deadline_s=30):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            c.request("GET", path)
            c.getresponse().read()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing answered on port {port} within {deadline_s} s")


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def call(conn, method, path, body=None, headers=None):
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"Content-Type": "application/json", **(headers or {})})
    r = conn.getresponse()
    return r.status, r.read()


def seed(port, project, coll, count):
    """Writes `count` documents d0..d{count-1} with bucket = i mod (count/20), 500 per commit."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    buckets = max(1, count // 20)
    base = f"projects/{project}/databases/(default)/documents/{coll}/d"
    for start in range(0, count, 500):
        writes = [{"update": {"name": f"{base}{i}", "fields": {
            "bucket": {"integerValue": str(i % buckets)}, "title": {"stringValue": f"task {i}"},
            "done": {"booleanValue": i % 2 == 0}}}} for i in range(start, min(start + 500, count))]
        status, data = call(conn, "POST", f"/v1/projects/{project}/databases/(default)/documents:commit", {"writes": writes})
        if status != 200:
            raise RuntimeError(f"seeding failed: {status} {data[:200]!r}")
    conn.close()


def increment_counter(conn, project):
    """One read-increment-write transaction on `counters/c` (its field `n`) over REST; returns
    True when it committed, False when it was aborted (409: the caller retries)."""
    docs = f"/v1/projects/{project}/databases/(default)/documents"
    _, data = call(conn, "POST", docs + ":beginTransaction", {"options": {"readWrite": {}}})
    txn = json.loads(data)["transaction"]
    _, data = call(conn, "GET", docs + "/counters/c?transaction=" + urllib.parse.quote(txn, safe=""))
    n = int(json.loads(data)["fields"]["n"]["integerValue"])
    status, _ = call(conn, "POST", docs + ":commit", {"transaction": txn, "writes": [{"update": {
        "name": f"projects/{project}/databases/(default)/documents/counters/c", "fields": {"n": {"integerValue": str(n + 1)}}}}]})
    if status not in (200, 409):
        raise RuntimeError(f"commit answered {status}")
    return status == 200


def wrk(port, script, seconds, env=None, connections=None):
    """Runs wrk with a Lua scenario; returns {rps, p50_ms, p99_ms, requests, errors}."""
    out = subprocess.run(["wrk", "-t2", f"-c{connections or CONNECTIONS}", f"-d{seconds}s", "--timeout", "5s", "-s", f"bench/wrk/{script}",
                          f"http://127.0.0.1:{port}"], capture_output=True, text=True, timeout=seconds + 60,
                         env={**os.environ, **(env or {})})
    m = re.search(r"WRK_RESULT (.*)", out.stdout)
    if not m:
        raise RuntimeError(f"wrk {script} failed: {out.stdout}\n{out.stderr}")
    fields = dict(kv.split("=") for kv in m.group(1).split())
    return {k: float(v) for k, v in fields.items()}


def start_emulator(binary, project, extra=()):
    """Starts the emulator on a free port; returns (process, port) once it answers."""
    port = free_port()
    p = subprocess.Popen([binary, "start", "--port", str(port), "--project", project, "--log-level", "error", *extra],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_http(port, "/emulator/v1/status")
    return p, port


def stop(*processes):
    for p in processes:
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()


def sign_up(port, body=None):
    """Signs a user up (anonymous without `body`); returns the response object."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    status, data = call(conn, "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench-key", body or {})
    conn.close()
    if status != 200:
        raise RuntimeError(f"sign-up failed: {status} {data[:200]!r}")
    return json.loads(data)


def row(label, r, ceiling=None):
    """A table row; with `ceiling` (the constant route's result) it adds this scenario's share of it."""
    share = f" {r['rps'] / ceiling['rps']:.0%} |" if ceiling else ""
    return f"| {label} | {r['rps']:,.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {int(r['errors'])} |" + share


def ratio(label, ours, theirs):
    return (f"| {label} | {ours['rps'] / theirs['rps']:.1f}x the requests/s | "
            f"{ours['p50_ms'] / theirs['p50_ms']:.2f}x the p50 |")


TABLE_HEAD = ["| scenario | requests/s | p50 ms | p99 ms | errors |", "|---|---|---|---|---|"]
CEILING_HEAD = ["| scenario | requests/s | p50 ms | p99 ms | errors | share of the ceiling |", "|---|---|---|---|---|---|"]
