"""Benchmark driver: our emulator against its own HTTP ceiling and against moto, with wrk as the
load generator, on loopback.

Called by bench/run.sh (which builds the release binaries and installs wrk and moto). Every phase
is bounded in count and time. Prints a Markdown section; run.sh appends it to bench/RESULTS.md.

Environment: EMULATOR_BIN (default .build/release/emulator), BENCH_FUNCTIONS_BIN (default
.build/release/bench-functions), WRK_SECONDS (default 5), SCALE_SECONDS (default 3), CONNECTIONS
(default 16), PYTHON (the interpreter with moto), MAX_DOCUMENTS (default 1000000: the largest
collection of the scaling table).
"""
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (CEILING_HEAD, CONNECTIONS, TABLE_HEAD, call, increment_counter, ratio, row, rss_mib, seed, sign_up,  # noqa: E402
                      start_emulator, stop, wait_http, wrk)
from peers import ITEMS as MOTO_ITEMS, Moto  # noqa: E402

BIN = os.environ.get("EMULATOR_BIN", ".build/release/emulator")
FUNCTIONS_BIN = os.path.abspath(os.environ.get("BENCH_FUNCTIONS_BIN", ".build/release/bench-functions"))
WRK_SECONDS = int(os.environ.get("WRK_SECONDS", "5"))
SCALE_SECONDS = int(os.environ.get("SCALE_SECONDS", "3"))
MAX_DOCUMENTS = int(os.environ.get("MAX_DOCUMENTS", "1000000"))
PROJECT = "bench"
SIZES = (1_000, 10_000, 100_000)
PROJECT_COUNTS = (1, 16, 256)
PROJECT_DOCS = 1_000
TXN_THREADS, TXN_PER_THREAD = 8, 40
RULES = ("rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /{c}/{id} { "
         "allow read: if request.auth != null && resource.data.title is string && resource.data.bucket >= 0; "
         "allow write: if true; } } }")
OPEN_RULES = "service cloud.firestore { match /{p=**} { allow read, write; } }"
# ID tokens are unsigned by default; the benchmark measures the RS256 path (auth.signIdTokens).
AUTH = {"signIdTokens": True}


def contention(port):
    """Read-increment-write transactions on one counter from TXN_THREADS threads, retried on ABORTED (409)."""
    docs = f"/v1/projects/{PROJECT}/databases/(default)/documents"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    call(conn, "PATCH", docs + "/counters/c", {"fields": {"n": {"integerValue": "0"}}})
    latencies, aborts, lock = [], [0], threading.Lock()

    def worker():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for _ in range(TXN_PER_THREAD):
            t0 = time.perf_counter()
            for _attempt in range(1000):
                if increment_counter(c, PROJECT):
                    break
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


def set_rules(port, project, text):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    status, data = call(conn, "PUT", f"/emulator/v1/projects/{project}:securityRules", {"rules": {"files": [{"content": text}]}})
    conn.close()
    if status != 200:
        raise RuntimeError(f"rules rejected: {status} {data[:300]!r}")


CEILING = "GET /emulator/v1/status (HTTP ceiling)"
GET = "document get (100,000-document collection)"
RULED_GET = "document get under rules (ID token verified, rule evaluated)"


def throughput(port, lines):
    """The main scenarios on the project seeded with SIZES."""
    ours = {
        CEILING: wrk(port, "status.lua", WRK_SECONDS),
        GET: wrk(port, "get.lua", WRK_SECONDS),
        "document create (POST, generated id)": wrk(port, "create.lua", WRK_SECONDS),
        "runQuery returning 20 of 100,000 (equality filter, limit 20)": wrk(port, "query.lua", WRK_SECONDS),
        "commit of 2 updates, atomic": wrk(port, "commit.lua", WRK_SECONDS, {"WRITES": "2"}),
    }
    sign_up(port, {"email": "bench@example.com", "password": "bench-password-1"})
    ours["sign-up (anonymous, RS256 token)"] = wrk(port, "signup.lua", WRK_SECONDS)
    ours["sign-up (email and password, RS256 token)"] = wrk(port, "signup_password.lua", WRK_SECONDS)
    ours["sign-in (password)"] = wrk(port, "signin.lua", WRK_SECONDS)
    # The cost of rules: the same get with an end user's ID token under a rule that reads the
    # token and the document, versus the owner get above.
    set_rules(port, PROJECT, RULES)
    token = sign_up(port)["idToken"]
    ours[RULED_GET] = wrk(port, "get.lua", WRK_SECONDS, {"TOKEN": token})
    set_rules(port, PROJECT, OPEN_RULES)
    ceiling = ours[CEILING]
    owner, ruled = ours[GET], ours[RULED_GET]
    lines += [f"wrk: 2 threads, {CONNECTIONS} connections, {WRK_SECONDS} s per scenario, keep-alive, loopback. "
              "The last column is each scenario's requests/s as a share of the constant route's (our HTTP stack's ceiling).",
              "", *CEILING_HEAD]
    lines += [row(k, v, ceiling) for k, v in ours.items()]
    # Server time per request at saturation on 2 cores, from the throughput difference.
    extra_us = 2e6 / ruled["rps"] - 2e6 / owner["rps"]
    lines += ["", f"The cost of rules: a get under rules runs at {ruled['rps'] / owner['rps']:.0%} of the owner get's rate "
              f"(about {extra_us:.0f} µs of CPU more per request on 2 cores: ID-token check, rule evaluation, document read "
              f"for `resource`); its p50 is {ruled['p50_ms'] / owner['p50_ms']:.2f}x the owner get's."]
    return ours


def callables(lines):
    """Callable round trips through a worker process (bench/Functions): without a token, with an ID
    token the host verifies, and with the function re-verifying it strictly via the admin API."""
    with tempfile.TemporaryDirectory() as d:
        config = os.path.join(d, "emulator.json")
        with open(config, "w") as f:
            json.dump({"project": PROJECT, "auth": AUTH, "functions": {"codebases": [{"name": "bench", "command": [FUNCTIONS_BIN]}]}}, f)
        emu, port = start_emulator(BIN, PROJECT, ["--config", config])
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            for _ in range(200):
                _, data = call(conn, "GET", f"/emulator/v1/projects/{PROJECT}/functions")
                if "verifyCaller" in data.decode():
                    break
                time.sleep(0.05)
            conn.close()
            token = sign_up(port)["idToken"]
            res = {
                "callable, no token (host → worker → host round trip)": wrk(port, "callable.lua", WRK_SECONDS),
                "callable with an ID token (verified by the host)": wrk(port, "callable.lua", WRK_SECONDS, {"TOKEN": token}),
                "callable that re-verifies the token strictly (admin API call from the worker)":
                    wrk(port, "callable.lua", WRK_SECONDS, {"TOKEN": token, "FUNCTION": "verifyCaller"}),
            }
        finally:
            stop(emu)
    lines += ["", "Callables (a Swift worker process, `bench/Functions`; same wrk settings):", "", *TABLE_HEAD]
    lines += [row(k, v) for k, v in res.items()]


def scaling(port, emu, lines):
    """Latency of get, query and commit by collection size, up to MAX_DOCUMENTS."""
    sizes = SIZES + ((MAX_DOCUMENTS,) if MAX_DOCUMENTS > SIZES[-1] else ())
    t0 = time.perf_counter()
    for n in sizes[len(SIZES):]:
        seed(port, PROJECT, f"c{n}", n)
    seeded = time.perf_counter() - t0
    memory = rss_mib(emu.pid)
    cells = {}
    for n in sizes:
        env = {"COLL": f"c{n}", "COUNT": str(n), "PROJECT": PROJECT}
        cells[n] = {s: wrk(port, f"{s}.lua", SCALE_SECONDS, env) for s in ("get", "query", "commit")}
    lines += [f"Scaling with collection size, one project ({SCALE_SECONDS} s per cell; p50 / p99 ms, requests/s):", "",
              "| documents in the collection | get | query (20 results) | commit (1 update) |", "|---|---|---|---|"]
    for n in sizes:
        lines.append(f"| {n:,} | " + " | ".join(
            f"{cells[n][s]['p50_ms']:.2f} / {cells[n][s]['p99_ms']:.2f}, {cells[n][s]['rps']:,.0f}/s" for s in ("get", "query", "commit")) + " |")
    if len(sizes) > len(SIZES):
        lines += ["", f"Seeding the {sizes[-1]:,}-document collection took {seeded:.1f} s; resident memory with "
                  f"{sum(sizes):,} documents in the project (plus the created ones): {memory:.1f} MiB."]
    lines.append("")


def projects(port, emu, lines):
    """Latency of get, query and commit spread over 1, 16 and 256 projects of PROJECT_DOCS each."""
    t0 = time.perf_counter()
    for k in range(max(PROJECT_COUNTS)):
        seed(port, f"{PROJECT}-p-{k}", "c1000", PROJECT_DOCS)
    seeded = time.perf_counter() - t0
    memory = rss_mib(emu.pid)
    cells = {}
    for n in PROJECT_COUNTS:
        env = {"COLL": "c1000", "COUNT": str(PROJECT_DOCS), "PROJECT": f"{PROJECT}-p", "PROJECTS": str(n)}
        cells[n] = {s: wrk(port, f"{s}.lua", SCALE_SECONDS, env) for s in ("get", "query", "commit")}
    lines += [f"Scaling with the number of projects: requests spread over N projects of {PROJECT_DOCS:,} documents "
              f"({SCALE_SECONDS} s per cell; p50 / p99 ms, requests/s):", "",
              "| projects | get | query (20 results) | commit (1 update) |", "|---|---|---|---|"]
    for n in PROJECT_COUNTS:
        lines.append(f"| {n} | " + " | ".join(
            f"{cells[n][s]['p50_ms']:.2f} / {cells[n][s]['p99_ms']:.2f}, {cells[n][s]['rps']:,.0f}/s" for s in ("get", "query", "commit")) + " |")
    lines += ["", f"Seeding {max(PROJECT_COUNTS)} projects took {seeded:.1f} s; resident memory afterwards: {memory:.1f} MiB.", ""]


def peer(ours, lines):
    moto = Moto(os.environ.get("PYTHON", sys.executable))
    try:
        client = moto.prepare()
        port = moto.port
        m = {
            "GetItem": wrk(port, "dynamodb.lua", WRK_SECONDS, {"OP": "GetItem", "COUNT": str(MOTO_ITEMS)}),
            # Before PutItem grows the table: moto's transactions slow down as the table grows.
            "TransactWriteItems": wrk(port, "dynamodb.lua", WRK_SECONDS, {"OP": "TransactWriteItems", "COUNT": str(MOTO_ITEMS)}),
            "PutItem": wrk(port, "dynamodb.lua", WRK_SECONDS, {"OP": "PutItem", "COUNT": str(MOTO_ITEMS)}),
            "Cognito SignUp": wrk(port, "cognito.lua", WRK_SECONDS, {"CLIENT_ID": client}),
        }
        version = moto.version()
    finally:
        moto.close()
        stop(moto.process)
    lines += [f"moto {version} in server mode (DynamoDB with {MOTO_ITEMS:,} items, Cognito user pools), same wrk settings:", "",
              *TABLE_HEAD, *[row(f"moto {k}", v) for k, v in m.items()], "",
              "| ratio (ours / moto) | throughput | p50 latency |", "|---|---|---|",
              ratio("document get vs GetItem", ours[GET], m["GetItem"]),
              ratio("document create vs PutItem", ours["document create (POST, generated id)"], m["PutItem"]),
              ratio("2-update commit vs 2-put TransactWriteItems", ours["commit of 2 updates, atomic"], m["TransactWriteItems"]),
              ratio("email/password sign-up vs Cognito SignUp", ours["sign-up (email and password, RS256 token)"], m["Cognito SignUp"]), ""]


def main():
    lines = []
    signed = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump({"auth": AUTH}, signed)
    signed.close()
    emu, port = start_emulator(BIN, PROJECT, ["--config", signed.name])
    try:
        time.sleep(0.3)
        idle = rss_mib(emu.pid)
        t0 = time.perf_counter()
        for n in SIZES:
            seed(port, PROJECT, f"c{n}", n)
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
        ours = throughput(port, lines)
        lines += ["", f"Resident memory after the load (incl. every created document and user): {rss_mib(emu.pid):.1f} MiB.", ""]
        txn = contention(port)
        lines += [f"Read-increment-write transaction on one counter, {TXN_THREADS} threads x {TXN_PER_THREAD} "
                  "increments, retried on ABORTED (Python http.client, one connection per thread):", "",
                  "| committed | transactions/s | p50 ms (incl. retries) | p99 ms | aborts (retried) | final counter |",
                  "|---|---|---|---|---|---|",
                  f"| {txn['committed']} | {txn['tps']:,.0f} | {txn['p50']:.2f} | {txn['p99']:.2f} | {txn['aborts']} | "
                  f"{txn['final']} ({'correct' if txn['final'] == txn['committed'] else 'LOST UPDATES'}) |", ""]
        scaling(port, emu, lines)
        projects(port, emu, lines)
    finally:
        stop(emu)
        os.unlink(signed.name)
    callables(lines)
    lines.append("")
    peer(ours, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
