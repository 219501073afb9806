"""CPU time per request of the server process under wrk (user and system, all its threads, from
/proc), with its context switches per request, beside nginx's constant 200 (its worker process):
where a request's cost goes, which the requests/s figures of a shared two-core machine hide.

Usage: python3 bench/cpu_per_request.py BINARY [BINARY ...]
Environment: WRK_SECONDS (5), CONNECTIONS (16, benchlib).
"""
import glob
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import free_port, seed, start_emulator, stop, wait_http, wrk  # noqa: E402
from get_vs_nginx import nginx  # noqa: E402

SECONDS = int(os.environ.get("WRK_SECONDS", "5"))
TICK = os.sysconf("SC_CLK_TCK")


def sample(pid):
    """(user seconds, system seconds, context switches) of every thread of `pid`."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    switches = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            for line in open(status):
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    switches += int(line.split()[1])
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return int(fields[11]) / TICK, int(fields[12]) / TICK, switches


def measure(pid, port, script, env=None):
    u0, s0, c0 = sample(pid)
    r = wrk(port, script, SECONDS, env)
    u1, s1, c1 = sample(pid)
    n = r["rps"] * SECONDS
    return (f"{r['rps']:,.0f} | {1e6 * (u1 - u0) / n:.1f} | {1e6 * (s1 - s0) / n:.1f} | "
            f"{1e6 * (u1 - u0 + s1 - s0) / n:.1f} | {(c1 - c0) / n:.2f} | {r['p99_ms']:.2f}")


def main():
    print(f"wrk: 2 threads, {os.environ.get('CONNECTIONS', '16')} connections, {SECONDS} s per cell")
    print()
    print("| server, scenario | requests/s | user µs per request | system µs | CPU µs | context switches per request | p99 ms |")
    print("|---|---|---|---|---|---|---|")
    work = tempfile.mkdtemp()
    port = free_port()
    ng = nginx(work, port)
    try:
        wait_http(port, "/")
        time.sleep(0.3)
        worker = int(subprocess.run(["pgrep", "-P", str(ng.pid)], capture_output=True, text=True).stdout.split()[0])
        print(f"| nginx constant 200 (its worker) | {measure(worker, port, 'status.lua')} |")
    finally:
        stop(ng)
    for b in sys.argv[1:] or [".build/release/emulator"]:
        p, port = start_emulator(b, "bench")
        try:
            seed(port, "bench", "c1000", 1000)
            print(f"| {b}: status | {measure(p.pid, port, 'status.lua')} |")
            print(f"| {b}: document GET | {measure(p.pid, port, 'get.lua', {'COLL': 'c1000', 'COUNT': '1000', 'PROJECT': 'bench'})} |")
        finally:
            stop(p)


if __name__ == "__main__":
    main()
