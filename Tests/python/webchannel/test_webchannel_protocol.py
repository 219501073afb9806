"""WebChannel at the protocol level, with a client of our own (wc_client): the handshake, the
forward channel (map ids, retries, malformed bodies), the backchannel in both modes (streaming,
long polling, switching, replacing, resending after a dropped GET), terminate, unknown sessions,
chunk lengths with non-ASCII content, and the browser rules (credentialed CORS, foreign origins,
an administrator credential smuggled in the body)."""
import json
import re
import time

import pytest
import requests

from webchannel.wc_client import BadData, ChunkParser, form, messages, request
from webchannel.wc_support import channel, coll, db_name, doc_name, doc_target, fast, put_doc, query_target, rest_docs  # noqa: F401

LOCAL = "http://127.0.0.1:5173"


def write_channel(emu, **kw):
    ch = channel(emu, "Write", **kw)
    r = ch.open({"database": db_name(emu)})
    assert r.status == 200, r.body
    return ch


def update(emu, path, **fields):
    return {"update": {"name": doc_name(emu, path), "fields": {k: {"integerValue": str(v)} for k, v in fields.items()}}}


def test_handshake_answers_the_c_array_with_a_session_id(emulator):
    ch = channel(emulator, "Write", origin=LOCAL)
    r = ch.open({"database": db_name(emulator)})
    assert r.status == 200
    text = r.text()
    size, _, body = text.partition("\n")
    assert int(size) == len(body) and body == json.dumps([[0, ["c", ch.sid, "", 8, 12, 30000]]], separators=(",", ":"))
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", ch.sid)
    assert r.headers["x-http-session-id"] == ch.gsessionid and ch.gsessionid
    # Credentialed CORS: the origin echoed, never "*", and the session header readable.
    assert r.headers["access-control-allow-origin"] == LOCAL
    assert r.headers["access-control-allow-credentials"] == "true"
    assert "X-HTTP-Session-Id" in r.headers["access-control-expose-headers"]
    # Without X-HTTP-Session-Id in the URL, no header.
    other = channel(emulator, "Write", ask_session_id=False)
    assert other.open({"database": db_name(emulator)}).status == 200 and other.gsessionid is None


def test_write_stream_streaming_handshake_batch_and_ack(emulator, coll):
    ch = write_channel(emulator)
    bc = ch.get(ci=0)
    assert bc.status == 200
    first = bc.wait(lambda a: len(a) >= 1)[0]
    assert first[0] == 1 and set(first[1][0]) == {"streamId", "streamToken"}
    token = first[1][0]["streamToken"]
    r = ch.send({"streamToken": token, "writes": [update(emulator, f"{coll}/a", n=1), update(emulator, f"{coll}/b", n=2)]}, aid=1)
    assert r.status == 200 and r.chunks() == [[1, 2, 0]]
    answer = bc.wait(lambda a: len(a) >= 2)[1]
    assert answer[0] == 2
    msg = answer[1][0]
    assert set(msg) == {"streamToken", "commitTime", "writeResults"} and len(msg["writeResults"]) == 2
    assert msg["streamToken"] != token
    assert requests.get(f"{rest_docs(emulator)}/{coll}/b", timeout=5).json()["fields"]["n"] == {"integerValue": "2"}
    # A batch without writes (the SDK's teardown) gets no answer.
    assert ch.send({"streamToken": msg["streamToken"], "writes": []}, aid=2).chunks() == [[1, 2, 0]]
    bc.close()


def test_a_retried_post_is_applied_once(emulator, coll):
    ch = write_channel(emulator)
    token = ch.poll()[0][1][0]["streamToken"]
    batch = {"streamToken": token, "writes": [update(emulator, f"{coll}/a", n=1)]}
    first = ch.send(batch, ofs=1, rid=500, t=1)
    again = ch.send(batch, ofs=1, rid=500, t=2)  # the client's retry: same RID, same maps
    assert first.chunks() == again.chunks() == [[1, 2, 0]]
    # count=2 from ofs=1: map 1 is old, map 2 new.
    third = ch.send(batch, {"streamToken": token, "writes": [update(emulator, f"{coll}/c", n=3)]}, ofs=1)
    assert third.chunks() == [[1, 3, 0]]
    arrays = ch.poll()
    assert [a[0] for a in arrays] == [2, 3] and all("writeResults" in a[1][0] for a in arrays)
    listing = requests.get(f"{rest_docs(emulator)}/{coll}", timeout=5).json()["documents"]
    assert sorted(d["name"].rsplit("/", 1)[1] for d in listing) == ["a", "c"]


def test_map_ids_must_not_jump(emulator):
    ch = write_channel(emulator)
    r = ch.send({"streamToken": "x", "writes": []}, ofs=5)
    assert r.status == 400 and "jump" in r.text()


@pytest.mark.parametrize("body,fragment", [
    (b"count=abc&ofs=1", "'count' must be a number"),
    (b"count=1001&ofs=1", "'count' must be a number from 0 to 1000"),
    (b"count=1&ofs=1&req1___data__=%7B%7D", "outside count=1"),
    (b"count=1&ofs=1&req0___data__=%ZZ", "malformed percent-escape"),
    (b"req0___data__=%7B%7D", "no 'count'"),
    (b"count=1&count=1&ofs=1", "'count' is given twice"),
    (b"count=1&req0___data__=%7B%7D", "no 'ofs'"),
    (b"count=1&ofs=-3&req0___data__=%7B%7D", "'ofs' must be a non-negative"),
    (b"count=1&ofs=1&req0___data__=1&req0___data__=2", "given twice"),
    (b"count=1&ofs=99999999999&req0___data__=1", "'ofs' must be"),
])
def test_malformed_forward_bodies_are_400_naming_the_problem(emulator, body, fragment):
    ch = write_channel(emulator)
    r = ch.send(raw_body=body)
    assert r.status == 400, r.body
    assert fragment in json.loads(r.body)["error"]["message"]


def test_malformed_handshakes_and_parameters(emulator):
    ch = channel(emulator, "Write")
    bad_headers = form([("headers", "no colon here\r\n"), ("count", "0"), ("ofs", "0")])
    assert ch.open(raw_body=bad_headers).status == 400
    assert ch.open(raw_body=b"count=1&ofs=2&req0___data__=%7B%7D").status == 400  # the first map id is 0
    r = request(emulator.host, emulator.port, "POST", ch.path + "?VER=7&RID=1", (), b"count=0")
    assert r.status == 400 and "VER=7" in r.text()
    ch = write_channel(emulator)
    for params in ("CI=2", "AID=x", "TO=soon"):
        r = request(emulator.host, emulator.port, "GET", f"{ch.path}?VER=8&RID=rpc&SID={ch.sid}&TYPE=xmlhttp&{params}")
        assert r.status == 400, params
    r = request(emulator.host, emulator.port, "PUT", ch.path + "?VER=8", (), b"")
    assert r.status == 405


def test_a_message_that_is_not_json_or_not_a_request_is_a_stream_error(emulator):
    for data in ("{not json", '{"database": "' + db_name(emulator) + '", "bogus": 1}'):
        ch = channel(emulator, "Write")
        assert ch.open(data).status == 200
        arrays = ch.poll()
        err = arrays[-1][1][0]["error"]
        assert err["status"] == "INVALID_ARGUMENT" and err["code"] == 3, err
    # count=2 with only map 0: map 1 has no __data__.
    ch = write_channel(emulator)
    ch.poll()
    r = ch.send(raw_body=form([("count", "2"), ("ofs", "1"), ("req0___data__", "{}")]))
    assert r.status == 200
    assert "__data__" in ch.poll()[-1][1][0]["error"]["message"]


def test_unknown_sid_is_400_with_unknown_sid_in_the_body(emulator):
    ch = channel(emulator, "Write", origin=LOCAL)
    ch.sid = "no-such-session"
    for r in (ch.send({}, ofs=1), request(emulator.host, emulator.port, "GET", ch.url(RID="rpc", SID=ch.sid, AID=0, CI=1, TYPE="xmlhttp"), [("Origin", LOCAL)])):
        assert r.status == 400
        assert r.text().find("Unknown SID") > 0  # what the client checks (indexOf > 0)
        assert r.headers["access-control-allow-origin"] == LOCAL
    # A Listen session is unknown on the Write path.
    listen = channel(emulator, "Listen")
    assert listen.open({"database": db_name(emulator)}).status == 200
    ch.sid = listen.sid
    assert ch.send({}, ofs=1).status == 400


def test_terminate_ends_the_session_and_its_backchannel(emulator):
    ch = write_channel(emulator)
    bc = ch.get(ci=0)
    bc.wait(lambda a: len(a) >= 1)
    assert ch.terminate().status == 200
    bc.until_end(5)
    assert ch.send({}, ofs=1).status == 400
    assert ch.terminate().status == 400


def test_long_poll_ends_after_data_and_with_a_noop_when_idle(fast):
    ch = write_channel(fast)
    started = time.time()
    arrays = ch.poll()
    assert [a[0] for a in arrays] == [1] and time.time() - started < 1
    started = time.time()
    arrays = ch.poll()  # nothing to say: a noop at the long-poll timeout (1 s here), never an empty body
    assert arrays == [[2, ["noop"]]] and 0.5 < time.time() - started < 4
    # TO (the client's own long-poll timeout) shortens it.
    started = time.time()
    b = ch.get(ci=1, to=200)
    assert b.until_end(5) == [[3, ["noop"]]] and time.time() - started < 0.9


def test_streaming_backchannel_sends_noops_when_silent(fast):
    ch = write_channel(fast)
    bc = ch.get(ci=0)
    arrays = bc.wait(lambda a: len(a) >= 3, timeout=5)
    assert arrays[1:3] == [[2, ["noop"]], [3, ["noop"]]]
    bc.close()


def test_a_session_switches_from_streaming_to_long_polling_and_everything_unacknowledged_is_resent(emulator, coll):
    for i in range(3):
        put_doc(emulator, f"{coll}/d{i}", {"n": i})
    ch = channel(emulator, "Listen")
    assert ch.open(query_target(emulator, coll)).status == 200
    streaming = ch.get(ci=0, aid=0)
    first = streaming.wait(lambda a: any("readTime" in m.get("targetChange", {}) and not m["targetChange"].get("targetIds") for m in messages(a)))
    # The SDK's buffering-proxy check: a CI=1 GET with the same AID a moment later.
    again = ch.poll(aid=0)
    assert again == first
    streaming.until_end(2)  # the older GET ended
    put_doc(emulator, f"{coll}/d9", {"n": 9})
    later = ch.poll()
    assert later[0][0] == first[-1][0] + 1
    assert any(m.get("documentChange", {}).get("document", {}).get("name", "").endswith("/d9") for m in messages(later))
    # ...and back to streaming.
    put_doc(emulator, f"{coll}/d10", {"n": 10})
    bc = ch.get(ci=0)
    arrays = bc.wait(lambda a: any(m.get("documentChange", {}).get("document", {}).get("name", "").endswith("/d10") for m in messages(a)))
    assert arrays[0][0] == later[-1][0] + 1
    bc.close()


def test_a_get_dropped_mid_chunk_is_resent_whole_on_the_next(emulator, coll):
    big = "x" * 20000
    for i in range(40):
        put_doc(emulator, f"{coll}/d{i:02}", {"s": big})
    ch = channel(emulator, "Listen")
    assert ch.open(query_target(emulator, coll)).status == 200
    time.sleep(0.3)
    bc = ch.get(ci=0, aid=0)
    got = b""
    while len(got) < 5000:
        got += bc.stream.read_some(timeout=5)
    bc.close()  # the connection drops in the middle of a chunk
    p = ChunkParser()
    p.feed(got)
    partial = []
    while (c := p.next()) is not None:
        partial.extend(c)
    aid = partial[-1][0] if partial else 0
    ch.aid = aid
    bc = ch.get(ci=0)
    arrays = bc.wait(lambda a: any("readTime" in m.get("targetChange", {}) and not m["targetChange"].get("targetIds") for m in messages(a)))
    ids = [a[0] for a in partial + arrays]
    assert ids == list(range(1, len(ids) + 1)), ids
    docs = [m for m in messages(partial + arrays) if "documentChange" in m]
    assert len(docs) == 40
    bc.close()


def test_a_new_get_replaces_the_open_one(emulator, coll):
    ch = channel(emulator, "Listen")
    assert ch.open(query_target(emulator, coll)).status == 200
    one = ch.get(ci=0)
    got = one.wait(lambda a: len(a) >= 3)
    two = ch.get(ci=0, aid=got[-1][0])
    one.until_end(5)
    put_doc(emulator, f"{coll}/x", {"n": 1})
    arrays = two.wait(lambda a: any("documentChange" in m for m in messages(a)))
    assert arrays[0][0] == got[-1][0] + 1
    two.close()


def test_acknowledged_arrays_are_not_resent(fast):
    ch = write_channel(fast)
    token = ch.poll()[0][1][0]["streamToken"]
    assert [a[0] for a in ch.poll(aid=0)] == [1]  # not acknowledged: resent
    ch.send({"streamToken": token, "writes": []}, aid=1)  # the forward POST acknowledges array 1
    assert ch.get(ci=1, aid=0).until_end(5) == [[2, ["noop"]]]  # an older AID cannot bring it back


def test_lengths_count_utf16_units_and_the_json_is_ascii(emulator, coll):
    text = "héllo ✓ 😀 \u2028 \"quoted\" \\ \x01"
    r = requests.patch(f"{rest_docs(emulator)}/{coll}/u", json={"fields": {"s": {"stringValue": text}}}, timeout=5)
    assert r.status_code == 200
    ch = channel(emulator, "Listen")
    assert ch.open(doc_target(emulator, f"{coll}/u")).status == 200
    bc = ch.get(ci=1)
    body = b""
    while not bc.stream.done:
        body += bc.stream.read_some(timeout=10)
    bc.close()
    assert all(b < 0x80 for b in body)
    p = ChunkParser()
    p.feed(body)
    arrays = p.next()
    assert p.pos == len(p.text)  # exactly one chunk, its length exact
    change = next(m for m in messages(arrays) if "documentChange" in m)
    assert change["documentChange"]["document"]["fields"]["s"]["stringValue"] == text
    with pytest.raises(BadData):
        q = ChunkParser()
        q.feed(b"1x\n[]")
        q.next()


def test_browser_rules_on_channel_requests(emulator):
    # A foreign site may not open a session (the request is refused before any handler runs).
    evil = channel(emulator, "Write", origin="https://evil.example")
    r = evil.open({"database": db_name(emulator)})
    assert r.status == 403 and "access-control-allow-origin" not in r.headers
    # A local page may not smuggle the administrator credential in the headers block.
    smuggler = channel(emulator, "Write", origin=LOCAL, headers_block={"Authorization": "Bearer owner"})
    r = smuggler.open({"database": db_name(emulator)})
    assert r.status == 403 and "Bearer owner" in r.text()
    # Without Origin (not a browser), the admin credential is the admin.
    admin = channel(emulator, "Write", headers_block={"Authorization": "Bearer owner"})
    assert admin.open({"database": db_name(emulator)}).status == 200
    # The preflight of a channel path (not needed by the SDK, answered anyway).
    r = requests.options(f"{emulator.url}/google.firestore.v1.Firestore/Listen/channel",
                         headers={"Origin": LOCAL, "Access-Control-Request-Method": "POST"}, timeout=5)
    assert r.status_code == 204 and r.headers["Access-Control-Allow-Origin"] == LOCAL
    # A foreign Host is refused (DNS rebinding), on channel paths too.
    r = requests.post(f"{emulator.url}/google.firestore.v1.Firestore/Listen/channel?VER=8", headers={"Host": "attacker.example"}, timeout=5)
    assert r.status_code == 403
