"""Resident memory of each binary given: idle, after seeding 100,000 small documents, and after a
GET of 20,000 of them (each read once, so each caches its encoding). Measures what the per-version
encoding cache costs (bench/RESULTS.md).

Usage: python3 bench/cache_memory.py BINARY [BINARY ...]
"""
import sys, os, http.client, time
sys.path.insert(0, os.path.dirname(__file__))
from benchlib import start_emulator, seed, rss_mib, stop
for b in sys.argv[1:]:
    p, port = start_emulator(b, "bench")
    try:
        idle = rss_mib(p.pid)
        seed(port, "bench", "c", 100000)
        time.sleep(0.5)
        seeded = rss_mib(p.pid)
        c = http.client.HTTPConnection("127.0.0.1", port)
        for i in range(20000):
            c.request("GET", f"/v1/projects/bench/databases/(default)/documents/c/d{i}")
            c.getresponse().read()
        time.sleep(0.5)
        read = rss_mib(p.pid)
        print(f"{b}: idle {idle:.1f} MiB, 100,000 documents {seeded:.1f} MiB, after reading 20,000 of them once {read:.1f} MiB")
    finally:
        stop(p)
