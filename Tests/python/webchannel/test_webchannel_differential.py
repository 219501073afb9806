"""Differential run against Google's Firestore emulator (the Java one, where this machine has it;
skipped cleanly where it does not): the same WebChannel sessions against both servers, the
messages compared after normalising ids, times and tokens.

Compared exactly: the handshake, the Write stream's answers (handshake, batch results, an empty
batch, a refused batch's error code and status), long polling ending after data, retries applied
once, unknown sessions refused with 400. Listen is compared by what a client sees: the documents
of every target at each snapshot (the global NO_CHANGE), and the initial sequence message by
message. Intended differences (docs/webchannel.md, "Compared with Google's emulator"): Google
answers a change to a watched query with RESET and the whole result where we send the delta,
adds noops of its own, answers a batch without writes (the SDK's teardown before an idle close)
with a bare `{"streamToken"}` and `["close"]` where we send nothing (as over gRPC), sends a stream
error without `code` and then forgets the session, answers a forward POST with `[0|1,last,outstanding]` where we always send
`[1,last,0]`, gives no `X-HTTP-Session-Id`, and answers an unknown SID with an empty 400 body
where ours names the problem (the SDK treats both the same)."""
import time
import uuid

import pytest
import requests

from webchannel import google_emulator
from webchannel.wc_client import Channel, messages, request

PROJECT = "demo-diff"


class Server:
    def __init__(self, host, port):
        self.host, self.port = host, port
        self.url = f"http://{host}:{port}"


@pytest.fixture(scope="module")
def google():
    if not google_emulator.available():
        pytest.skip("Google's Firestore emulator (cloud-firestore-emulator.jar and java) is not installed")
    proc, port = google_emulator.start()
    try:
        yield Server("127.0.0.1", port)
    finally:
        google_emulator.stop(proc)


@pytest.fixture(scope="module")
def both(google, emulator):
    return {"google": google, "ours": Server(emulator.host, emulator.port)}


def db():
    return f"projects/{PROJECT}/databases/(default)"


def name(coll, d):
    return f"{db()}/documents/{coll}/{d}"


def put(server, path, n):
    r = requests.patch(f"{server.url}/v1/{db()}/documents/{path}", json={"fields": {"n": {"integerValue": str(n)}}},
                       headers={"Authorization": "Bearer owner"}, timeout=10)
    assert r.status_code == 200, r.text


def delete(server, path):
    requests.delete(f"{server.url}/v1/{db()}/documents/{path}", headers={"Authorization": "Bearer owner"}, timeout=10).raise_for_status()


VOLATILE = {"readTime", "resumeToken", "updateTime", "createTime", "commitTime", "streamToken", "streamId"}


def normalise(value, coll):
    if isinstance(value, dict):
        return {k: ("<v>" if k in VOLATILE else normalise(v, coll)) for k, v in value.items() if v != []}
    if isinstance(value, list):
        return [normalise(v, coll) for v in value]
    if isinstance(value, str):
        return value.replace(coll, "<coll>")
    return value


def snapshots(msgs, coll):
    """What a client sees: each target's documents (name → fields) at every global snapshot;
    consecutive equal snapshots merged."""
    state, out = {}, []
    for m in msgs:
        if "targetChange" in m:
            tc = m["targetChange"]
            kind, ids = tc.get("targetChangeType", "NO_CHANGE"), tc.get("targetIds", [])
            for t in ids:
                if kind in ("ADD", "RESET"):
                    state[t] = {}
                elif kind == "REMOVE":
                    state.pop(t, None)
            if kind == "NO_CHANGE" and not ids and "readTime" in tc:
                snap = {t: sorted((normalise(n, coll), normalise(f, coll)) for n, f in docs.items()) for t, docs in state.items()}
                if not out or out[-1] != snap:
                    out.append(snap)
        elif "documentChange" in m:
            dc = m["documentChange"]
            for t in dc.get("targetIds", []):
                state.setdefault(t, {})[dc["document"]["name"]] = dc["document"].get("fields", {})
            for t in dc.get("removedTargetIds", []):
                state.get(t, {}).pop(dc["document"]["name"], None)
        elif "documentDelete" in m or "documentRemove" in m:
            d = m.get("documentDelete") or m.get("documentRemove")
            for t in d.get("removedTargetIds", []) or list(state):
                state.get(t, {}).pop(d["document"], None)
    return out


def is_global(m):
    tc = m.get("targetChange", {})
    return "targetChange" in m and not tc.get("targetIds") and "readTime" in tc


def listen_script(server, coll):
    for d, n in (("a", 1), ("b", 2), ("c", 3)):
        put(server, f"{coll}/{d}", n)
    ch = Channel(server.host, server.port, "Listen", PROJECT)
    q = {"query": {"parent": f"{db()}/documents", "structuredQuery": {
        "from": [{"collectionId": coll}],
        "where": {"fieldFilter": {"field": {"fieldPath": "n"}, "op": "GREATER_THAN_OR_EQUAL", "value": {"integerValue": "2"}}},
        "orderBy": [{"field": {"fieldPath": "n"}, "direction": "ASCENDING"}]}}, "targetId": 2}
    assert ch.open({"database": db(), "addTarget": q}).status == 200
    bc = ch.get(ci=0)
    globals_seen = lambda a: sum(is_global(m) for m in messages(a))  # noqa: E731
    bc.wait(lambda a: globals_seen(a) >= 1)
    initial = list(messages(bc.received))
    assert ch.send({"database": db(), "addTarget": {"documents": {"documents": [name(coll, "a")]}, "targetId": 4}}).status == 200
    bc.wait(lambda a: globals_seen(a) >= 2)
    for step in (lambda: put(server, f"{coll}/b", 5), lambda: put(server, f"{coll}/d", 4), lambda: put(server, f"{coll}/c", 0),
                 lambda: delete(server, f"{coll}/b"), lambda: put(server, f"{coll}/a", 7)):
        before = globals_seen(bc.received)
        step()
        bc.wait(lambda a, k=before: globals_seen(a) > k)
        time.sleep(0.2)  # let a server that sends several snapshots per commit finish
        bc.pump(0.2)
    assert ch.send({"database": db(), "removeTarget": 4}).status == 200
    bc.wait(lambda a: any(m.get("targetChange", {}).get("targetChangeType") == "REMOVE" for m in messages(a)))
    bc.close()
    ch.terminate()
    return initial, messages(bc.received)


def test_listen_initial_sequence_and_snapshots_match(both):
    out = {}
    for who, server in both.items():
        coll = "diff-" + uuid.uuid4().hex[:8]
        initial, all_msgs = listen_script(server, coll)
        out[who] = (normalise(initial, coll), snapshots(all_msgs, coll))
    assert out["ours"][0] == out["google"][0]  # ADD, the documents, CURRENT, the global snapshot
    assert out["ours"][1] == out["google"][1]  # what the client sees after every commit
    assert len(out["ours"][1]) >= 6


def write_script(server, coll):
    ch = Channel(server.host, server.port, "Write", PROJECT)
    hs = ch.open({"database": db()})
    assert hs.status == 200
    handshake = hs.chunks()[0][0][1]
    bc = ch.get(ci=0)
    token = messages(bc.wait(lambda a: messages(a)))[0]["streamToken"]
    upd = lambda d, n, **x: dict({"update": {"name": name(coll, d), "fields": {"n": {"integerValue": str(n)}}}}, **x)  # noqa: E731
    batch = {"streamToken": token, "writes": [upd("a", 1), upd("b", 2)]}
    answers = [ch.send(batch, ofs=1, rid=900, t=1), ch.send(batch, ofs=1, rid=900, t=2)]  # a retry: applied once
    bc.wait(lambda a: len(messages(a)) >= 2)
    refused_post = ch.send({"streamToken": token, "writes": [upd("a", 3, currentDocument={"exists": False})]})
    bc.wait(lambda a: any("error" in m for m in messages(a)))
    msgs = messages(bc.received)
    bc.close()
    docs = requests.get(f"{server.url}/v1/{db()}/documents/{coll}", timeout=10).json().get("documents", [])
    unknown = request(server.host, server.port, "GET", ch.url(RID="rpc", SID="bogus-" + ch.sid, AID=0, CI=1, TYPE="xmlhttp"))
    ch.terminate()
    return {
        "handshake": [handshake[0], "<sid>"] + handshake[2:],
        "answers": normalise(msgs[:2], coll),
        # The SDK reads `status` (Google's emulator sends no `code`; ours sends it as well).
        "refused": [m["error"]["status"] for m in msgs[2:]],
        "posts": [a.status for a in answers] + [refused_post.status],
        "documents": sorted((normalise(d["name"], coll), d["fields"]["n"]["integerValue"]) for d in docs),
        "unknown": unknown.status,
    }


def test_long_poll_ends_after_data_on_both(both):
    for server in both.values():
        ch = Channel(server.host, server.port, "Write", PROJECT)
        assert ch.open({"database": db()}).status == 200
        started = time.time()
        arrays = ch.poll()
        assert time.time() - started < 5 and "streamToken" in messages(arrays)[0]


def test_write_sessions_match(both):
    results = {who: write_script(server, "diffw-" + uuid.uuid4().hex[:8]) for who, server in both.items()}
    assert results["ours"] == results["google"]
    assert results["ours"]["refused"] == ["ALREADY_EXISTS"]
    assert results["ours"]["documents"] == [("projects/demo-diff/databases/(default)/documents/<coll>/a", "1"),
                                            ("projects/demo-diff/databases/(default)/documents/<coll>/b", "2")]
