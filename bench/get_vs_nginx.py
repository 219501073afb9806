"""wrk in one run: nginx answering a constant 200 (the ceiling of this machine's loopback HTTP),
then, for each emulator binary given, the status route and a REST document GET, interleaved
ROUNDS times so that load from other processes falls on every binary alike.

The closed loop (each connection sends its next request when the answer arrives) saturates the
two cores that wrk and the server share, so its p99 is mostly the scheduler's time slice of
whichever side is saturated (nginx's own is 3 ms there). The paced rows add latency at a bounded
load every binary sustains: 64 connections, each waiting 1 ms after each answer
(bench/wrk/status_paced.lua), so at most 64,000 requests/s are offered.

Usage: python3 bench/get_vs_nginx.py BINARY [BINARY ...]
Environment: WRK_SECONDS (5), CONNECTIONS (16, benchlib), ROUNDS (2; the best round is kept).
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import free_port, seed, start_emulator, stop, wait_http, wrk  # noqa: E402

SECONDS = int(os.environ.get("WRK_SECONDS", "5"))
ROUNDS = int(os.environ.get("ROUNDS", "2"))
PROJECT = "bench"
COUNT = 1000


def nginx(work, port):
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""
daemon off; worker_processes 1; pid {work}/nginx.pid; error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{ access_log off; server {{ listen 127.0.0.1:{port}; location / {{ return 200 "ok"; }} }} }}
""")
    return subprocess.Popen(["nginx", "-c", conf, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def best(results):
    return max(results, key=lambda r: r["rps"])


def main():
    binaries = sys.argv[1:] or [".build/release/emulator"]
    work = tempfile.mkdtemp()
    nport = free_port()
    ng = nginx(work, nport)
    emus = []
    try:
        wait_http(nport, "/")
        for b in binaries:
            p, port = start_emulator(b, PROJECT)
            seed(port, PROJECT, f"c{COUNT}", COUNT)
            emus.append((b, p, port))
        rows = {"nginx constant 200": []}
        env = {"COLL": f"c{COUNT}", "COUNT": str(COUNT), "PROJECT": PROJECT}
        for _ in range(ROUNDS):
            rows["nginx constant 200"].append(wrk(nport, "status.lua", SECONDS))
            rows.setdefault("nginx constant 200, paced", []).append(wrk(nport, "status_paced.lua", SECONDS, connections=64))
            for b, _, port in emus:
                rows.setdefault(f"{b}: status", []).append(wrk(port, "status.lua", SECONDS))
                rows.setdefault(f"{b}: document GET", []).append(wrk(port, "get.lua", SECONDS, env))
                rows.setdefault(f"{b}: status, paced", []).append(wrk(port, "status_paced.lua", SECONDS, connections=64))
    finally:
        stop(ng, *[p for _, p, _ in emus])
    ceiling = best(rows["nginx constant 200"])["rps"]
    load = os.getloadavg()
    print(f"wrk: 2 threads, {os.environ.get('CONNECTIONS', '16')} connections, {SECONDS} s per cell, best of {ROUNDS} "
          f"interleaved rounds; load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print()
    print("| scenario | requests/s | share of nginx | p50 ms | p99 ms |")
    print("|---|---|---|---|---|")
    for name, rs in rows.items():
        r = best(rs)
        # A paced row's rate is what was offered, not a share of the ceiling.
        share = "(paced)" if name.endswith("paced") else f"{100 * r['rps'] / ceiling:.0f}%"
        print(f"| {name} | {r['rps']:,.0f} | {share} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} |")


if __name__ == "__main__":
    main()
