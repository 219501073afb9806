"""Real-time listeners through google-cloud-firestore's `on_snapshot` (Listen over gRPC): documents,
queries, collections and collection groups, limit windows, many listeners, unsubscribe,
reconnection after an injected UNAVAILABLE, and listeners across a reset and a snapshot restore."""
import threading
import time
import uuid

import pytest
import requests
from google.cloud import firestore
from google.cloud.firestore_v1 import FieldFilter


class Recorder:
    """Collects on_snapshot callbacks; waits for one that satisfies a condition."""

    def __init__(self):
        self.calls = []
        self.cond = threading.Condition()

    def __call__(self, docs, changes, read_time):
        with self.cond:
            self.calls.append(([d.id for d in docs if d.exists], [(c.type.name, c.document.id) for c in changes], read_time))
            self.cond.notify_all()

    def wait(self, predicate, timeout=10):
        deadline = time.time() + timeout
        with self.cond:
            while not any(predicate(c) for c in self.calls):
                left = deadline - time.time()
                if left <= 0:
                    raise AssertionError(f"no snapshot matched; got {self.calls}")
                self.cond.wait(left)
            return next(c for c in self.calls if predicate(c))

    def docs(self):
        with self.cond:
            return self.calls[-1][0] if self.calls else None

    def changes(self):
        with self.cond:
            return [ch for c in self.calls for ch in c[1]]


@pytest.fixture
def db(emulator):
    return firestore.Client(project=emulator.project)


@pytest.fixture
def col(db):
    return db.collection("ls-" + uuid.uuid4().hex[:8])


def test_collection_listener_sees_added_modified_removed(col):
    col.document("a").set({"n": 1})
    rec = Recorder()
    watch = col.on_snapshot(rec)
    try:
        rec.wait(lambda c: c[1] == [("ADDED", "a")])
        col.document("b").set({"n": 2})
        rec.wait(lambda c: ("ADDED", "b") in c[1])
        col.document("a").update({"n": 3})
        rec.wait(lambda c: ("MODIFIED", "a") in c[1])
        col.document("b").delete()
        rec.wait(lambda c: ("REMOVED", "b") in c[1])
        assert rec.docs() == ["a"]
        read_times = [c[2] for c in rec.calls]
        assert read_times == sorted(read_times), "read times never go backwards"
    finally:
        watch.unsubscribe()


def test_first_snapshot_of_an_empty_query_fires(col):
    rec = Recorder()
    watch = col.on_snapshot(rec)
    try:
        rec.wait(lambda c: c[0] == [] and c[1] == [])
    finally:
        watch.unsubscribe()


def test_document_listener(col):
    rec = Recorder()
    watch = col.document("d").on_snapshot(lambda docs, changes, rt: rec([d for d in docs], changes, rt))
    try:
        rec.wait(lambda c: c[0] == [])  # the document does not exist yet
        col.document("d").set({"v": 1})
        rec.wait(lambda c: c[0] == ["d"])
        col.document("d").delete()
        rec.wait(lambda c: ("REMOVED", "d") in c[1])
    finally:
        watch.unsubscribe()


def test_query_listener_follows_documents_in_and_out(col):
    rec = Recorder()
    watch = col.where(filter=FieldFilter("done", "==", False)).on_snapshot(rec)
    try:
        rec.wait(lambda c: c[0] == [])
        col.document("t1").set({"done": False})
        rec.wait(lambda c: ("ADDED", "t1") in c[1])
        col.document("t1").update({"done": True})
        rec.wait(lambda c: ("REMOVED", "t1") in c[1])
        col.document("t2").set({"done": True})  # never matches
        col.document("t3").set({"done": False})
        rec.wait(lambda c: ("ADDED", "t3") in c[1])
        assert ("ADDED", "t2") not in rec.changes()
    finally:
        watch.unsubscribe()


def test_collection_group_listener(db):
    group = "g" + uuid.uuid4().hex[:8]
    rec = Recorder()
    watch = db.collection_group(group).on_snapshot(rec)
    try:
        rec.wait(lambda c: c[0] == [])
        db.collection("rooms").document("r1").collection(group).document("m1").set({})
        db.collection(group).document("m2").set({})
        db.collection("rooms").document("r2").collection("other").document("x").set({})
        rec.wait(lambda c: sorted(c[0]) == ["m1", "m2"])
    finally:
        watch.unsubscribe()


def test_limit_window_is_refilled(col):
    for i, n in enumerate([5, 1, 3, 4, 2]):
        col.document(f"d{i}").set({"n": n})
    rec = Recorder()
    watch = col.order_by("n").limit(3).on_snapshot(rec)
    try:
        rec.wait(lambda c: c[0] == ["d1", "d4", "d2"])  # n = 1, 2, 3
        col.document("d1").delete()
        rec.wait(lambda c: c[0] == ["d4", "d2", "d3"])  # 4 moves in
        col.document("z").set({"n": 0})
        rec.wait(lambda c: c[0] == ["z", "d4", "d2"])  # 0 pushes 4 out
    finally:
        watch.unsubscribe()


def test_limit_to_last_as_mobile_sdks_send_it(col):
    """Mobile and JS SDKs send limitToLast as the reversed order with a limit (and reverse the
    result themselves); Python's watch sends the query unreversed, so we send what mobile sends."""
    for i in range(5):
        col.document(f"d{i}").set({"n": i})
    rec = Recorder()
    watch = col.order_by("n", direction=firestore.Query.DESCENDING).limit(2).on_snapshot(rec)
    try:
        rec.wait(lambda c: sorted(c[0]) == ["d3", "d4"])  # (the client orders them itself)
        col.document("d9").set({"n": 9})
        rec.wait(lambda c: sorted(c[0]) == ["d4", "d9"])
        col.document("d9").delete()
        rec.wait(lambda c: sorted(c[0]) == ["d3", "d4"] and c is rec.calls[-1])
    finally:
        watch.unsubscribe()


def test_hundreds_of_listeners_at_once(db, col):
    recs, watches = [], []
    try:
        for i in range(200):
            rec = Recorder()
            recs.append(rec)
            watches.append(col.where(filter=FieldFilter("k", "==", i % 10)).on_snapshot(rec))
        for rec in recs:
            rec.wait(lambda c: c[0] == [], timeout=30)
        for k in range(10):
            col.document(f"doc{k}").set({"k": k})
        for i, rec in enumerate(recs):
            rec.wait(lambda c, i=i: c[0] == [f"doc{i % 10}"], timeout=30)
    finally:
        for w in watches:
            w.unsubscribe()


def test_unsubscribe_stops_callbacks(col):
    rec = Recorder()
    watch = col.on_snapshot(rec)
    rec.wait(lambda c: True)
    watch.unsubscribe()
    time.sleep(0.2)
    n = len(rec.calls)
    col.document("after").set({})
    time.sleep(0.5)
    assert len(rec.calls) == n


def test_reconnects_and_resumes_after_an_injected_unavailable(emulator, db, col):
    rec = Recorder()
    watch = col.on_snapshot(rec)
    try:
        rec.wait(lambda c: True)
        r = requests.post(f"{emulator.url}/emulator/v1/projects/{emulator.project}/faults", timeout=5, json={
            "match": {"service": "firestore", "method": "listen"}, "error": {"status": "UNAVAILABLE", "message": "injected"}, "times": 1})
        r.raise_for_status()
        col.document("x").set({"n": 1})
        rec.wait(lambda c: "x" in c[0])
        col.document("y").set({"n": 2})
        rec.wait(lambda c: sorted(c[0]) == ["x", "y"])
        listed = requests.get(f"{emulator.url}/emulator/v1/projects/{emulator.project}/faults", timeout=5).json()
        assert any(f.get("fired") == 1 for f in listed["faults"]), listed
    finally:
        watch.unsubscribe()
        requests.delete(f"{emulator.url}/emulator/v1/projects/{emulator.project}/faults", timeout=5)


def test_listeners_see_reset_and_snapshot_restore(emulator_factory, monkeypatch):
    emu = emulator_factory()
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", f"{emu.host}:{emu.port}")
    db = firestore.Client(project=emu.project)
    col = db.collection("tasks")
    col.document("kept").set({})
    base = f"{emu.url}/emulator/v1/projects/{emu.project}"
    requests.post(f"{base}/snapshots", json={"name": "one"}, timeout=5).raise_for_status()
    col.document("later").set({})
    rec = Recorder()
    watch = col.on_snapshot(rec)
    try:
        rec.wait(lambda c: sorted(c[0]) == ["kept", "later"])
        requests.post(f"{base}:reset", timeout=5).raise_for_status()
        rec.wait(lambda c: c[0] == [] and ("REMOVED", "kept") in c[1])
        requests.post(f"{base}/snapshots/one:restore", timeout=5).raise_for_status()
        rec.wait(lambda c: c[0] == ["kept"])
        requests.delete(f"{emu.url}/emulator/v1/projects/{emu.project}/databases/(default)/documents", timeout=5).raise_for_status()
        rec.wait(lambda c: c[0] == [] and ("REMOVED", "kept") in c[1] and c is rec.calls[-1])
        col.document("new").set({})
        rec.wait(lambda c: c[0] == ["new"])
    finally:
        watch.unsubscribe()
