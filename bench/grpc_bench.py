"""gRPC benchmarks (bench/run.sh): GetDocument over HTTP/2 with h2load against the REST get with
wrk in the same run, a 10 MB RunQuery stream, and the memory of 1,000 idle HTTP/2 connections.
Prints Markdown rows for bench/RESULTS.md."""
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import CONNECTIONS, rss_mib, seed, start_emulator, stop, wrk  # noqa: E402

SECONDS = int(os.environ.get("WRK_SECONDS", "8"))
PROJECT = "bench"


def varint(n):
    out = b""
    while True:
        out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            return out


def get_document_request(name):
    """A framed gRPC GetDocumentRequest {name=1} (built by hand: no protobuf library needed)."""
    body = b"\x0a" + varint(len(name)) + name.encode()
    return b"\x00" + struct.pack(">I", len(body)) + body


def h2load(port, path, data, streams):
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(data)
    try:
        out = subprocess.run(["h2load", "-D", str(SECONDS), "-c", str(CONNECTIONS), "-m", str(streams), "-t", "2",
                              "-H", "content-type: application/grpc", "-H", "te: trailers", "-H", "authorization: Bearer owner",
                              "-d", f.name, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, timeout=SECONDS + 60)
    finally:
        os.unlink(f.name)
    rps = re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out.stdout)
    ok = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed", out.stdout)
    lat = re.search(r"time for request:\s+([\d.]+)(\w+)\s+([\d.]+)(\w+)\s+([\d.]+)(\w+)", out.stdout)
    if not rps or not ok:
        raise RuntimeError(f"h2load failed: {out.stdout}\n{out.stderr}")
    def ms(v, unit):
        return float(v) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    return {"rps": float(rps.group(1)), "failed": int(ok.group(2)), "mean_ms": ms(lat.group(5), lat.group(6)) if lat else 0}


def grpc_status_of_one_call(port, data):
    """Sanity check: the framed request answers grpc-status 0 (h2load counts only HTTP statuses)."""
    out = subprocess.run(["nghttp", "-v", "-H", ":method: POST", "-H", "content-type: application/grpc", "-H", "te: trailers",
                          "-H", "authorization: Bearer owner", "-d", "-", f"http://127.0.0.1:{port}/google.firestore.v1.Firestore/GetDocument"],
                         input=data, capture_output=True, timeout=30)
    m = re.search(rb"grpc-status: (\d+)", out.stdout)
    return int(m.group(1)) if m else None


def ten_megabyte_query(port):
    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{port}"
    from google.cloud import firestore
    db = firestore.Client(project=PROJECT)
    batch = db.batch()
    for i in range(100):
        batch.set(db.document(f"big/{i:03d}"), {"blob": "x" * 100_000})
    batch.commit()
    best = None
    for _ in range(3):
        t = time.perf_counter()
        n = sum(len(d.get("blob")) for d in db.collection("big").stream())
        best = min(best or 1e9, time.perf_counter() - t)
        assert n == 10_000_000
    db.close()
    return best


def idle_connections(port, pid, count=1000):
    before = rss_mib(pid)
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        socks.append(s)
    for s in socks:  # every connection is established: the server's SETTINGS and its ACK of ours arrived
        s.settimeout(10)
        got = b""
        while got.count(b"\x04\x01\x00\x00\x00\x00") < 1:
            got += s.recv(4096)
    time.sleep(0.5)
    after = rss_mib(pid)
    for s in socks:
        s.close()
    return before, after


def main():
    binary = os.environ["EMULATOR_BIN"]
    proc, port = start_emulator(binary, PROJECT)
    lines = []
    try:
        seed(port, PROJECT, "c1", 1)
        name = f"projects/{PROJECT}/databases/(default)/documents/c1/d0"
        data = get_document_request(name)
        status = grpc_status_of_one_call(port, data)
        assert status == 0, f"GetDocument over gRPC answered grpc-status {status}"
        rest = wrk(port, "get.lua", SECONDS, {"COLL": "c1", "COUNT": "1"})
        g1 = h2load(port, "/google.firestore.v1.Firestore/GetDocument", data, 1)
        g10 = h2load(port, "/google.firestore.v1.Firestore/GetDocument", data, 10)
        for r in (g1, g10):
            assert r["failed"] == 0, r
        lines.append(f"| GetDocument over REST (wrk, {CONNECTIONS} connections) | {rest['rps']:,.0f} req/s (p50 {rest['p50_ms']:.2f} ms) | reference |")
        lines.append(f"| GetDocument over gRPC (h2load, {CONNECTIONS} connections, 1 stream each) | {g1['rps']:,.0f} req/s "
                     f"(mean {g1['mean_ms']:.2f} ms) = {g1['rps'] / rest['rps']:.2f}× REST | ≥ 1× REST |")
        lines.append(f"| GetDocument over gRPC (h2load, {CONNECTIONS} connections, 10 streams each) | {g10['rps']:,.0f} req/s "
                     f"= {g10['rps'] / rest['rps']:.2f}× REST | |")
        t = ten_megabyte_query(port)
        lines.append(f"| RunQuery streaming 10 MB (100 documents of 100 KB, google-cloud-firestore over gRPC, best of 3) | {t * 1000:.0f} ms "
                     f"({10 / t:.0f} MB/s) | streams to the end |")
        before, after = idle_connections(port, proc.pid)
        lines.append(f"| 1,000 idle HTTP/2 connections (preface + SETTINGS each) | RSS {before:.1f} → {after:.1f} MiB "
                     f"({(after - before) * 1024 / 1000:.1f} KiB each) | |")
    finally:
        stop(proc)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
