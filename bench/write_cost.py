"""The cost of durability: document write latency in memory versus with --data-dir (each fsync
policy). Median and p99 of N sequential PATCHes from one client on loopback.

    EMULATOR_BIN=.build/release/emulator python3 bench/write_cost.py
"""
import os
import statistics
import sys
import tempfile
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "python"))
from conftest import RunningEmulator  # noqa: E402

N = int(os.environ.get("WRITES", "2000"))


def measure(args):
    emu = RunningEmulator(args, project="bench")
    s = requests.Session()
    url = f"{emu.url}/v1/projects/bench/databases/(default)/documents/w"
    try:
        samples = []
        for i in range(N):
            t0 = time.perf_counter()
            s.patch(f"{url}/d{i % 500}", json={"fields": {"i": {"integerValue": str(i)}}}, headers={"Authorization": "Bearer owner"}).raise_for_status()
            samples.append((time.perf_counter() - t0) * 1000)
        samples.sort()
        return statistics.median(samples), samples[int(len(samples) * 0.99) - 1]
    finally:
        emu.stop()


def main():
    rows = [("in memory", [])]
    for policy in ["never", "interval", "always"]:
        d = tempfile.mkdtemp()
        cfg = os.path.join(d, "emulator.json")
        with open(cfg, "w") as f:
            f.write('{"fsync": "%s"}' % policy)
        rows.append((f"--data-dir, fsync {policy}", ["--config", cfg, "--data-dir", os.path.join(d, "data")]))
    print("| write path | p50 | p99 |")
    print("|---|---|---|")
    for name, args in rows:
        p50, p99 = measure(args)
        print(f"| {name} | {p50:.3f} ms | {p99:.3f} ms |")


if __name__ == "__main__":
    main()
