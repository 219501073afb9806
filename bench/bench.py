"""Benchmark driver: our emulator vs moto (DynamoDB) on loopback, with wrk as the load generator.

Called by bench/run.sh (which builds the release binary and installs wrk and moto). Every phase is
bounded in count and time. Prints a Markdown section; run.sh appends it to bench/RESULTS.md.

Environment: EMULATOR_BIN (default .build/release/emulator), WRK_SECONDS (default 5),
SCALE_SECONDS (default 3), CONNECTIONS (default 16), PYTHON (the interpreter with moto).
"""
import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

BIN = os.environ.get("EMULATOR_BIN", ".build/release/emulator")
WRK_SECONDS = int(os.environ.get("WRK_SECONDS", "5"))
SCALE_SECONDS = int(os.environ.get("SCALE_SECONDS", "3"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "16"))
PROJECT = "bench"
SIZES = (1_000, 10_000, 100_000)
MOTO_ITEMS = 1_000
TXN_THREADS, TXN_PER_THREAD = 8, 40


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


def seed(port, coll, count):
    """Writes `count` documents d0..d{count-1} with bucket = i mod (count/20), 500 per commit."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    buckets = count // 20
    base = f"projects/{PROJECT}/databases/(default)/documents/{coll}/d"
    for start in range(0, count, 500):
        writes = [{"update": {"name": f"{base}{i}", "fields": {
            "bucket": {"integerValue": str(i % buckets)}, "title": {"stringValue": f"task {i}"},
            "done": {"booleanValue": i % 2 == 0}}}} for i in range(start, min(start + 500, count))]
        status, data = call(conn, "POST", f"/v1/projects/{PROJECT}/databases/(default)/documents:commit", {"writes": writes})
        if status != 200:
            raise RuntimeError(f"seeding failed: {status} {data[:200]!r}")
    conn.close()


def wrk(port, script, seconds, env=None):
    """Runs wrk with a Lua scenario; returns {rps, p50_ms, p99_ms, requests, errors}."""
    out = subprocess.run(["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds}s", "--timeout", "5s", "-s", f"bench/wrk/{script}",
                          f"http://127.0.0.1:{port}"], capture_output=True, text=True, timeout=seconds + 60,
                         env={**os.environ, **(env or {})})
    m = re.search(r"WRK_RESULT (.*)", out.stdout)
    if not m:
        raise RuntimeError(f"wrk {script} failed: {out.stdout}\n{out.stderr}")
    fields = dict(kv.split("=") for kv in m.group(1).split())
    return {k: float(v) for k, v in fields.items()}


def contention(port):
    """Read-increment-write transactions on one counter from TXN_THREADS threads, retried on ABORTED (409)."""
    docs = f"/v1/projects/{PROJECT}/databases/(default)/documents"
    name = f"projects/{PROJECT}/databases/(default)/documents/counters/c"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    call(conn, "PATCH", docs + "/counters/c", {"fields": {"n": {"integerValue": "0"}}})
    latencies, aborts, lock = [], [0], threading.Lock()

    def worker():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for _ in range(TXN_PER_THREAD):
            t0 = time.perf_counter()
            for _attempt in range(1000):
                _, data = call(c, "POST", docs + ":beginTransaction", {"options": {"readWrite": {}}})
                txn = json.loads(data)["transaction"]
                _, data = call(c, "GET", docs + "/counters/c?transaction=" + urllib.parse.quote(txn, safe=""))
                n = int(json.loads(data)["fields"]["n"]["integerValue"])
                status, _ = call(c, "POST", docs + ":commit", {"transaction": txn, "writes": [
                    {"update": {"name": name, "fields": {"n": {"integerValue": str(n + 1)}}}}]})
                if status == 200:
                    break
                if status != 409:
                    raise RuntimeError(f"commit answered {status}")
                with lock:
                    aborts[0] += 1
            with lock:
                latencies.append((time.perf_counter() - t0) * 1000)
        c.close()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(TXN_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    elapsed = time.perf_counter() - t0
    _, data = call(conn, "GET", docs + "/counters/c")
    final = int(json.loads(data)["fields"]["n"]["integerValue"])
    lat = sorted(latencies)
    return {"tps": len(lat) / elapsed, "p50": statistics.median(lat), "p99": lat[max(0, int(len(lat) * 0.99) - 1)],
            "aborts": aborts[0], "committed": len(lat), "final": final}


def start_moto(python):
    port = free_port()
    p = subprocess.Popen([python, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_http(port, "/moto-api/data.json")
    auth = {"Content-Type": "application/x-amz-json-1.0",
            "Authorization": "AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0"}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def ddb(op, body):
        conn.request("POST", "/", body=json.dumps(body), headers={**auth, "X-Amz-Target": "DynamoDB_20120810." + op})
        r = conn.getresponse()
        data = r.read()
        if r.status != 200:
            raise RuntimeError(f"moto {op}: {r.status} {data[:200]!r}")

    ddb("CreateTable", {"TableName": "bench", "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
                        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"})
    for i in range(MOTO_ITEMS):
        ddb("PutItem", {"TableName": "bench", "Item": {"id": {"S": f"d{i}"}, "title": {"S": f"task {i}"}, "n": {"N": str(i)}}})
    conn.close()
    return p, port


def row(label, r):
    return f"| {label} | {r['rps']:,.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {int(r['errors'])} |"


def main():
    lines = []
    port = free_port()
    emu = subprocess.Popen([BIN, "start", "--port", str(port), "--project", PROJECT, "--log-level", "error"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    moto = None
    try:
        wait_http(port, "/emulator/v1/status")
        time.sleep(0.3)
        idle = rss_mib(emu.pid)
        t0 = time.perf_counter()
        for n in SIZES:
            seed(port, f"c{n}", n)
        seed_s = time.perf_counter() - t0
        loaded = rss_mib(emu.pid)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for k in range(10):
            users = [{"localId": f"bench-user-{k}-{i}", "email": f"u{k}-{i}@example.com", "displayName": f"User {i}"} for i in range(1000)]
            call(conn, "POST", f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchCreate", {"users": users},
                 {"Authorization": "Bearer owner"})
        conn.close()
        with_users = rss_mib(emu.pid)
        lines += ["", "Memory (this run's server process):", "",
                  "| state | resident memory |", "|---|---|",
                  f"| idle, after start | {idle:.1f} MiB |",
                  f"| {sum(SIZES):,} documents (3 collections incl. one of 100,000) | {loaded:.1f} MiB |",
                  f"| plus 10,000 users | {with_users:.1f} MiB |",
                  "", f"Seeding {sum(SIZES):,} documents in 500-write commits took {seed_s:.1f} s "
                  f"({sum(SIZES) / seed_s:,.0f} documents/s).", ""]

        ours = {
            "GET /emulator/v1/status (HTTP ceiling)": wrk(port, "status.lua", WRK_SECONDS),
            "document get (100,000-document collection)": wrk(port, "get.lua", WRK_SECONDS),
            "document create (POST, generated id)": wrk(port, "create.lua", WRK_SECONDS),
            "runQuery returning 20 of 100,000 (equality filter, limit 20)": wrk(port, "query.lua", WRK_SECONDS),
        }
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        call(conn, "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench-key",
             {"email": "bench@example.com", "password": "bench-password-1"})
        conn.close()
        ours["sign-up (anonymous, RS256 token)"] = wrk(port, "signup.lua", WRK_SECONDS)
        ours["sign-in (password)"] = wrk(port, "signin.lua", WRK_SECONDS)
        # The cost of rules: the same get with an end user's ID token under a rule that reads the
        # token and the document, versus the owner get above.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        rules = ("rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /{c}/{id} { "
                 "allow read: if request.auth != null && resource.data.title is string && resource.data.bucket >= 0; "
                 "allow write: if true; } } }")
        call(conn, "PUT", f"/emulator/v1/projects/{PROJECT}:securityRules", {"rules": {"files": [{"content": rules}]}})
        _, data = call(conn, "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench-key", {})
        token = json.loads(data)["idToken"]
        ours["document get under rules (ID token verified, rule evaluated)"] = wrk(port, "get.lua", WRK_SECONDS, {"TOKEN": token})
        call(conn, "PUT", f"/emulator/v1/projects/{PROJECT}:securityRules",
             {"rules": {"files": [{"content": "service cloud.firestore { match /{p=**} { allow read, write; } }"}]}})
        conn.close()
        after = rss_mib(emu.pid)
        lines += [f"wrk: 2 threads, {CONNECTIONS} connections, {WRK_SECONDS} s per scenario, keep-alive, loopback.", "",
                  "| scenario | requests/s | p50 ms | p99 ms | errors |", "|---|---|---|---|---|"]
        lines += [row(k, v) for k, v in ours.items()]
        lines += ["", f"Resident memory after the load (incl. every created document): {after:.1f} MiB.", ""]

        txn = contention(port)
        lines += [f"Read-increment-write transaction on one counter, {TXN_THREADS} threads x {TXN_PER_THREAD} "
                  "increments, retried on ABORTED (Python http.client, one connection per thread):", "",
                  "| committed | transactions/s | p50 ms (incl. retries) | p99 ms | aborts (retried) | final counter |",
                  "|---|---|---|---|---|---|",
                  f"| {txn['committed']} | {txn['tps']:,.0f} | {txn['p50']:.2f} | {txn['p99']:.2f} | {txn['aborts']} | "
                  f"{txn['final']} ({'correct' if txn['final'] == txn['committed'] else 'LOST UPDATES'}) |", ""]

        scale = {}
        for n in SIZES:
            env = {"COLL": f"c{n}", "COUNT": str(n), "PROJECT": PROJECT}
            scale[n] = {s: wrk(port, f"{s}.lua", SCALE_SECONDS, env) for s in ("get", "query", "commit")}
        lines += [f"Scaling with collection size ({SCALE_SECONDS} s per cell; p50 / p99 ms):", "",
                  "| documents | get | query (20 results) | commit (1 update) |", "|---|---|---|---|"]
        for n in SIZES:
            cells = [f"{scale[n][s]['p50_ms']:.2f} / {scale[n][s]['p99_ms']:.2f}" for s in ("get", "query", "commit")]
            lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
        lines.append("")

        python = os.environ.get("PYTHON", sys.executable)
        moto, moto_port = start_moto(python)
        mget = wrk(moto_port, "dynamodb.lua", WRK_SECONDS, {"OP": "GetItem", "COUNT": str(MOTO_ITEMS)})
        mput = wrk(moto_port, "dynamodb.lua", WRK_SECONDS, {"OP": "PutItem", "COUNT": str(MOTO_ITEMS)})
        lines += [f"moto {moto_version(python)} in server mode (DynamoDB over HTTP, {MOTO_ITEMS:,} items), same wrk settings:", "",
                  "| scenario | requests/s | p50 ms | p99 ms | errors |", "|---|---|---|---|---|",
                  row("moto GetItem", mget), row("moto PutItem", mput), "",
                  "| ratio (ours / moto) | throughput | p50 latency |", "|---|---|---|",
                  ratio("document get vs GetItem", ours["document get (100,000-document collection)"], mget),
                  ratio("document create vs PutItem", ours["document create (POST, generated id)"], mput), ""]
    finally:
        for p in (emu, moto):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
    print("\n".join(lines))


def ratio(label, ours, theirs):
    return (f"| {label} | {ours['rps'] / theirs['rps']:.1f}x the requests/s | "
            f"{ours['p50_ms'] / theirs['p50_ms']:.2f}x the p50 |")


def moto_version(python):
    return subprocess.run([python, "-c", "import moto; print(moto.__version__)"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
