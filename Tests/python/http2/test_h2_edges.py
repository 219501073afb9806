"""HTTP/2 edge cases with a raw peer (the `h2` package): what real gRPC clients rely on, and
hostile peers that must cost only their own connection."""
import socket
import struct
import threading
import time

import h2.events
import hpack
import pytest
import requests
from google.cloud.firestore_v1.types import document as document_pb
from google.cloud.firestore_v1.types import firestore as firestore_pb

from http2.rawh2 import (CONTINUATION, DATA, ENHANCE_YOUR_CALM, FLOW_CONTROL_ERROR, FRAME_SIZE_ERROR, GOAWAY, HEADERS, NO_ERROR,
                   PING, PREFACE, PROTOCOL_ERROR, RST_STREAM, SETTINGS, WINDOW_UPDATE, COMPRESSION_ERROR, Peer, frame,
                   goaway_of, grpc_frame, grpc_headers, read_frames)

GET = "/google.firestore.v1.Firestore/GetDocument"
COMMIT = "/google.firestore.v1.Firestore/Commit"
RUN_QUERY = "/google.firestore.v1.Firestore/RunQuery"


def db(emulator):
    return f"projects/{emulator.project}/databases/(default)"


def commit_bytes(emulator, path, fields):
    doc = document_pb.Document(name=f"{db(emulator)}/documents/{path}", fields=fields)
    req = firestore_pb.CommitRequest(database=db(emulator), writes=[{"update": doc}])
    return firestore_pb.CommitRequest.serialize(req)


def grpc_call(peer, method, message, metadata=(("authorization", "Bearer owner"),)):
    sid = peer.request("POST", method, headers=[*grpc_headers(method), *metadata], body=grpc_frame(message))
    return sid, peer.response(sid)


def hpack_int(value, prefix_bits, first=0):
    """An HPACK integer (RFC 7541 §5.1) with `first` in the prefix byte's high bits."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = [first | limit]
    value -= limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def status_is_healthy(emulator):
    return requests.get(emulator.url + "/emulator/v1/status", timeout=5).status_code == 200


def test_server_sends_settings_first_and_acks_ours(emulator):
    s = socket.create_connection((emulator.host, emulator.port))
    s.sendall(PREFACE + frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 100000)))
    frames = read_frames(s, lambda f: any(t == SETTINGS and fl & 1 for t, fl, _, _ in f))
    s.close()
    assert frames[0][0] == SETTINGS and frames[0][1] == 0, "the first frame must be the server's SETTINGS"
    settings = dict(struct.unpack(">HI", frames[0][3][i:i + 6]) for i in range(0, len(frames[0][3]), 6))
    assert settings[3] >= 1000, "MAX_CONCURRENT_STREAMS must allow every listener its stream"
    assert settings[4] >= 65535
    assert any(t == WINDOW_UPDATE and sid == 0 for t, _, sid, _ in frames), "the connection window is opened"
    assert any(t == SETTINGS and fl & 1 for t, fl, _, _ in frames), "our SETTINGS are acknowledged"


def test_unary_grpc_call_and_trailers(emulator):
    peer = Peer(emulator.host, emulator.port)
    _, (headers, body, trailers) = grpc_call(peer, COMMIT, commit_bytes(emulator, "h2/a", {"n": {"integer_value": 1}}))
    assert headers[":status"] == "200" and headers["content-type"].startswith("application/grpc")
    assert trailers["grpc-status"] == "0"
    resp = firestore_pb.CommitResponse.deserialize(body[5:])
    assert len(resp.write_results) == 1
    peer.close()


def test_trailers_only_error_with_percent_encoded_message(emulator):
    peer = Peer(emulator.host, emulator.port)
    req = firestore_pb.GetDocumentRequest(name=f"{db(emulator)}/documents/h2/é-missing")
    _, (headers, body, trailers) = grpc_call(peer, GET, firestore_pb.GetDocumentRequest.serialize(req))
    status = headers.get("grpc-status") or trailers.get("grpc-status")
    message = headers.get("grpc-message") or trailers.get("grpc-message")
    assert status == "5"
    assert "%C3%A9" in message and "é" not in message
    assert body == b""
    peer.close()


def test_unknown_method_is_unimplemented_naming_it(emulator):
    peer = Peer(emulator.host, emulator.port)
    _, (headers, _, trailers) = grpc_call(peer, "/google.firestore.v1.Firestore/Nope", b"")
    fields = {**headers, **trailers}
    assert fields["grpc-status"] == "12"
    assert "/google.firestore.v1.Firestore/Nope" in fields["grpc-message"]
    peer.close()


def test_plain_http_requests_over_http2(emulator):
    peer = Peer(emulator.host, emulator.port)
    sid = peer.request("GET", "/emulator/v1/status")
    headers, body, _ = peer.response(sid)
    assert headers[":status"] == "200" and b'"project"' in body
    peer.close()


def test_ping_storm_is_acked_without_goaway(emulator):
    peer = Peer(emulator.host, emulator.port)
    for i in range(2000):
        peer.conn.ping(struct.pack(">Q", i))
    peer.flush()
    acks = []
    peer.pump(lambda: len([e for e in peer.events if isinstance(e, h2.events.PingAckReceived)]) >= 2000, timeout=20)
    acks = [e for e in peer.events if isinstance(e, h2.events.PingAckReceived)]
    assert len(acks) == 2000
    assert not any(isinstance(e, h2.events.ConnectionTerminated) for e in peer.events)
    _, (_, _, trailers) = grpc_call(peer, COMMIT, commit_bytes(emulator, "h2/ping", {}))
    assert trailers["grpc-status"] == "0"
    peer.close()


def test_request_larger_than_default_windows(emulator):
    """A 300 KB commit: past 65,535 bytes the client needs our WINDOW_UPDATEs."""
    peer = Peer(emulator.host, emulator.port)
    big = {"blob": {"bytes_value": bytes(range(256)) * 1200}}
    _, (_, _, trailers) = grpc_call(peer, COMMIT, commit_bytes(emulator, "h2/big", big))
    assert trailers["grpc-status"] == "0"
    peer.close()


def test_response_respects_a_tiny_client_window(emulator):
    """The client allows 1,000 bytes per stream: the server parks the rest until WINDOW_UPDATEs."""
    import h2.settings
    fields = {"pad": {"string_value": "x" * 5000}}
    requests.post(emulator.url + f"/v1/{db(emulator)}/documents:commit", headers={"Authorization": "Bearer owner"}, json={
        "writes": [{"update": {"name": f"{db(emulator)}/documents/h2win/d{i}", "fields": {"pad": {"stringValue": "x" * 5000}}}}
                   for i in range(40)]}).raise_for_status()
    peer = Peer(emulator.host, emulator.port, settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1000})
    q = firestore_pb.RunQueryRequest(parent=f"{db(emulator)}/documents", structured_query={"from_": [{"collection_id": "h2win"}]})
    sid, (_, body, trailers) = grpc_call(peer, RUN_QUERY, firestore_pb.RunQueryRequest.serialize(q))
    assert trailers["grpc-status"] == "0"
    docs = 0
    while body:
        n = int.from_bytes(body[1:5], "big")
        r = firestore_pb.RunQueryResponse.deserialize(body[5:5 + n])
        docs += 1 if r.document.name else 0
        body = body[5 + n:]
    assert docs == 40
    peer.close()


def test_rst_stream_mid_response_keeps_the_connection(emulator):
    requests.post(emulator.url + f"/v1/{db(emulator)}/documents:commit", headers={"Authorization": "Bearer owner"}, json={
        "writes": [{"update": {"name": f"{db(emulator)}/documents/h2rst/d{i}", "fields": {"pad": {"stringValue": "y" * 20000}}}}
                   for i in range(100)]}).raise_for_status()
    import h2.settings
    peer = Peer(emulator.host, emulator.port, settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 30000})
    q = firestore_pb.RunQueryRequest(parent=f"{db(emulator)}/documents", structured_query={"from_": [{"collection_id": "h2rst"}]})
    sid = peer.request("POST", RUN_QUERY, headers=[*grpc_headers(RUN_QUERY), ("authorization", "Bearer owner")],
                       body=grpc_frame(firestore_pb.RunQueryRequest.serialize(q)))
    peer.pump(lambda: any(isinstance(e, h2.events.DataReceived) and e.stream_id == sid for e in peer.events), auto_ack=False)
    peer.conn.reset_stream(sid, 8)
    peer.flush()
    _, (_, _, trailers) = grpc_call(peer, COMMIT, commit_bytes(emulator, "h2/after-rst", {}))
    assert trailers["grpc-status"] == "0"
    peer.close()


def test_dynamic_table_eviction_and_huffman(emulator):
    """Many distinct header values through a small dynamic table (evictions), Huffman-coded by h2."""
    import h2.settings
    peer = Peer(emulator.host, emulator.port, settings={h2.settings.SettingCodes.HEADER_TABLE_SIZE: 256})
    for i in range(60):
        sid = peer.request("GET", "/emulator/v1/status", headers=[(f"x-custom-{i % 7}", "value-" * (i % 5 + 1) + str(i))])
        headers, _, _ = peer.response(sid)
        assert headers[":status"] == "200"
    peer.close()


def test_continuation_frames_carry_a_large_header_block(emulator):
    s = socket.create_connection((emulator.host, emulator.port))
    enc = hpack.Encoder()
    block = enc.encode([(":method", "GET"), (":scheme", "http"), (":path", "/emulator/v1/status"),
                        (":authority", f"{emulator.host}:{emulator.port}"), ("x-big", "v" * 40000)])
    s.sendall(PREFACE + frame(SETTINGS, 0, 0))
    parts = [block[i:i + 16000] for i in range(0, len(block), 16000)]
    out = frame(HEADERS, 0x1 if len(parts) > 1 else 0x5, 1, parts[0])
    for i, p in enumerate(parts[1:], 1):
        out += frame(CONTINUATION, 0x4 if i == len(parts) - 1 else 0, 1, p)
    s.sendall(out)
    frames = read_frames(s, lambda f: any(t == HEADERS and sid == 1 for t, _, sid, _ in f))
    s.close()
    headers = [p for t, _, sid, p in frames if t == HEADERS and sid == 1]
    assert headers and dict(hpack.Decoder().decode(headers[0]))[":status"] == "200"


def test_header_list_over_the_limit_answers_431(emulator):
    peer = Peer(emulator.host, emulator.port)
    sid = peer.request("POST", COMMIT, headers=[*grpc_headers(COMMIT), *[(f"x-h{i}", "z" * 1000) for i in range(100)]])
    headers, _, _ = peer.response(sid)
    assert headers[":status"] == "431" and headers["grpc-status"] == "8"
    assert "MAX_HEADER_LIST_SIZE" in headers["grpc-message"]
    peer.close()


def test_hpack_bomb_is_bounded(emulator):
    """One big indexed entry referenced thousands of times: decoded lazily bounded, 431 answered."""
    s = socket.create_connection((emulator.host, emulator.port))
    s.sendall(PREFACE + frame(SETTINGS, 0, 0))
    first = hpack.Encoder().encode([(":method", "GET"), (":scheme", "http"), (":path", "/emulator/v1/status"), (":authority", "x")])
    big = b"\x40" + bytes([0x05]) + b"x-big" + hpack_int(4000, 7) + b"B" * 4000  # literal, incremental indexing
    refs = bytes([0xbe]) * 10000  # index 62, again and again
    s.sendall(frame(HEADERS, 0x5, 1, first + big + refs))
    frames = read_frames(s, lambda f: any(t in (HEADERS, GOAWAY, RST_STREAM) and sid in (0, 1) for t, _, sid, _ in f))
    s.close()
    heads = [p for t, _, sid, p in frames if t == HEADERS and sid == 1]
    assert heads and dict(hpack.Decoder().decode(heads[0]))[":status"] == "431"
    assert status_is_healthy(emulator)


@pytest.mark.parametrize("name,payload,code", [
    ("garbage after the preface", b"\x00\x00\x04\x08\x00\x00\x00\x00\x00" + b"garbage!" * 10, PROTOCOL_ERROR),
    ("oversized frame", frame(SETTINGS, 0, 0) + b"\x10\x00\x00\x00\x00\x00\x00\x00\x01" + b"x" * 100, FRAME_SIZE_ERROR),
    ("connection window overflow", frame(SETTINGS, 0, 0) + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0x7FFFFFFF)), FLOW_CONTROL_ERROR),
    ("zero window increment", frame(SETTINGS, 0, 0) + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0)), PROTOCOL_ERROR),
    ("bad HPACK", frame(SETTINGS, 0, 0) + frame(HEADERS, 0x5, 1, b"\xff\xff\xff\xff\xff\xff\x7f"), COMPRESSION_ERROR),
    ("CONTINUATION without HEADERS", frame(SETTINGS, 0, 0) + frame(CONTINUATION, 0x4, 1, b"\x82"), PROTOCOL_ERROR),
    ("PING of 7 bytes", frame(SETTINGS, 0, 0) + frame(PING, 0, 0, b"1234567"), FRAME_SIZE_ERROR),
    ("SETTINGS of 5 bytes", frame(SETTINGS, 0, 0, b"\x00\x04\x00\x00\x00"), FRAME_SIZE_ERROR),
    ("even stream id", frame(SETTINGS, 0, 0) + frame(HEADERS, 0x5, 2, b"\x82\x86\x84"), PROTOCOL_ERROR),
    ("push promise from a client", frame(SETTINGS, 0, 0) + frame(5, 0x4, 1, b"\x00\x00\x00\x02\x82"), PROTOCOL_ERROR),
    ("endless CONTINUATION", frame(SETTINGS, 0, 0) + frame(HEADERS, 0x0, 1, b"\x82") + frame(CONTINUATION, 0, 1, b"\x00" * 16000) * 20,
     ENHANCE_YOUR_CALM),
], ids=lambda v: v if isinstance(v, str) else "")
def test_protocol_errors_end_only_that_connection(emulator, name, payload, code):
    bystander = Peer(emulator.host, emulator.port)
    s = socket.create_connection((emulator.host, emulator.port))
    s.sendall(PREFACE + payload)
    frames = read_frames(s, lambda f: goaway_of(f) is not None)
    ga = goaway_of(frames)
    assert ga is not None, f"{name}: expected GOAWAY"
    assert ga[1] == code, f"{name}: GOAWAY code {ga[1]} ({ga[2]}), expected {code}"
    assert ga[2], "the debug data names the problem"
    # The connection is closed after GOAWAY.
    s.settimeout(5)
    rest = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            rest += chunk
    except socket.timeout:
        pytest.fail(f"{name}: the connection stayed open after GOAWAY")
    s.close()
    _, (_, _, trailers) = grpc_call(bystander, COMMIT, commit_bytes(emulator, "h2/bystander", {}))
    assert trailers["grpc-status"] == "0"
    bystander.close()


def test_settings_then_silence_and_a_stream_that_never_reads_cost_only_themselves(emulator):
    silent = socket.create_connection((emulator.host, emulator.port))
    silent.sendall(PREFACE + frame(SETTINGS, 0, 0))
    # A client that opens a big query with a zero receive window and never reads.
    requests.post(emulator.url + f"/v1/{db(emulator)}/documents:commit", headers={"Authorization": "Bearer owner"}, json={
        "writes": [{"update": {"name": f"{db(emulator)}/documents/h2stall/d{i}", "fields": {"pad": {"stringValue": "z" * 50000}}}}
                   for i in range(100)]}).raise_for_status()
    import h2.settings
    stalled = Peer(emulator.host, emulator.port, settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    q = firestore_pb.RunQueryRequest(parent=f"{db(emulator)}/documents", structured_query={"from_": [{"collection_id": "h2stall"}]})
    stalled.request("POST", RUN_QUERY, headers=[*grpc_headers(RUN_QUERY), ("authorization", "Bearer owner")],
                    body=grpc_frame(firestore_pb.RunQueryRequest.serialize(q)))
    time.sleep(0.3)
    # Everyone else is served normally meanwhile.
    others = Peer(emulator.host, emulator.port)
    for i in range(5):
        _, (_, _, trailers) = grpc_call(others, COMMIT, commit_bytes(emulator, f"h2/other{i}", {}))
        assert trailers["grpc-status"] == "0"
    assert status_is_healthy(emulator)
    for c in (silent, stalled.sock, others.sock):
        c.close()


def test_many_concurrent_streams_on_one_connection(emulator):
    peer = Peer(emulator.host, emulator.port)
    sids = []
    for i in range(300):
        req = firestore_pb.GetDocumentRequest(name=f"{db(emulator)}/documents/h2/none{i}")
        sids.append(peer.request("POST", GET, headers=[*grpc_headers(GET), ("authorization", "Bearer owner")],
                                 body=grpc_frame(firestore_pb.GetDocumentRequest.serialize(req))))
    for sid in sids:
        headers, _, trailers = peer.response(sid)
        assert {**headers, **trailers}["grpc-status"] == "5"
    peer.close()


def test_grpc_timeout_answers_deadline_exceeded(emulator):
    r = requests.post(emulator.url + f"/emulator/v1/projects/{emulator.project}/faults",
                      json={"match": {"service": "firestore", "method": "commit"}, "delayMs": 3000, "times": 1})
    r.raise_for_status()
    try:
        peer = Peer(emulator.host, emulator.port)
        started = time.time()
        _, (headers, _, trailers) = grpc_call(peer, COMMIT, commit_bytes(emulator, "h2slow/x", {}),
                                              metadata=(("authorization", "Bearer owner"), ("grpc-timeout", "300m")))
        assert {**headers, **trailers}["grpc-status"] == "4"
        assert time.time() - started < 2.5
        peer.close()
    finally:
        requests.delete(emulator.url + f"/emulator/v1/projects/{emulator.project}/faults")


def test_compressed_message_is_unimplemented(emulator):
    peer = Peer(emulator.host, emulator.port)
    msg = commit_bytes(emulator, "h2/gz", {})
    sid = peer.request("POST", COMMIT, headers=[*grpc_headers(COMMIT), ("grpc-encoding", "gzip"), ("authorization", "Bearer owner")],
                       body=b"\x01" + struct.pack(">I", len(msg)) + msg)
    headers, _, trailers = peer.response(sid)
    fields = {**headers, **trailers}
    assert fields["grpc-status"] == "12" and "gzip" in fields["grpc-message"]
    peer.close()


def test_graceful_shutdown_sends_goaway(emulator_factory):
    emu = emulator_factory()
    s = socket.create_connection((emu.host, emu.port))
    s.sendall(PREFACE + frame(SETTINGS, 0, 0))
    read_frames(s, lambda f: any(t == SETTINGS for t, *_ in f), timeout=3)
    stopper = threading.Thread(target=emu.stop)
    stopper.start()
    frames = read_frames(s, lambda f: goaway_of(f) is not None, timeout=10)
    stopper.join()
    ga = goaway_of(frames)
    assert ga is not None and ga[1] == NO_ERROR
    s.close()


def test_a_call_waiting_for_a_handler_slot_is_answered_when_one_frees(emulator):
    """Sixteen Listen streams hold a connection's sixteen working-handler slots; a GetDocument sent
    after them waits, is started when their grace period (0.25 s) ends, and is answered by the
    event loop itself (an inline answer). The loop's timer started it, not a read, so the answer
    must go out then, though the client sends nothing more."""
    requests.post(emulator.url + f"/v1/{db(emulator)}/documents/h2slots?documentId=d", json={"fields": {}},
                  headers={"Authorization": "Bearer owner"}, timeout=5)
    name = f"{db(emulator)}/documents/h2slots/d"
    listen = "/google.firestore.v1.Firestore/Listen"
    target = firestore_pb.ListenRequest(database=db(emulator), add_target={"documents": {"documents": [name]}, "target_id": 1})
    auth = ("authorization", "Bearer owner")
    peer = Peer(emulator.host, emulator.port)
    listeners = [peer.request("POST", listen, headers=[*grpc_headers(listen), auth],
                              body=grpc_frame(firestore_pb.ListenRequest.serialize(target)), end=False) for _ in range(16)]

    def answered(sids):
        return lambda: all(any(isinstance(e, h2.events.ResponseReceived) and e.stream_id == s for e in peer.events) for s in sids)

    peer.pump(answered(listeners), timeout=10)
    assert answered(listeners)(), "every listener should have started"
    get = peer.request("POST", GET, headers=[*grpc_headers(GET), auth],
                       body=grpc_frame(firestore_pb.GetDocumentRequest.serialize(firestore_pb.GetDocumentRequest(name=name))))
    started = time.time()

    def ended():
        return any(isinstance(e, h2.events.StreamEnded) and e.stream_id == get for e in peer.events)

    peer.pump(ended, timeout=5, auto_ack=False)  # reads only: nothing more is sent
    assert ended(), "the waiting call was never answered"
    assert time.time() - started < 3
    trailers = [e for e in peer.events if isinstance(e, h2.events.TrailersReceived) and e.stream_id == get]
    assert trailers and dict(trailers[0].headers)["grpc-status"] == "0"
    peer.close()
