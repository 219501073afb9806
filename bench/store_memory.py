"""Resident memory and seeding time of each binary given, for N small documents seeded as
benchlib.seed writes them (500-write commits of {bucket, title, done}) into one collection.

Usage: python3 bench/store_memory.py N BINARY [BINARY ...]
Prints idle and seeded resident memory, bytes per document above idle, and the seeding time
(wall clock: noisy on a shared machine; the memory figures are stable).
"""
import sys, os, time
sys.path.insert(0, os.path.dirname(__file__))
from benchlib import start_emulator, seed, rss_mib, stop

n = int(sys.argv[1])
for b in sys.argv[2:]:
    p, port = start_emulator(b, "bench")
    try:
        idle = rss_mib(p.pid)
        t = time.perf_counter()
        seed(port, "bench", f"c{n}", n)
        dt = time.perf_counter() - t
        time.sleep(0.5)
        r = rss_mib(p.pid)
        print(f"{b}: {n:,} documents: idle {idle:.1f} MiB, seeded {r:.1f} MiB "
              f"({(r - idle) * 1048576 / n:,.0f} B per document above idle), seeding {dt:.1f} s", flush=True)
    finally:
        stop(p)
