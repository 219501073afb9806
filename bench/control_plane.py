"""Control-plane timings: project reset (empty, and with 10,000 documents + 1,000 users),
snapshot save and restore of 10,000 documents. Each figure is the server-side cost seen by a
client on loopback (median of N calls, including one HTTP round trip).

    EMULATOR_BIN=.build/release/emulator python3 bench/control_plane.py
"""
import os
import statistics
import subprocess
import sys
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "python"))
from conftest import RunningEmulator  # noqa: E402

DOCS = int(os.environ.get("DOCS", "10000"))
USERS = int(os.environ.get("USERS", "1000"))
RUNS = int(os.environ.get("RUNS", "20"))
OWNER = {"Authorization": "Bearer owner"}


def timed(fn, runs=RUNS):
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def fill(emu, s, project):
    base = f"{emu.url}/v1/projects/{project}/databases/(default)/documents"
    writes = []
    for i in range(DOCS):
        writes.append({"update": {"name": f"projects/{project}/databases/(default)/documents/items/d{i:05d}",
                                  "fields": {"i": {"integerValue": str(i)}, "tag": {"stringValue": f"t{i % 10}"}}}})
        if len(writes) == 500:
            s.post(f"{base}:commit", json={"writes": writes}, headers=OWNER).raise_for_status()
            writes = []
    users = [{"localId": f"user{i:05d}", "email": f"u{i}@example.com"} for i in range(USERS)]
    for k in range(0, USERS, 1000):
        s.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:batchCreate",
               json={"users": users[k:k + 1000]}, headers=OWNER).raise_for_status()


def main():
    emu = RunningEmulator([], project="bench")
    s = requests.Session()
    admin = f"{emu.url}/emulator/v1/projects/bench"
    try:
        s.post(emu.url + "/emulator/v1/projects", json={"projectId": "bench"}).raise_for_status()
        empty = timed(lambda: s.post(admin + ":reset").raise_for_status())
        status = timed(lambda: s.get(emu.url + "/emulator/v1/status").raise_for_status())
        fill(emu, s, "bench")
        s.post(admin + "/snapshots", json={"name": "full"}).raise_for_status()
        save = timed(lambda: s.post(admin + "/snapshots", json={"name": "again"}).raise_for_status())
        restore = timed(lambda: s.post(admin + "/snapshots/full:restore").raise_for_status())
        full_resets = []
        for _ in range(5):
            s.post(admin + "/snapshots/full:restore").raise_for_status()
            t0 = time.perf_counter()
            s.post(admin + ":reset").raise_for_status()
            full_resets.append((time.perf_counter() - t0) * 1000)
        print(f"| status round trip from Python (the floor of the control-plane figures below) | {status:.2f} ms | |")
        print(f"| reset of an empty project | {empty:.2f} ms | goal < 1 ms |")
        print(f"| reset with {DOCS} documents and {USERS} users | {statistics.median(full_resets):.2f} ms | goal < 5 ms |")
        print(f"| snapshot save of {DOCS} documents and {USERS} users | {save:.2f} ms | |")
        print(f"| snapshot restore of {DOCS} documents and {USERS} users | {restore:.2f} ms | goal < 5 ms |")
    finally:
        emu.stop()


if __name__ == "__main__":
    main()
