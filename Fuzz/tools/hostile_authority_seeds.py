#!/usr/bin/env python3
"""Writes the hostile-host seeds of the `http` and `http2` fuzz targets (issue 22): Host, Origin
and :authority values that look like loopback names or addresses but are not (non-ASCII and
fullwidth digits, trailing dots, IPv6 brackets, ports out of range), duplicates, and paths that
only decode to a route (%65mulator, dot segments, doubled slashes). Run from the repository root;
needs `hpack` (Tests/python/requirements.txt). The output is committed; rerun after editing."""
import pathlib
import struct

import hpack

HOSTS = [
    "127.0.0.1", "localhost.", "LOCALHOST", "127.0.0.1.", "[::1]", "[::1]:8080", "[::ffff:127.0.0.1]", "::1",
    "127.0.0.\u00b9", "\u00b9\u00b2\u2077.0.0.1", "\uff11\uff12\uff17.\uff10.\uff10.\uff11", "localhost:99999", "localhost:",
    "evil.example", "localhost.evil.example", "127.1", "0x7f.0.0.1", "2130706433", "localhost%00", "a b",
]
ORIGINS = ["http://localhost:3000", "null", "http://127.0.0.1.", "http://[::1]:5173", "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54"]
PATHS = [
    "/%65mulator/v1/status", "/emulator/v1/../v1/status", "//emulator//v1//status", "/emulator/./v1/status",
    "/%2e%2e/emulator/v1/status", "/emulator/v1/projects/p/events", "/v1/projects/p/databases/(default)/documents/%2e%2e/x",
]

root = pathlib.Path(__file__).resolve().parents[1]


def http_seeds():
    out = root / "corpus" / "http"
    requests = []
    for i, host in enumerate(HOSTS):
        path = PATHS[i % len(PATHS)]
        origin = ORIGINS[i % len(ORIGINS)]
        requests.append(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n\r\n")
    requests.append("GET /emulator/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n")
    requests.append("POST /emulator/v1/projects/p:reset HTTP/1.1\r\nHost: localhost.\r\nOrigin: null\r\nSec-Fetch-Site: cross-site\r\nContent-Length: 0\r\n\r\n")
    for n, chunk in enumerate([requests[:8], requests[8:16], requests[16:]]):
        (out / f"hostile-hosts-{n + 1}.txt").write_bytes("".join(chunk).encode("utf-8"))


def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream) + payload


def http2_seeds():
    enc = hpack.Encoder()
    body = frame(4, 0, 0)  # SETTINGS
    sid = 1
    for i, host in enumerate(HOSTS):
        fields = [(":method", "GET"), (":scheme", "http"), (":path", PATHS[i % len(PATHS)]), (":authority", host)]
        if i % 3 == 0:
            fields.append(("host", HOSTS[(i + 1) % len(HOSTS)]))
        if i % 4 == 0:
            fields.append(("origin", ORIGINS[i % len(ORIGINS)]))
        body += frame(1, 0x5, sid, enc.encode(fields))
        sid += 2
    (root / "corpus" / "http2" / "hostile-authorities.bin").write_bytes(b"\x3f" + body)

    # Connection errors found by attacking the server: kept as regressions.
    enc = hpack.Encoder()
    get = [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "127.0.0.1")]
    regress = root / "regressions" / "http2"
    (regress / "stream-id-going-backwards.bin").write_bytes(
        b"\x3f" + frame(4, 0, 0) + frame(1, 0x5, 5, enc.encode(get)) + frame(1, 0x5, 3, enc.encode(get)))
    enc = hpack.Encoder()
    (regress / "stream-depending-on-itself.bin").write_bytes(
        b"\x3f" + frame(4, 0, 0) + frame(1, 0x25, 1, struct.pack(">IB", 1, 15) + enc.encode(get))
        + frame(1, 0x5, 3, enc.encode(get)) + frame(2, 0, 9, struct.pack(">IB", 9, 15)))
    enc = hpack.Encoder()
    block = enc.encode(get)
    flood = b"".join(frame(1, 0x5, 1 + 2 * i, block) + frame(3, 0, 1 + 2 * i, struct.pack(">I", 8)) for i in range(1100))
    (regress / "rapid-reset-flood.bin").write_bytes(b"\x3f" + frame(4, 0, 0) + flood)


http_seeds()
http2_seeds()
