"""Firestore over WebChannel behaves as over gRPC, by construction (both adapters drive
FirestoreListen and FirestoreWriteStream): the same scenario runs over a raw gRPC stream and over a
WebChannel session, and the message sequences must be equal once ids, times and tokens are
normalised. Rules, resume tokens with existence filters, the Write stream's answers and errors,
faults, resets, the clock and the request log reach WebChannel as they reach gRPC."""
import base64
import json
import time
import uuid

import pytest
import requests
from google.cloud.firestore_v1.types import firestore as fs
from google.cloud.firestore_v1.types import write as write_pb
from google.protobuf import json_format

from listen.test_listen_protocol import Stream, client
from rules.test_rules_enforcement import project as project_with_rules, sign_up  # noqa: F401 - a fixture: a project with MakeItSo's rules
from webchannel.wc_client import messages
from webchannel.wc_support import channel, coll, db_name, doc_name, put_doc, query_target, rest_docs  # noqa: F401

VOLATILE = {"readTime", "resumeToken", "updateTime", "createTime", "commitTime", "streamToken", "streamId"}


def normalise(value, coll=None):
    """Times, tokens and ids replaced, the collection name masked, empty lists dropped (proto3 JSON
    omits them, our JSON may keep some)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in VOLATILE:
                out[k] = "<v>"
            elif v != [] and v != {}:
                out[k] = normalise(v, coll)
        return out
    if isinstance(value, list):
        return [normalise(v, coll) for v in value]
    if isinstance(value, str) and coll:
        return value.replace(coll, "<coll>")
    return value


def grpc_json(r, kind=fs.ListenResponse):
    return json_format.MessageToDict(kind.pb(r))


def is_global(m):
    tc = m.get("targetChange")
    return tc is not None and not tc.get("targetIds") and "readTime" in tc and tc.get("targetChangeType", "NO_CHANGE") == "NO_CHANGE"


class WebListen:
    """A Listen session read by one streaming GET; `messages` grows as arrays arrive."""

    def __init__(self, emu, first, project=None, token=None):
        block = {"X-Goog-Api-Client": "gl-js/ fire/12.3.0"}
        if token:
            block["Authorization"] = f"Bearer {token}"
        self.ch = channel(emu, "Listen", headers_block=block)
        if project:
            self.ch.database = f"projects/{project}/databases/(default)"
        r = self.ch.open(first)
        assert r.status == 200, r.body
        self.bc = self.ch.get(ci=0)

    @property
    def messages(self):
        return messages(self.bc.received)

    def wait(self, predicate, timeout=10):
        self.bc.wait(lambda a: predicate(messages(a)), timeout)

    def send(self, *msgs):
        assert self.ch.send(*msgs).status == 200

    def close(self):
        self.bc.close()
        self.ch.terminate()


class GrpcListen:
    def __init__(self, emu, first, token="owner"):
        self.stream = Stream(client(emu).listen, fs.ListenRequest.from_json(json.dumps(first)), metadata=(("authorization", f"Bearer {token}"),))

    @property
    def messages(self):
        return [grpc_json(r) for r in self.stream.responses]

    def wait(self, predicate, timeout=10):
        self.stream.wait(lambda rs: predicate([grpc_json(r) for r in rs]), timeout)

    def send(self, *msgs):
        for m in msgs:
            self.stream.send(fs.ListenRequest.from_json(json.dumps(m)))

    def close(self):
        self.stream.close()


def globals_count(ms):
    return sum(1 for m in ms if is_global(m))


def run_listen_scenario(emu, make, coll):
    """Two targets, five commits, a removal; waits for each commit's snapshot before the next so the
    sequences do not depend on timing."""
    for name, n in (("a", 1), ("b", 2), ("c", 3)):
        put_doc(emu, f"{coll}/{name}", {"n": n})
    q = query_target(emu, coll, 2)
    q["addTarget"]["query"]["structuredQuery"].update({
        "where": {"fieldFilter": {"field": {"fieldPath": "n"}, "op": "GREATER_THAN_OR_EQUAL", "value": {"integerValue": "2"}}},
        "orderBy": [{"field": {"fieldPath": "n"}, "direction": "ASCENDING"}]})
    s = make(q)
    s.wait(lambda ms: globals_count(ms) >= 1)
    s.send({"addTarget": {"documents": {"documents": [doc_name(emu, f"{coll}/a")]}, "targetId": 4}})
    s.wait(lambda ms: globals_count(ms) >= 2)
    steps = [lambda: put_doc(emu, f"{coll}/b", {"n": 5}), lambda: put_doc(emu, f"{coll}/d", {"n": 4}),
             lambda: put_doc(emu, f"{coll}/c", {"n": 0}), lambda: requests.delete(f"{rest_docs(emu)}/{coll}/b", timeout=5),
             lambda: put_doc(emu, f"{coll}/a", {"n": 7})]
    for i, step in enumerate(steps):
        step()
        s.wait(lambda ms, k=3 + i: globals_count(ms) >= k)
    s.send({"removeTarget": 4})
    s.wait(lambda ms: any(m.get("targetChange", {}).get("targetChangeType") == "REMOVE" for m in ms))
    token = [m for m in s.messages if is_global(m)][-1]["targetChange"]["resumeToken"]
    out = list(s.messages)
    s.close()
    return out, token


def test_listen_sequences_are_the_same_as_over_grpc(emulator):
    web_coll, grpc_coll = "wcp-" + uuid.uuid4().hex[:6], "wcp-" + uuid.uuid4().hex[:6]
    web, web_token = run_listen_scenario(emulator, lambda first: WebListen(emulator, first), web_coll)
    grpc, grpc_token = run_listen_scenario(emulator, lambda first: GrpcListen(emulator, first), grpc_coll)
    assert normalise(web, web_coll) == normalise(grpc, grpc_coll)
    assert len(web) > 15
    # Resuming with the token and an expected count: only what changed, then the existence filter.
    for coll_name, token, make in ((web_coll, web_token, lambda f: WebListen(emulator, f)), (grpc_coll, grpc_token, lambda f: GrpcListen(emulator, f))):
        put_doc(emulator, f"{coll_name}/e", {"n": 9})
    results = []
    for coll_name, token, make in ((web_coll, web_token, lambda f: WebListen(emulator, f)), (grpc_coll, grpc_token, lambda f: GrpcListen(emulator, f))):
        first = query_target(emulator, coll_name, 2, resumeToken=token, expectedCount=3)
        s = make(first)
        s.wait(lambda ms: globals_count(ms) >= 1)
        results.append(normalise(s.messages, coll_name))
        s.close()
    assert results[0] == results[1]
    assert any("filter" in m for m in results[0]) and sum("documentChange" in m for m in results[0]) == 1


def test_write_stream_answers_and_errors_are_the_same_as_over_grpc(emulator, coll):
    db = db_name(emulator)

    def upd(path, n, **extra):
        w = {"update": {"name": doc_name(emulator, path), "fields": {"n": {"integerValue": str(n)}}}}
        w.update(extra)
        return w

    # WebChannel
    ch = channel(emulator, "Write")
    assert ch.open({"database": db}).status == 200
    bc = ch.get(ci=0)
    hs = bc.wait(lambda a: len(a) >= 1)[0][1][0]
    ch.send({"streamToken": hs["streamToken"], "writes": [upd(f"{coll}/w1", 1), upd(f"{coll}/w2", 2)]})
    ok = bc.wait(lambda a: len(a) >= 2)[1][1][0]
    ch.send({"streamToken": ok["streamToken"], "writes": [upd(f"{coll}/w1", 3, currentDocument={"exists": False})]})
    err = bc.wait(lambda a: len(a) >= 3)[2][1][0]
    bc.close()
    # gRPC
    g = Stream(client(emulator).write, fs.WriteRequest(database=db))
    g.wait(lambda rs: len(rs) >= 1)
    g.send(fs.WriteRequest(stream_token=g.responses[0].stream_token, writes=[
        write_pb.Write.from_json(json.dumps(upd(f"{coll}/g1", 1))), write_pb.Write.from_json(json.dumps(upd(f"{coll}/g2", 2)))]))
    g.wait(lambda rs: len(rs) >= 2)
    g.send(fs.WriteRequest(stream_token=g.responses[1].stream_token, writes=[
        write_pb.Write.from_json(json.dumps(upd(f"{coll}/g1", 3, currentDocument={"exists": False})))]))
    g.done.wait(10)
    grpc_hs, grpc_ok = (grpc_json(r, fs.WriteResponse) for r in g.responses[:2])
    assert normalise(hs) == normalise(grpc_hs) and set(hs) == {"streamId", "streamToken"}
    assert normalise(ok) == normalise(grpc_ok) and len(ok["writeResults"]) == 2 and "commitTime" in ok
    # gRPC's status (through google-api-core: an AlreadyExists exception) and the stream error agree.
    assert err["error"]["status"] == "ALREADY_EXISTS" and err["error"]["code"] == 6 == g.error.grpc_status_code.value[0]
    assert err["error"]["message"] == g.error.message.replace("/g1", "/w1")
    assert base64.b64decode(hs["streamToken"])


def test_rules_judge_each_target_with_the_handshake_credential(emulator, project_with_rules):
    pid, key = project_with_rules
    token, uid = sign_up(emulator, key)
    db = f"projects/{pid}/databases/(default)"
    parent = f"{db}/documents"

    def target(tid, mine):
        sq = {"from": [{"collectionId": "tasks"}]}
        if mine:
            sq["where"] = {"fieldFilter": {"field": {"fieldPath": "userId"}, "op": "EQUAL", "value": {"stringValue": uid}}}
        return {"database": db, "addTarget": {"query": {"parent": parent, "structuredQuery": sq}, "targetId": tid}}

    web = WebListen(emulator, target(2, True), project=pid, token=token)
    web.send(target(4, False))
    web.wait(lambda ms: any(m.get("targetChange", {}).get("targetChangeType") == "REMOVE" for m in ms))
    grpc = GrpcListen(emulator, target(2, True), token=token)
    grpc.send(target(4, False))
    grpc.wait(lambda ms: any(m.get("targetChange", {}).get("targetChangeType") == "REMOVE" for m in ms))
    grpc.wait(lambda ms: globals_count(ms) >= 1)
    web.wait(lambda ms: globals_count(ms) >= 1)
    w = [normalise(m) for m in web.messages]
    assert w == [normalise(m) for m in grpc.messages]
    removal = next(m for m in web.messages if m.get("targetChange", {}).get("targetChangeType") == "REMOVE")["targetChange"]
    assert removal["targetIds"] == [4] and removal["cause"]["code"] == 7 and "denied" in removal["cause"]["message"]
    web.close()
    grpc.close()
    # A write with the user's credential over the Write channel is judged as that user, and the
    # request log shows it like any other call.
    ch = channel(emulator, "Write", headers_block={"Authorization": f"Bearer {token}"})
    ch.database = db
    assert ch.open({"database": db}).status == 200
    hs = ch.poll()[0][1][0]
    task = {"title": {"stringValue": "milk"}, "completed": {"booleanValue": False}, "userId": {"stringValue": uid}}
    ch.send({"streamToken": hs["streamToken"], "writes": [{"update": {"name": f"{parent}/tasks/t1", "fields": task}}]})
    assert "writeResults" in ch.poll()[-1][1][0]
    log = requests.get(f"{emulator.url}/emulator/v1/projects/{pid}/rulesEvaluations", timeout=5).json()["evaluations"]
    entry = next(e for e in log if e["path"] == "tasks/t1")
    assert entry["outcome"] == "allow" and entry["caller"]["uid"] == uid and entry["method"] == "create"
    # ...and a denied write is the stream error PERMISSION_DENIED.
    ch.send({"streamToken": hs["streamToken"], "writes": [{"update": {"name": f"{parent}/tasks/t2", "fields": dict(task, userId={"stringValue": "x"})}}]})
    err = ch.poll()[-1][1][0]["error"]
    assert err["status"] == "PERMISSION_DENIED" and err["code"] == 7


@pytest.fixture
def plain_project(emulator):
    pid = "wcs-" + uuid.uuid4().hex[:8]
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid}, timeout=5).raise_for_status()
    return pid


def test_faults_end_open_streams_as_they_end_grpc_ones(emulator, plain_project):
    project = plain_project
    db = f"projects/{project}/databases/(default)"
    first = {"database": db, "addTarget": {"query": {"parent": f"{db}/documents", "structuredQuery": {"from": [{"collectionId": "x"}]}}, "targetId": 2}}
    web = WebListen(emulator, first, project=project)
    grpc = GrpcListen(emulator, first)
    wch = channel(emulator, "Write")
    wch.database = db
    assert wch.open({"database": db}).status == 200
    web.wait(lambda ms: globals_count(ms) >= 1)
    grpc.wait(lambda ms: globals_count(ms) >= 1)
    for method in ("listen", "write"):
        r = requests.post(f"{emulator.url}/emulator/v1/projects/{project}/faults",
                          json={"match": {"service": "firestore", "method": method}, "error": {"status": "UNAVAILABLE", "message": "injected"}, "times": 2}, timeout=5)
        assert r.status_code == 200, r.text
    web.wait(lambda ms: any("error" in m for m in ms))
    assert web.messages[-1] == {"error": {"code": 14, "message": "injected", "status": "UNAVAILABLE"}}
    grpc.stream.done.wait(10)
    assert grpc.stream.error.grpc_status_code.name == "UNAVAILABLE" and grpc.stream.error.message == "injected"
    arrays = wch.poll()
    assert messages(arrays)[-1] == {"error": {"code": 14, "message": "injected", "status": "UNAVAILABLE"}}
    web.close()


def test_resets_and_the_clock_reach_webchannel_listeners(emulator, plain_project):
    project = plain_project
    db = f"projects/{project}/databases/(default)"
    put_doc(emulator, "c/a", {"n": 1}, project=project)
    first = {"database": db, "addTarget": {"query": {"parent": f"{db}/documents", "structuredQuery": {"from": [{"collectionId": "c"}]}}, "targetId": 2}}
    web = WebListen(emulator, first, project=project)
    web.wait(lambda ms: globals_count(ms) >= 1)
    requests.post(f"{emulator.url}/emulator/v1/projects/{project}:reset", timeout=5).raise_for_status()
    web.wait(lambda ms: any("documentDelete" in m or "documentRemove" in m for m in ms) and globals_count(ms) >= 2)
    requests.post(f"{emulator.url}/emulator/v1/projects/{project}/clock:advance", json={"seconds": 86400 * 365}, timeout=5).raise_for_status()
    put_doc(emulator, "c/b", {"n": 2}, project=project)
    web.wait(lambda ms: globals_count(ms) >= 3)
    year = int([m for m in web.messages if is_global(m)][-1]["targetChange"]["readTime"][:4])
    assert year >= time.gmtime().tm_year + 1
    web.close()
