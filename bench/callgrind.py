"""Instructions per request under valgrind's callgrind: the repeatable measure of CPU cost per
route on a shared, noisy machine (wall-clock figures move with other processes' load; instruction
counts do not).

The server runs under `valgrind --tool=callgrind`. For each scenario the counters are zeroed
(`callgrind_control -z`), N requests are sent one after another on one keep-alive connection, and
the counters are dumped (`callgrind_control -d`); an idle window of the same wall time, measured the
same way, is subtracted, so timers and the event loop's idle wake-ups do not count. The figure is
(requests - idle) / N instructions, counted in every thread of the server (the client is another
process and is not counted).

Scenarios: the status route, a REST document GET (cycling over HOT documents, each read once
before the measurement, so this is the hot read), a runQuery answering 20 of the 1,000 documents
(an equality filter; every result read before), a document create (POST with a generated id) and
a one-update :commit.

Two workarounds for valgrind 3.19 (Debian 12): the binary is run from a copy without DWARF (its
Swift 6 DWARF 5 line tables stop valgrind's reader), and bench/callgrind_shim.c is preloaded
(libdispatch's main-thread `sigsuspend` crashes valgrind); neither changes the code measured.

Usage: python3 bench/callgrind.py [--no-build] [N]   (N requests per scenario, default 200)
Environment: EMULATOR_BIN (default .build/release/emulator, built with
`swift build -c release --product emulator` unless --no-build), KEEP=1 keeps the callgrind files
in bench/.callgrind/ for `callgrind_annotate`.
"""
import glob
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import free_port, wait_http  # noqa: E402

BIN = os.environ.get("EMULATOR_BIN", ".build/release/emulator")
PROJECT = "bench"
DOCS = 1000
HOT = 50
ROOT = f"/v1/projects/{PROJECT}/databases/(default)/documents"


def build():
    subprocess.run(["swift", "build", "-c", "release", "--product", "emulator"], check=True)


def seed(conn):
    for start in range(0, DOCS, 500):
        writes = [{"update": {"name": f"projects/{PROJECT}/databases/(default)/documents/c/d{i}", "fields": {
            "bucket": {"integerValue": str(i % 50)}, "title": {"stringValue": f"task {i}"},
            "done": {"booleanValue": i % 2 == 0}}}} for i in range(start, min(start + 500, DOCS))]
        expect(conn, "POST", f"{ROOT}:commit", json.dumps({"writes": writes}))


def expect(conn, method, path, body=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        raise RuntimeError(f"{method} {path}: {r.status} {data[:200]!r}")


CREATE = json.dumps({"fields": {"title": {"stringValue": "benchmark"}, "n": {"integerValue": "1"},
                                "done": {"booleanValue": False}}})


def commit_body(k):
    i = (k * 7919) % DOCS
    return json.dumps({"writes": [{"update": {"name": f"projects/{PROJECT}/databases/(default)/documents/c/d{i}", "fields": {
        "bucket": {"integerValue": str(i % 50)}, "title": {"stringValue": f"task {i}"}, "v": {"integerValue": str(k)}}}}]})


def query_body(k):
    return json.dumps({"structuredQuery": {"from": [{"collectionId": "c"}], "limit": 20, "where": {"fieldFilter": {
        "field": {"fieldPath": "bucket"}, "op": "EQUAL", "value": {"integerValue": str(k % 50)}}}}})


class GRPC:
    """A gRPC client on one HTTP/2 connection (the `h2` package): unary calls, one stream each."""

    def __init__(self, port):
        import socket
        import h2.config
        import h2.connection
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self.conn.increment_flow_control_window((1 << 30) - 65535)
        self.sock.sendall(self.conn.data_to_send())

    def call(self, method, message):
        import h2.events
        sid = self.conn.get_next_available_stream_id()
        self.conn.send_headers(sid, [(":method", "POST"), (":scheme", "http"), (":authority", "bench"),
                                     (":path", f"/google.firestore.v1.Firestore/{method}"), ("content-type", "application/grpc"),
                                     ("te", "trailers"), ("authorization", "Bearer owner")])
        self.conn.send_data(sid, b"\x00" + len(message).to_bytes(4, "big") + message, end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        status = None
        while True:
            for e in self.conn.receive_data(self.sock.recv(1 << 16)):
                if isinstance(e, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                elif isinstance(e, h2.events.TrailersReceived):
                    status = dict(e.headers).get(b"grpc-status")
                elif isinstance(e, h2.events.StreamEnded) and e.stream_id == sid:
                    self.sock.sendall(self.conn.data_to_send())
                    if status != b"0":
                        raise RuntimeError(f"{method}: grpc-status {status}")
                    return
            self.sock.sendall(self.conn.data_to_send())


GRPC_CONN = []


def grpc_get(port, k):
    if not GRPC_CONN:
        GRPC_CONN.append(GRPC(port))
    name = f"projects/{PROJECT}/databases/(default)/documents/c/d{k % HOT}".encode()
    GRPC_CONN[0].call("GetDocument", b"\x0a" + bytes([len(name)]) + name)  # GetDocumentRequest{name}


SCENARIOS = [
    ("status (GET /emulator/v1/status)", lambda c, k: expect(c, "GET", "/emulator/v1/status")),
    ("document GET (REST, hot)", lambda c, k: expect(c, "GET", f"{ROOT}/c/d{k % HOT}")),
    ("GetDocument (gRPC, hot, one call per stream on one connection)", lambda c, k: grpc_get(c.port, k)),
    ("runQuery, 20 of 1,000 documents (REST, hot)", lambda c, k: expect(c, "POST", f"{ROOT}:runQuery", query_body(k))),
    ("document create (REST POST, generated id)", lambda c, k: expect(c, "POST", f"{ROOT}/created", CREATE)),
    ("commit of 1 update (REST :commit)", lambda c, k: expect(c, "POST", f"{ROOT}:commit", commit_body(k))),
]


def total(path):
    """The `totals:` (or `summary:`) instruction count of one callgrind dump."""
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def measure(pid, outdir, work):
    """Instructions executed by the server while `work` runs (counters zeroed before, dumped after)."""
    before = set(glob.glob(f"{outdir}/cg.out.{pid}*"))
    subprocess.run(["callgrind_control", "-z", str(pid)], check=True, capture_output=True)
    t0 = time.monotonic()
    work()
    elapsed = time.monotonic() - t0
    subprocess.run(["callgrind_control", "-d", str(pid)], check=True, capture_output=True)
    for _ in range(100):
        new = set(glob.glob(f"{outdir}/cg.out.{pid}*")) - before
        if new:
            time.sleep(0.2)  # let the dump finish writing
            return sum(total(p) for p in new), elapsed
        time.sleep(0.1)
    raise RuntimeError("callgrind wrote no dump")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 200
    if "--no-build" not in sys.argv and "EMULATOR_BIN" not in os.environ:
        build()
    keep = os.environ.get("KEEP") == "1"
    outdir = os.path.join(os.path.dirname(__file__), ".callgrind") if keep else tempfile.mkdtemp()
    os.makedirs(outdir, exist_ok=True)
    tools = tempfile.mkdtemp()
    binary, shim = os.path.join(tools, "emulator"), os.path.join(tools, "shim.so")
    subprocess.run(["strip", "--strip-debug", "-o", binary, BIN], check=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", shim, os.path.join(os.path.dirname(__file__), "callgrind_shim.c")], check=True)
    port = free_port()
    p = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={outdir}/cg.out.%p",
                          binary, "start", "--port", str(port), "--project", PROJECT, "--log-level", "error"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "LD_PRELOAD": shim})
    try:
        wait_http(port, "/emulator/v1/status", deadline_s=120)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        seed(conn)
        rows = []
        for name, run in SCENARIOS:
            for k in range(max(HOT, 20)):  # warm-up: first-use costs and the hot documents' first reads
                run(conn, k)
            work, elapsed = measure(p.pid, outdir, lambda: [run(conn, k) for k in range(n)])
            idle, _ = measure(p.pid, outdir, lambda: time.sleep(elapsed))
            rows.append((name, (work - idle) / n, work / n, idle))
        conn.close()
    finally:
        p.kill()  # under valgrind a graceful stop can take minutes; nothing is left to measure
        p.wait(timeout=60)
        shutil.rmtree(tools, ignore_errors=True)
        if not keep:
            shutil.rmtree(outdir, ignore_errors=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    print(f"callgrind, {n} requests per scenario, binary {BIN} (label it with the commit it was built from), "
          f"script at {commit}{' (working tree changed)' if dirty else ''}")
    print()
    print("| scenario | instructions per request | (raw, before subtracting idle) | idle window |")
    print("|---|---|---|---|")
    for name, per, raw, idle in rows:
        print(f"| {name} | {per:,.0f} | {raw:,.0f} | {idle:,} |")


if __name__ == "__main__":
    main()
