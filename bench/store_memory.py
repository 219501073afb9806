"""Resident memory and seeding time of each binary given, for N small documents seeded as
benchlib.seed writes them (500-write commits of {bucket, title, done}) into one collection.

Usage: python3 bench/store_memory.py N BINARY [BINARY ...]
Prints idle and seeded resident memory, bytes per document above idle, the seeding time (wall
clock: noisy on a shared machine; the memory figures are stable), the server's CPU time during the
seeding (user + system, from /proc) and this client's own CPU time building and sending the
commits, which tells whether the server or the Python client bounds the seeding.
"""
import sys, os, time, resource
sys.path.insert(0, os.path.dirname(__file__))
from benchlib import start_emulator, seed, rss_mib, stop

n = int(sys.argv[1])


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


for b in sys.argv[2:]:
    p, port = start_emulator(b, "bench")
    try:
        idle = rss_mib(p.pid)
        t, server0, client0 = time.perf_counter(), cpu_seconds(p.pid), own_cpu()
        seed(port, "bench", f"c{n}", n)
        dt = time.perf_counter() - t
        server, client = cpu_seconds(p.pid) - server0, own_cpu() - client0
        time.sleep(0.5)
        r = rss_mib(p.pid)
        print(f"{b}: {n:,} documents: idle {idle:.1f} MiB, seeded {r:.1f} MiB "
              f"({(r - idle) * 1048576 / n:,.0f} B per document above idle), seeding {dt:.1f} s "
              f"(server CPU {server:.1f} s, client CPU {client:.1f} s)", flush=True)
    finally:
        stop(p)
