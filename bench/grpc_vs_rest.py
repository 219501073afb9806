"""GetDocument over gRPC (h2load: 16 connections, 1 and 10 streams each) beside the REST document
GET (wrk: 16 connections), in one run, for each binary given: the binaries interleaved ROUNDS
times, the best round of each cell kept. One document, read by every request (the hot read).
The last columns are the median over the rounds of each round's own ratio (gRPC and REST measured
seconds apart): on a noisy shared machine the best-of cells can come from different moments.

Usage: python3 bench/grpc_vs_rest.py BINARY [BINARY ...]
Environment: WRK_SECONDS (5), ROUNDS (2).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("WRK_SECONDS", "5")
import grpc_bench  # noqa: E402
from benchlib import CONNECTIONS, seed, start_emulator, stop, wrk  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "2"))
PATH = "/google.firestore.v1.Firestore/GetDocument"


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
            for b, _, port in servers:
                rest = wrk(port, "get.lua", grpc_bench.SECONDS, {"COLL": "c1", "COUNT": "1"})["rps"]
                one = grpc_bench.h2load(port, PATH, data, 1)
                ten = grpc_bench.h2load(port, PATH, data, 10)
                assert one["failed"] == 0 and ten["failed"] == 0, (one, ten)
                row = best.setdefault(b, {"rest": 0, "one": 0, "ten": 0, "ratios": []})
                row["ratios"].append((one["rps"] / rest, ten["rps"] / rest))
                row["rest"] = max(row["rest"], rest)
                row["one"] = max(row["one"], one["rps"])
                row["ten"] = max(row["ten"], ten["rps"])
    finally:
        stop(*[p for _, p, _ in servers])
    load = os.getloadavg()
    print(f"{CONNECTIONS} connections, {grpc_bench.SECONDS} s per cell, best of {ROUNDS} interleaved rounds; "
          f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print()
    print("| binary | REST GET (wrk) | gRPC, 1 stream per connection | gRPC, 10 streams per connection | 1 stream / REST | 10 streams / REST "
          "| median of rounds: 1 stream / REST | 10 streams / REST |")
    print("|---|---|---|---|---|---|---|---|")
    for b, _, _ in servers:
        r = best[b]
        one, ten = statistics.median(x for x, _ in r["ratios"]), statistics.median(y for _, y in r["ratios"])
        print(f"| {b} | {r['rest']:,.0f}/s | {r['one']:,.0f}/s | {r['ten']:,.0f}/s | {r['one'] / r['rest']:.2f} | {r['ten'] / r['rest']:.2f} "
              f"| {one:.2f} | {ten:.2f} |")


if __name__ == "__main__":
    main()
