"""Soak test: mixed load from many client threads across several projects for a bounded time,
with snapshot saves and restores and project resets in between, against a reference model kept
by the test. A real-time listener (google-cloud-firestore `on_snapshot`, over gRPC) stays attached
to each project's collection throughout. Afterwards the emulator's state and every listener's last
view must equal the model, resident memory must be back near its start after a full reset, and no
file descriptor may leak.

    python3 Tests/soak/soakload.py --seconds 180        (loopback only; bounded in time and count)
"""
import argparse
import json
import os
import random
import sys
import threading
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from conftest import RunningEmulator  # noqa: E402

OWNER = {"Authorization": "Bearer owner"}


class Gate:
    """Workers hold it shared for each operation; control actions take it exclusively."""

    def __init__(self):
        self.cond = threading.Condition()
        self.readers = 0
        self.writer = False

    def shared(self):
        gate = self

        class Ctx:
            def __enter__(self):
                with gate.cond:
                    while gate.writer:
                        gate.cond.wait()
                    gate.readers += 1

            def __exit__(self, *a):
                with gate.cond:
                    gate.readers -= 1
                    gate.cond.notify_all()
        return Ctx()

    def exclusive(self):
        gate = self

        class Ctx:
            def __enter__(self):
                with gate.cond:
                    while gate.writer:
                        gate.cond.wait()
                    gate.writer = True
                    while gate.readers:
                        gate.cond.wait()

            def __exit__(self, *a):
                with gate.cond:
                    gate.writer = False
                    gate.cond.notify_all()
        return Ctx()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def run(seconds=60, threads=8, projects=3, max_requests=2_000_000, seed=None):
    rnd = random.Random(seed)
    emu = RunningEmulator([], project="soak-0")
    names = [f"soak-{i}" for i in range(projects)]
    base = emu.url
    model = {p: {} for p in names}
    snapshots = {}
    lock = threading.Lock()
    gate = Gate()
    stop = threading.Event()
    stats = {"requests": 0, "by_status": {}}
    restore_env = []
    try:
        for p in names:
            requests.post(base + "/emulator/v1/projects", json={"projectId": p, "apiKey": "k-" + p}, timeout=10).raise_for_status()
        # Warm up so the baseline includes the lazily created state.
        for p in names:
            requests.post(f"{base}/emulator/v1/projects/{p}:reset", timeout=10).raise_for_status()
        # One listener per project, attached for the whole run (resets and restores included).
        saved_host = os.environ.get("FIRESTORE_EMULATOR_HOST")
        restore_env.append(saved_host)
        os.environ["FIRESTORE_EMULATOR_HOST"] = f"{emu.host}:{emu.port}"
        from google.cloud import firestore
        views, clients, watches = {}, [], []
        view_lock = threading.Lock()
        for p in names:
            client = firestore.Client(project=p)
            clients.append(client)

            def on_snapshot(docs, changes, read_time, p=p):
                with view_lock:
                    views[p] = {d.id: d.get("v") for d in docs}
            watches.append(client.collection("items").on_snapshot(on_snapshot))
        # Generous: a loaded CI machine can take seconds to open the first gRPC channels.
        deadline = time.time() + 60
        while time.time() < deadline and len(views) < len(names):
            time.sleep(0.05)
        assert len(views) == len(names), "every listener got its first snapshot"
        time.sleep(0.2)
        rss0, fd0 = rss_kib(emu.proc.pid), fd_count(emu.proc.pid)
        peak = rss0

        def count(status):
            with lock:
                stats["requests"] += 1
                stats["by_status"][status] = stats["by_status"].get(status, 0) + 1

        def worker(n):
            s = requests.Session()
            r = random.Random(rnd.random())
            while not stop.is_set() and stats["requests"] < max_requests:
                p = names[r.randrange(len(names))]
                doc_id = f"t{n}-{r.randrange(50)}"  # each thread owns its ids: the model stays exact
                url = f"{base}/v1/projects/{p}/databases/(default)/documents/items/{doc_id}"
                op = r.random()
                with gate.shared():
                    if op < 0.45:
                        value = r.randrange(1_000_000)
                        resp = s.patch(url, json={"fields": {"v": {"integerValue": str(value)}, "pad": {"stringValue": "x" * r.randrange(200)}}},
                                       headers=OWNER, timeout=10)
                        if resp.status_code == 200:
                            with lock:
                                model[p][doc_id] = value
                    elif op < 0.6:
                        resp = s.delete(url, headers=OWNER, timeout=10)
                        if resp.status_code == 200:
                            with lock:
                                model[p].pop(doc_id, None)
                    elif op < 0.85:
                        resp = s.get(url, headers=OWNER, timeout=10)
                        with lock:
                            expected = model[p].get(doc_id)
                        if resp.status_code == 200:
                            assert expected is not None and resp.json()["fields"]["v"]["integerValue"] == str(expected), (p, doc_id)
                        else:
                            assert resp.status_code == 404 and expected is None, (p, doc_id, resp.status_code)
                    elif op < 0.95:
                        resp = s.post(f"{base}/v1/projects/{p}/databases/(default)/documents:runQuery", headers=OWNER, timeout=10,
                                      json={"structuredQuery": {"from": [{"collectionId": "items"}], "where": {"fieldFilter": {
                                          "field": {"fieldPath": "v"}, "op": "EQUAL", "value": {"integerValue": str(r.randrange(1000))}}}, "limit": 5}})
                    else:
                        resp = s.post(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k-{p}", json={}, timeout=10)
                count(resp.status_code)
            s.close()

        pool = [threading.Thread(target=worker, args=(n,), daemon=True) for n in range(threads)]
        for t in pool:
            t.start()
        end = time.time() + seconds
        while time.time() < end and stats["requests"] < max_requests:
            time.sleep(min(1.0, max(0.0, end - time.time())))
            peak = max(peak, rss_kib(emu.proc.pid))
            action = rnd.random()
            p = names[rnd.randrange(len(names))]
            with gate.exclusive():
                if action < 0.4:
                    requests.post(f"{base}/emulator/v1/projects/{p}/snapshots", json={"name": "s"}, timeout=10).raise_for_status()
                    with lock:
                        snapshots[p] = dict(model[p])
                elif action < 0.7 and p in snapshots:
                    requests.post(f"{base}/emulator/v1/projects/{p}/snapshots/s:restore", timeout=10).raise_for_status()
                    with lock:
                        model[p] = dict(snapshots[p])
                elif action < 0.8:
                    requests.post(f"{base}/emulator/v1/projects/{p}:reset", timeout=10).raise_for_status()
                    with lock:
                        model[p] = {}
        stop.set()
        for t in pool:
            t.join(30)

        # The emulator's final state equals the model.
        for p in names:
            got = {}
            token = ""
            while True:
                page = requests.get(f"{base}/v1/projects/{p}/databases/(default)/documents/items?pageSize=300&pageToken={token}",
                                    headers=OWNER, timeout=10).json()
                for d in page.get("documents", []):
                    got[d["name"].rsplit("/", 1)[1]] = int(d["fields"]["v"]["integerValue"])
                token = page.get("nextPageToken")
                if not token:
                    break
            assert got == model[p], f"{p}: {len(got)} documents stored, {len(model[p])} expected"

        # Every listener's last view equals the model (it may still be catching up for a moment).
        deadline = time.time() + 15
        while time.time() < deadline:
            with view_lock:
                if all(views.get(p) == model[p] for p in names):
                    break
            time.sleep(0.1)
        with view_lock:
            for p in names:
                assert views.get(p) == model[p], f"{p}: the listener sees {len(views.get(p) or {})} documents, {len(model[p])} expected"
        for w in watches:
            w.unsubscribe()
        for c in clients:
            c.close()
        listeners_ok = True
        if saved_host is None:
            os.environ.pop("FIRESTORE_EMULATOR_HOST", None)
        else:
            os.environ["FIRESTORE_EMULATOR_HOST"] = saved_host

        for p in names:
            requests.delete(f"{base}/emulator/v1/projects/{p}/snapshots/s", timeout=10)
        requests.post(base + "/emulator/v1/reset", timeout=10).raise_for_status()
        time.sleep(0.5)
        rss1, fd1 = rss_kib(emu.proc.pid), fd_count(emu.proc.pid)
        summary = {"seconds": seconds, "threads": threads, "projects": projects, "requests": stats["requests"],
                   "by_status": stats["by_status"], "rss_start_mib": round(rss0 / 1024, 1), "rss_peak_mib": round(peak / 1024, 1),
                   "rss_after_reset_mib": round(rss1 / 1024, 1), "fds_before": fd0, "fds_after": fd1,
                   "listeners_matched_model": listeners_ok}
        print(json.dumps(summary))
        assert fd1 <= fd0 + 2, f"file descriptors leaked: {fd0} -> {fd1}"
        # The allocator may keep freed pages; "near" = within 64 MiB or half the growth.
        assert rss1 <= rss0 + max(64 * 1024, (peak - rss0) // 2), f"memory not back near its start: {summary}"
        assert set(stats["by_status"]) <= {200, 404}, f"unexpected statuses: {stats['by_status']}"
        return summary
    finally:
        stop.set()
        emu.stop()
        # The variable points at this (now stopped) emulator: put the caller's back even when an
        # assertion failed, or every later test of the session talks to a closed port.
        if restore_env:
            if restore_env[0] is None:
                os.environ.pop("FIRESTORE_EMULATOR_HOST", None)
            else:
                os.environ["FIRESTORE_EMULATOR_HOST"] = restore_env[0]


if __name__ == "__main__":
    a = argparse.ArgumentParser()
    a.add_argument("--seconds", type=float, default=60)
    a.add_argument("--threads", type=int, default=8)
    a.add_argument("--projects", type=int, default=3)
    a.add_argument("--seed", type=int, default=None)
    args = a.parse_args()
    run(args.seconds, args.threads, args.projects, seed=args.seed)
