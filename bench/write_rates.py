"""wrk in one run: the write rates of two (or more) emulator binaries side by side: a document
create (POST with a generated id, bench/wrk/create.lua) and a :commit of one and of two updates
to documents of a 100,000-document collection (bench/wrk/commit.lua, WRITES=1 and 2, as
bench/bench.py's "commit of 2 updates"), binaries interleaved ROUNDS times so that load from
other processes falls on every binary alike; the best round of each is kept.

Usage: python3 bench/write_rates.py BEFORE_BINARY AFTER_BINARY [BINARY ...]
Environment: WRK_SECONDS (5), CONNECTIONS (16, benchlib), ROUNDS (3), COUNT (100000 documents),
FSYNC (unset: in memory; `never`, `interval` or `always`: each server gets its own temporary
--data-dir with that fsync policy, so every write is journaled before it is acknowledged).
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import seed, start_emulator, stop, wrk  # noqa: E402

SECONDS = int(os.environ.get("WRK_SECONDS", "5"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
COUNT = int(os.environ.get("COUNT", "100000"))
PROJECT = "bench"
FSYNC = os.environ.get("FSYNC")
SCENARIOS = [
    ("document create (POST, generated id)", "create.lua", {}),
    ("commit of 1 update", "commit.lua", {"WRITES": "1"}),
    ("commit of 2 updates, atomic", "commit.lua", {"WRITES": "2"}),
]


def best(results):
    return max(results, key=lambda r: r["rps"])


def main():
    binaries = sys.argv[1:]
    if len(binaries) < 2:
        sys.exit(__doc__)
    emus, dirs = [], []
    try:
        for b in binaries:
            extra = []
            if FSYNC:
                d = tempfile.mkdtemp()
                dirs.append(d)
                with open(os.path.join(d, "emulator.json"), "w") as f:
                    f.write('{"fsync": "%s"}' % FSYNC)
                extra = ["--config", os.path.join(d, "emulator.json"), "--data-dir", os.path.join(d, "data")]
            p, port = start_emulator(b, PROJECT, extra)
            emus.append((b, p, port))
            seed(port, PROJECT, f"c{COUNT}", COUNT)
        rows = {}
        base = {"COLL": f"c{COUNT}", "COUNT": str(COUNT), "PROJECT": PROJECT}
        for _ in range(ROUNDS):
            for name, script, env in SCENARIOS:
                for b, _, port in emus:
                    rows.setdefault((name, b), []).append(wrk(port, script, SECONDS, {**base, **env}))
    finally:
        stop(*[p for _, p, _ in emus])
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    load = os.getloadavg()
    print(f"wrk: 2 threads, {os.environ.get('CONNECTIONS', '16')} connections, {SECONDS} s per cell, best of {ROUNDS} "
          f"interleaved rounds; {'--data-dir, fsync ' + FSYNC if FSYNC else 'in memory'}; load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print()
    first = binaries[0]
    print(f"| scenario | binary | requests/s | vs {first} | p50 ms | p99 ms | errors |")
    print("|---|---|---|---|---|---|---|")
    for name, _, _ in SCENARIOS:
        ref = best(rows[(name, first)])["rps"]
        for b in binaries:
            r = best(rows[(name, b)])
            print(f"| {name} | {b} | {r['rps']:,.0f} | {r['rps'] / ref:.2f}x | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {int(r['errors'])} |")


if __name__ == "__main__":
    main()
