"""Protocol rules a hostile peer used to get around (issue 22, item 12): an ambiguous host is
refused before any route runs, HTTP/2 stream ids may not go backwards (RFC 9113 §5.1.1) and a
stream may not depend on itself (§5.3.1)."""
import json
import socket
import struct

import hpack

from http2.rawh2 import (DATA, GOAWAY, HEADERS, PREFACE, PRIORITY, PROTOCOL_ERROR, RST_STREAM, SETTINGS, frame, goaway_of,
                         grpc_frame, grpc_headers, read_frames)


def test_http1_two_host_headers_are_400(emulator):
    s = socket.create_connection((emulator.host, emulator.port))
    s.sendall(b"GET /emulator/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n")
    s.settimeout(5)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    assert data.startswith(b"HTTP/1.1 400")
    assert b"more than one Host header" in data


def raw_request(emulator, fields, body=None):
    """Sends one request as raw frames (h2 itself refuses ambiguous hosts); returns the decoded
    response headers and body."""
    enc = hpack.Encoder()
    s = socket.create_connection((emulator.host, emulator.port))
    out = PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, 0x4 | (0 if body else 0x1), 1, enc.encode(fields))
    if body:
        out += frame(DATA, 0x1, 1, body)
    s.sendall(out)
    frames = read_frames(s, lambda f: any(t in (DATA, HEADERS) and fl & 1 and sid == 1 for t, fl, sid, _ in f))
    s.close()
    heads = [p for t, _, sid, p in frames if t == HEADERS and sid == 1]
    assert heads, frames
    return dict(hpack.Decoder().decode(heads[0])), b"".join(p for t, _, sid, p in frames if t == DATA and sid == 1)


def test_h2_host_that_differs_from_authority_is_400(emulator):
    authority = f"{emulator.host}:{emulator.port}"
    base = [(":method", "GET"), (":scheme", "http"), (":path", "/emulator/v1/status"), (":authority", authority)]
    headers, body = raw_request(emulator, base + [("host", "evil.example")])
    assert headers[":status"] == "400"
    assert "another authority" in json.loads(body)["error"]["message"]
    headers, _ = raw_request(emulator, base + [("host", authority)])
    assert headers[":status"] == "200"


def test_h2_two_host_fields_are_400_for_grpc_too(emulator):
    authority = f"{emulator.host}:{emulator.port}"
    method = "/google.firestore.v1.Firestore/GetDocument"
    fields = [(":method", "POST"), (":scheme", "http"), (":path", method), (":authority", authority), *grpc_headers(method),
              ("host", authority), ("host", "evil.example")]
    headers, _ = raw_request(emulator, fields, body=grpc_frame(b""))
    assert headers[":status"] == "400" and headers["grpc-status"] == "3"
    assert "More than one host" in headers["grpc-message"].replace("%20", " ")


def request_block(enc, path="/emulator/v1/status"):
    return enc.encode([(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1")])


def test_h2_stream_id_going_backwards_is_a_connection_error(emulator):
    enc = hpack.Encoder()
    s = socket.create_connection((emulator.host, emulator.port))
    s.sendall(PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, 0x5, 5, request_block(enc)) + frame(HEADERS, 0x5, 3, request_block(enc)))
    frames = read_frames(s, lambda f: goaway_of(f) is not None)
    s.close()
    ga = goaway_of(frames)
    assert ga is not None and ga[1] == PROTOCOL_ERROR and ga[0] == 5, ga
    assert "stream ids must increase" in ga[2]


def test_h2_stream_depending_on_itself_is_reset(emulator):
    enc = hpack.Encoder()
    s = socket.create_connection((emulator.host, emulator.port))
    priority = struct.pack(">IB", 1, 15)  # depends on stream 1 itself
    s.sendall(PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, 0x5 | 0x20, 1, priority + request_block(enc))
              + frame(HEADERS, 0x5, 3, request_block(enc)))
    frames = read_frames(s, lambda f: any(t == HEADERS and sid == 3 for t, _, sid, _ in f))
    resets = [(sid, int.from_bytes(p, "big")) for t, _, sid, p in frames if t == RST_STREAM]
    assert (1, PROTOCOL_ERROR) in resets
    assert not any(t == HEADERS and sid == 1 for t, _, sid, _ in frames), "the self-dependent stream was served"
    assert any(t == HEADERS and sid == 3 for t, _, sid, _ in frames), "the connection carries on"
    # PRIORITY on an idle stream naming itself cannot be reset: the connection ends.
    s.sendall(frame(PRIORITY, 0, 9, struct.pack(">IB", 9, 15)))
    frames = read_frames(s, lambda f: goaway_of(f) is not None)
    s.close()
    assert goaway_of(frames)[1] == PROTOCOL_ERROR
