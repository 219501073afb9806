"""Listen and Write at the message level, through google-cloud-firestore's generated client: the
exact sequences mobile and server SDKs depend on (one ADD per add_target, global NO_CHANGE,
resume tokens, RESET, causes), and the Write stream's handshake and per-batch answers."""
import queue
import threading
import time
import uuid

import grpc
import pytest
from google.api_core import exceptions
import requests
from google.cloud.firestore_v1.services.firestore import FirestoreClient
from google.cloud.firestore_v1.services.firestore.transports import FirestoreGrpcTransport
from google.cloud.firestore_v1.types import firestore as fs
from google.cloud.firestore_v1.types import write as write_pb

from rules.test_rules_enforcement import RULES, sign_up

ADD, REMOVE, CURRENT, RESET, NO_CHANGE = "ADD", "REMOVE", "CURRENT", "RESET", "NO_CHANGE"


def client(emulator):
    return FirestoreClient(transport=FirestoreGrpcTransport(channel=grpc.insecure_channel(f"{emulator.host}:{emulator.port}")))


class Stream:
    """A bidirectional call fed from a queue; responses collected by a thread."""

    def __init__(self, method, first, metadata=(("authorization", "Bearer owner"),)):
        self.requests = queue.Queue()
        # google-api-core waits for the first response before returning the call, so the first
        # request must already be queued.
        self.requests.put(first)
        self.responses = []
        self.error = None
        self.done = threading.Event()
        self.cond = threading.Condition()

        def gen():
            while True:
                r = self.requests.get()
                if r is None:
                    return
                yield r

        self.call = method(requests=gen(), metadata=list(metadata))

        def pump():
            try:
                for r in self.call:
                    with self.cond:
                        self.responses.append(r)
                        self.cond.notify_all()
            except Exception as e:  # noqa: BLE001 - kept for the test to inspect
                self.error = e
            finally:
                self.done.set()
                with self.cond:
                    self.cond.notify_all()

        threading.Thread(target=pump, daemon=True).start()

    def send(self, r):
        self.requests.put(r)

    def wait(self, predicate, timeout=10):
        deadline = time.time() + timeout
        with self.cond:
            while not predicate(self.responses):
                left = deadline - time.time()
                if left <= 0 or self.done.is_set():
                    raise AssertionError(f"condition not met; responses: {[describe(r) for r in self.responses]}, error: {self.error}")
                self.cond.wait(left)

    def close(self):
        self.requests.put(None)
        try:
            self.call.cancel()
        except Exception:  # noqa: BLE001
            pass


def describe(r):
    """A compact string per ListenResponse: 'ADD[2]', 'DOC c/x +[2] -[]', 'DEL c/x', 'NO_CHANGE[] @t', ..."""
    kind = fs.ListenResponse.pb(r).WhichOneof("response_type")
    if kind == "target_change":
        tc = r.target_change
        name = fs.TargetChange.TargetChangeType(tc.target_change_type).name
        s = f"{name}{list(tc.target_ids)}"
        if tc.cause.code:
            s += f" cause={tc.cause.code}"
        return s
    if kind == "document_change":
        dc = r.document_change
        return f"DOC {dc.document.name.split('/documents/')[1]} +{list(dc.target_ids)} -{list(dc.removed_target_ids)}"
    if kind == "document_delete":
        return f"DEL {r.document_delete.document.split('/documents/')[1]} -{list(r.document_delete.removed_target_ids)}"
    if kind == "document_remove":
        return f"RM {r.document_remove.document.split('/documents/')[1]} -{list(r.document_remove.removed_target_ids)}"
    if kind == "filter":
        return f"FILTER {r.filter.target_id} {r.filter.count}"
    return kind


def is_global_snapshot(r):
    return fs.ListenResponse.pb(r).WhichOneof("response_type") == "target_change" and not r.target_change.target_ids \
        and r.target_change.target_change_type == 0 and r.target_change.read_time


@pytest.fixture
def setup(emulator):
    c = client(emulator)
    coll = "lp-" + uuid.uuid4().hex[:8]
    db = f"projects/{emulator.project}/databases/(default)"
    return c, db, coll


def commit(c, db, *writes):
    return c.commit(request={"database": db, "writes": list(writes)}, metadata=[("authorization", "Bearer owner")])


def put(db, path, **fields):
    return {"update": {"name": f"{db}/documents/{path}", "fields": {k: {"integer_value": v} for k, v in fields.items()}}}


def delete(db, path):
    return {"delete": f"{db}/documents/{path}"}


def query_target(db, coll, tid, **extra):
    return {"target_id": tid, "query": {"parent": f"{db}/documents", "structured_query": {"from_": [{"collection_id": coll}], **extra.pop("q", {})}}, **extra}


def test_initial_sequence_and_per_commit_changes(setup):
    c, db, coll = setup
    commit(c, db, put(db, f"{coll}/a", n=1))
    s = Stream(c.listen, fs.ListenRequest(database=db, add_target=query_target(db, coll, 2)))
    try:
        s.wait(lambda rs: len(rs) >= 4)
        assert [describe(r) for r in s.responses[:3]] == ["ADD[2]", f"DOC {coll}/a +[2] -[]", "CURRENT[2]"]
        assert s.responses[2].target_change.resume_token, "CURRENT carries a resume token"
        assert is_global_snapshot(s.responses[3]) and s.responses[3].target_change.resume_token
        first_read = s.responses[3].target_change.read_time
        commit(c, db, put(db, f"{coll}/b", n=2))
        s.wait(lambda rs: len(rs) >= 6)
        assert describe(s.responses[4]) == f"DOC {coll}/b +[2] -[]" and is_global_snapshot(s.responses[5])
        assert s.responses[5].target_change.read_time > first_read
        assert s.responses[4].document_change.document.update_time, "documents carry their update time"
        commit(c, db, delete(db, f"{coll}/a"))
        s.wait(lambda rs: len(rs) >= 8)
        assert describe(s.responses[6]) == f"DEL {coll}/a -[2]" and is_global_snapshot(s.responses[7])
        commit(c, db, put(db, "elsewhere/x", n=1))
        time.sleep(0.3)
        assert len(s.responses) == 8, "a commit the stream does not watch sends nothing"
    finally:
        s.close()


def test_many_targets_on_one_stream_one_ack_each(setup):
    c, db, coll = setup
    s = Stream(c.listen, fs.ListenRequest(database=db, add_target=query_target(db, coll, 2)))
    try:
        s.send(fs.ListenRequest(add_target=query_target(db, coll, 4, q={"where": {"field_filter": {
            "field": {"field_path": "n"}, "op": "GREATER_THAN", "value": {"integer_value": 5}}}})))
        s.wait(lambda rs: sum(1 for r in rs if describe(r).startswith("CURRENT")) == 2 and is_global_snapshot(rs[-1]))
        commit(c, db, put(db, f"{coll}/x", n=9))
        s.wait(lambda rs: any(describe(r) == f"DOC {coll}/x +[2, 4] -[]" for r in rs))
        commit(c, db, put(db, f"{coll}/x", n=1))
        s.wait(lambda rs: any(describe(r) == f"DOC {coll}/x +[2] -[4]" for r in rs))
        s.send(fs.ListenRequest(remove_target=4))
        s.wait(lambda rs: any(describe(r) == "REMOVE[4]" for r in rs))
        commit(c, db, put(db, f"{coll}/y", n=9))
        s.wait(lambda rs: any(describe(r) == f"DOC {coll}/y +[2] -[]" for r in rs))
        names = [describe(r) for r in s.responses]
        assert names.count("ADD[2]") == 1 and names.count("ADD[4]") == 1 and names.count("REMOVE[4]") == 1
    finally:
        s.close()


def test_documents_target_and_a_query_leaving(setup):
    c, db, coll = setup
    s = Stream(c.listen, fs.ListenRequest(database=db, add_target={"target_id": 7, "documents": {"documents": [f"{db}/documents/{coll}/d"]}}))
    try:
        s.send(fs.ListenRequest(add_target=query_target(db, coll, 8, q={"where": {"field_filter": {
            "field": {"field_path": "n"}, "op": "EQUAL", "value": {"integer_value": 1}}}})))
        s.wait(lambda rs: sum(1 for r in rs if is_global_snapshot(r)) == 2)
        commit(c, db, put(db, f"{coll}/d", n=1))
        s.wait(lambda rs: any(describe(r) == f"DOC {coll}/d +[7, 8] -[]" for r in rs))
        commit(c, db, put(db, f"{coll}/d", n=2))
        s.wait(lambda rs: any(describe(r) == f"DOC {coll}/d +[7] -[8]" for r in rs))
    finally:
        s.close()


def test_resume_token_sends_only_what_changed_and_a_foreign_token_resets(setup):
    c, db, coll = setup
    commit(c, db, put(db, f"{coll}/a", n=1), put(db, f"{coll}/b", n=1))
    s = Stream(c.listen, fs.ListenRequest(database=db, add_target=query_target(db, coll, 2)))
    s.wait(lambda rs: any(is_global_snapshot(r) for r in rs))
    token = [r for r in s.responses if is_global_snapshot(r)][-1].target_change.resume_token
    s.close()
    commit(c, db, put(db, f"{coll}/b", n=2), put(db, f"{coll}/c", n=1))
    commit(c, db, delete(db, f"{coll}/a"))
    r2 = Stream(c.listen, fs.ListenRequest(database=db, add_target=query_target(db, coll, 2, resume_token=token, expected_count={"value": 2})))
    try:
        r2.wait(lambda rs: any(is_global_snapshot(r) for r in rs))
        seq = [describe(r) for r in r2.responses]
        assert seq[0] == "ADD[2]" and "RESET[2]" not in seq
        assert sorted(x for x in seq if x.startswith(("DOC", "RM"))) == [f"DOC {coll}/b +[2] -[]", f"DOC {coll}/c +[2] -[]", f"RM {coll}/a -[2]"]
        assert f"FILTER 2 2" in seq, "with expected_count the server confirms the count after a resume"
    finally:
        r2.close()
    r3 = Stream(c.listen, fs.ListenRequest(database=db, add_target=query_target(db, coll, 2, resume_token=b"not-ours")))
    try:
        r3.wait(lambda rs: any(is_global_snapshot(r) for r in rs))
        seq = [describe(r) for r in r3.responses]
        assert seq[:2] == ["ADD[2]", "RESET[2]"] and sorted(x for x in seq if x.startswith("DOC")) == [f"DOC {coll}/b +[2] -[]", f"DOC {coll}/c +[2] -[]"]
    finally:
        r3.close()


def test_once_targets_end_after_their_first_result(setup):
    c, db, coll = setup
    commit(c, db, put(db, f"{coll}/a", n=1))
    s = Stream(c.listen, fs.ListenRequest(database=db, add_target=query_target(db, coll, 3, once=True)))
    try:
        s.wait(lambda rs: any(describe(r) == "REMOVE[3]" for r in rs))
        assert [describe(r) for r in s.responses][:3] == ["ADD[3]", f"DOC {coll}/a +[3] -[]", "CURRENT[3]"]
    finally:
        s.close()


def test_denied_and_invalid_targets_are_removed_with_their_cause(emulator):
    pid = "lp-rules-" + uuid.uuid4().hex[:6]
    key = "key-" + pid
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid, "apiKey": key}, timeout=5).raise_for_status()
    requests.put(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules",
                 json={"rules": {"files": [{"name": "firestore.rules", "content": RULES}]}}, timeout=5).raise_for_status()
    token, uid = sign_up(emulator, key)
    c = client(emulator)
    db = f"projects/{pid}/databases/(default)"
    s = Stream(c.listen, fs.ListenRequest(database=db, add_target=query_target(db, "tasks", 2)), metadata=(("authorization", f"Bearer {token}"),))  # not constrained to the uid: denied
    try:
        s.send(fs.ListenRequest(add_target=query_target(db, "tasks", 4, q={"where": {"field_filter": {
            "field": {"field_path": "userId"}, "op": "EQUAL", "value": {"string_value": uid}}}})))
        s.send(fs.ListenRequest(add_target=query_target(db, "tasks", 6, q={"limit": {"value": -1}})))
        s.wait(lambda rs: any(describe(r).startswith("REMOVE[6]") for r in rs) and any(describe(r) == "CURRENT[4]" for r in rs))
        seq = [describe(r) for r in s.responses]
        assert "REMOVE[2] cause=7" in seq and "ADD[2]" not in seq
        assert "REMOVE[6] cause=3" in seq and "ADD[6]" not in seq
        assert "ADD[4]" in seq
        cause = next(r for r in s.responses if describe(r) == "REMOVE[2] cause=7").target_change.cause.message
        assert "Missing or insufficient permissions." in cause
    finally:
        s.close()


def test_duplicate_target_id_ends_the_stream(setup):
    c, db, coll = setup
    s = Stream(c.listen, fs.ListenRequest(database=db, add_target=query_target(db, coll, 2)))
    s.send(fs.ListenRequest(add_target=query_target(db, coll, 2)))
    assert s.done.wait(10)
    assert isinstance(s.error, exceptions.InvalidArgument), s.error


def test_shutdown_ends_listen_with_unavailable_never_ok(emulator_factory):
    emu = emulator_factory()
    c = client(emu)
    db = f"projects/{emu.project}/databases/(default)"
    s = Stream(c.listen, fs.ListenRequest(database=db, add_target=query_target(db, "t", 2)))
    s.wait(lambda rs: any(is_global_snapshot(r) for r in rs))
    emu.stop()
    assert s.done.wait(10)
    assert isinstance(s.error, exceptions.ServiceUnavailable), s.error


def verify_request(db, path, extra_writes=(), token=b""):
    """A WriteRequest whose first write is `verify` (field 5 of Write, which iOS and Android send
    but the published protos, and so Python's classes, lack): built from bytes."""
    def field(number, payload):
        key = number << 3 | 2
        length, n = b"", len(payload)
        while True:
            length += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
            n >>= 7
            if not n:
                break
        return bytes([key]) + length + payload
    name = f"{db}/documents/{path}".encode()
    verify = field(5, name) + field(4, bytes([0x08, 0x01]))  # current_document {exists: true}
    rest = fs.WriteRequest.serialize(fs.WriteRequest(stream_token=token, writes=list(extra_writes)))
    return field(3, verify) + rest


class RawWrite(Stream):
    """The Write stream over a plain channel whose requests are bytes we built ourselves."""

    def __init__(self, emulator, first):
        channel = grpc.insecure_channel(f"{emulator.host}:{emulator.port}")
        method = channel.stream_stream("/google.firestore.v1.Firestore/Write", request_serializer=lambda b: b,
                                       response_deserializer=fs.WriteResponse.deserialize)
        super().__init__(lambda requests, metadata: method(requests, metadata=metadata), first)


def test_write_stream_handshake_batches_and_teardown(emulator, setup):
    c, db, coll = setup
    s = RawWrite(emulator, fs.WriteRequest.serialize(fs.WriteRequest(database=db)))
    s.wait(lambda rs: len(rs) == 1)
    hs = s.responses[0]
    assert hs.stream_id and hs.stream_token and not hs.write_results
    token = hs.stream_token
    s.send(fs.WriteRequest.serialize(fs.WriteRequest(stream_token=token, writes=[put(db, f"{coll}/a", n=1), put(db, f"{coll}/b", n=2)])))
    s.send(verify_request(db, f"{coll}/a", [put(db, f"{coll}/c", n=3)], token))
    s.wait(lambda rs: len(rs) == 3)
    for r in s.responses[1:]:
        assert r.stream_token and r.commit_time and len(r.write_results) == 2
    assert s.responses[2].commit_time > s.responses[1].commit_time
    got = c.get_document(request={"name": f"{db}/documents/{coll}/c"}, metadata=[("authorization", "Bearer owner")])
    assert got.fields["n"].integer_value == 3
    s.send(fs.WriteRequest.serialize(fs.WriteRequest(stream_token=token)))  # teardown: no answer
    s.send(None)  # half-close
    assert s.done.wait(10)
    assert s.error is None and len(s.responses) == 3, "the stream ends with OK after the half-close"


def test_a_failing_batch_ends_the_write_stream_with_its_status(emulator, setup):
    c, db, coll = setup
    s = RawWrite(emulator, fs.WriteRequest.serialize(fs.WriteRequest(database=db)))
    s.wait(lambda rs: len(rs) == 1)
    # verify on a missing document: the precondition fails and nothing is written, the verified
    # document included (verify must never create it).
    s.send(verify_request(db, f"{coll}/missing", [put(db, f"{coll}/z", n=1)]))
    assert s.done.wait(10)
    assert s.error.code() == grpc.StatusCode.NOT_FOUND, s.error
    for name in ("z", "missing"):
        with pytest.raises(exceptions.NotFound):
            c.get_document(request={"name": f"{db}/documents/{coll}/{name}"}, metadata=[("authorization", "Bearer owner")])
