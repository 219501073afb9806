"""GetDocument over gRPC (h2load: 16 connections, 1 and 10 streams each) beside the REST document
GET (wrk: 16 connections), in one run, for each binary given: the binaries interleaved ROUNDS
times, the best round of each cell kept. One document, read by every request (the hot read).
The last columns are the median over the rounds of each round's own ratio (gRPC and REST measured
seconds apart): on a noisy shared machine the best-of cells can come from different moments.

A second table splits each request's CPU time (medians over the rounds, microseconds): the
server's user and system time (from /proc) and the load generator's (wrk or h2load, from
getrusage of the finished child). Client and server share the two cores, so a ratio of rates is
a ratio of these sums; the last column is the gRPC/REST rate ratio the sums would allow if the
server spent no user time at all on a gRPC call (its system time and h2load's own cost stay).

The REST GET is also measured with h2load over HTTP/1.1 (`h2load --h1`, the same 16 connections
and threads): the same load generator on both sides, so its cost per request is alike and the
ratio is less a comparison of wrk with h2load.

Usage: python3 bench/grpc_vs_rest.py BINARY [BINARY ...]
Environment: WRK_SECONDS (5), ROUNDS (2).
"""
import os
import re
import resource
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("WRK_SECONDS", "5")
import grpc_bench  # noqa: E402
from benchlib import CONNECTIONS, seed, start_emulator, stop, wrk  # noqa: E402
from cpu_per_request import sample  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "2"))
PATH = "/google.firestore.v1.Firestore/GetDocument"


def cpu(pid):
    """(server user s, server system s, finished children's user+system s)."""
    user, system, _ = sample(pid)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return user, system, children.ru_utime + children.ru_stime


def measured(pid, run):
    """Runs one cell; returns its result with `cpu`: microseconds per request (server user,
    server system, client)."""
    before = cpu(pid)
    r = run()
    after = cpu(pid)
    n = r["rps"] * grpc_bench.SECONDS
    r["cpu"] = tuple(1e6 * (a - b) / n for a, b in zip(after, before))
    return r


def h2load_h1(port, path):
    """The REST GET driven by h2load over HTTP/1.1 (one request at a time per connection)."""
    out = subprocess.run(["h2load", "--h1", "-D", str(grpc_bench.SECONDS), "-c", str(CONNECTIONS), "-m", "1", "-t", "2",
                          "-H", "authorization: Bearer owner", f"http://127.0.0.1:{port}{path}"],
                         capture_output=True, text=True, timeout=grpc_bench.SECONDS + 60)
    rps = re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out.stdout)
    ok = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed", out.stdout)
    if not rps or not ok or int(ok.group(2)):
        raise RuntimeError(f"h2load --h1 failed: {out.stdout}\n{out.stderr}")
    return {"rps": float(rps.group(1))}


def main():
    binaries = sys.argv[1:] or [".build/release/emulator"]
    data = grpc_bench.get_document_request("projects/bench/databases/(default)/documents/c1/d0")
    servers = []
    try:
        for b in binaries:
            p, port = start_emulator(b, "bench")
            servers.append((b, p, port))
            seed(port, "bench", "c1", 1)
            assert grpc_bench.grpc_status_of_one_call(port, data) == 0
        best = {}
        for _ in range(ROUNDS):
            for b, p, port in servers:
                rest_cell = measured(p.pid, lambda: wrk(port, "get.lua", grpc_bench.SECONDS, {"COLL": "c1", "COUNT": "1"}))
                rest = rest_cell["rps"]
                h1_cell = measured(p.pid, lambda: h2load_h1(port, "/v1/projects/bench/databases/(default)/documents/c1/d0"))
                one = measured(p.pid, lambda: grpc_bench.h2load(port, PATH, data, 1))
                ten = grpc_bench.h2load(port, PATH, data, 10)
                assert one["failed"] == 0 and ten["failed"] == 0, (one, ten)
                row = best.setdefault(b, {"rest": 0, "h1": 0, "one": 0, "ten": 0, "ratios": [], "cpu": []})
                row["ratios"].append((one["rps"] / rest, ten["rps"] / rest, one["rps"] / h1_cell["rps"]))
                row["cpu"].append((rest_cell["cpu"], one["cpu"], h1_cell["cpu"]))
                row["rest"] = max(row["rest"], rest)
                row["h1"] = max(row["h1"], h1_cell["rps"])
                row["one"] = max(row["one"], one["rps"])
                row["ten"] = max(row["ten"], ten["rps"])
    finally:
        stop(*[p for _, p, _ in servers])
    load = os.getloadavg()
    print(f"{CONNECTIONS} connections, {grpc_bench.SECONDS} s per cell, best of {ROUNDS} interleaved rounds; "
          f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print()
    print("| binary | REST GET (wrk) | REST GET (h2load --h1) | gRPC, 1 stream per connection | gRPC, 10 streams per connection "
          "| 1 stream / REST | 10 streams / REST | 1 stream / REST (h2load both) "
          "| median of rounds: 1 stream / REST | 10 streams / REST | 1 stream / REST (h2load both) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for b, _, _ in servers:
        r = best[b]
        one, ten, same = (statistics.median(x[k] for x in r["ratios"]) for k in range(3))
        print(f"| {b} | {r['rest']:,.0f}/s | {r['h1']:,.0f}/s | {r['one']:,.0f}/s | {r['ten']:,.0f}/s | {r['one'] / r['rest']:.2f} "
              f"| {r['ten'] / r['rest']:.2f} | {r['one'] / r['h1']:.2f} | {one:.2f} | {ten:.2f} | {same:.2f} |")
    print()
    print("CPU per request, µs (median of rounds): server user, server system, client (wrk or h2load, 2 threads)")
    print()
    print("| binary | REST: user | system | wrk | sum | REST (h2load --h1): user | system | h2load | sum "
          "| gRPC 1 stream: user | system | h2load | sum | gRPC/REST (wrk) the sums allow | with no server user time for gRPC |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for b, _, _ in servers:
        cells = best[b]["cpu"]
        rest, grpc, h1 = ([statistics.median(c[i][k] for c in cells) for k in range(3)] for i in range(3))
        print(f"| {b} | {rest[0]:.1f} | {rest[1]:.1f} | {rest[2]:.1f} | {sum(rest):.1f} | {h1[0]:.1f} | {h1[1]:.1f} | {h1[2]:.1f} "
              f"| {sum(h1):.1f} | {grpc[0]:.1f} | {grpc[1]:.1f} | {grpc[2]:.1f} "
              f"| {sum(grpc):.1f} | {sum(rest) / sum(grpc):.2f} | {sum(rest) / (grpc[1] + grpc[2]):.2f} |")


if __name__ == "__main__":
    main()
