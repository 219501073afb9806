"""Request forms an attacker controls, over real sockets (issue 22, items 1 and 2; the in-process
enumeration is Tests/EmulatorTests/RequestNormalizationTests.swift):

- `Host`, `Origin` and HTTP/2 `:authority` values with non-ASCII digits once killed the process
  (a forced unwrap); they are refused with 403 and the process keeps serving.
- Percent-encoding, dot segments or duplicate slashes in the path once skipped the admin token:
  the path is normalized once and every decision reads that form.
"""
import os
import socket
import sys
import urllib.parse

import h2.config
import h2.connection
import h2.events
import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http2"))

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def raw_request(emu, head: bytes, timeout=10):
    """Sends one raw HTTP/1.1 request and returns the status code (0 when the connection died)."""
    with socket.create_connection((emu.host, emu.port), timeout=timeout) as s:
        s.sendall(head)
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                return 0
            data += chunk
    return int(data.split(b" ", 2)[1])


def alive(emu):
    return requests.get(f"{emu.url}/emulator/v1/status", headers=AUTH, timeout=10).status_code == 200


HOSTILE = ["1.1.1.\u00b2", "\u00b9\u00b2\u00b3.0.0.1", "127.0.0.\u0661", "\uff11\uff12\uff17.0.0.1", "[::\uff11]", "127.0.0.1:\u00b9"]


def test_non_ascii_digits_in_host_and_origin_are_refused_not_fatal(emulator_factory):
    emu = emulator_factory("--admin-token", TOKEN)
    for value in HOSTILE:
        v = value.encode()
        assert raw_request(emu, b"GET / HTTP/1.1\r\nHost: " + v + b"\r\n\r\n") == 403, value
        head = b"GET /v1/projects/p/databases/(default)/documents/c/d HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://" + v + b"\r\n\r\n"
        assert raw_request(emu, head) == 403, value
        assert alive(emu), f"the process died on {value!r}"


def test_non_ascii_digits_in_http2_authority_are_refused_not_fatal(emulator_factory):
    emu = emulator_factory("--admin-token", TOKEN)
    for value in HOSTILE:
        with socket.create_connection((emu.host, emu.port), timeout=10) as s:
            conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
            conn.initiate_connection()
            conn.send_headers(1, [(":method", "GET"), (":path", "/"), (":scheme", "http"), (":authority", value)], end_stream=True)
            s.sendall(conn.data_to_send())
            status = None
            while status is None:
                data = s.recv(65536)
                if not data:
                    break
                for ev in conn.receive_data(data):
                    if isinstance(ev, h2.events.ResponseReceived):
                        status = dict(ev.headers)[":status"]
                s.sendall(conn.data_to_send())
        assert status == "403", value
        assert alive(emu), f"the process died on :authority {value!r}"


def encodings(path):
    """Spellings of a path: each literal character percent-encoded, dot segments, double slashes."""
    segs = path.lstrip("/").split("/")
    out = set()
    for i, seg in enumerate(segs):
        for j, ch in enumerate(seg):
            if ch == ":":
                continue
            for enc in (f"%{ord(ch):02X}", f"%{ord(ch):02x}"):
                s = list(segs)
                s[i] = seg[:j] + enc + seg[j + 1:]
                out.add("/" + "/".join(s))
        for extra in (["."], ["%2e"], ["x", ".."], ["x", "%2E%2E"], [""]):
            s = list(segs)
            s[i:i] = extra
            out.add("/" + "/".join(s))
    out.add("/" + path)
    return sorted(out)


def test_every_encoding_of_every_control_plane_route_needs_the_token(emulator_factory):
    emu = emulator_factory("--admin-token", TOKEN)
    routes = requests.get(f"{emu.url}/emulator/v1/routes", headers=AUTH, timeout=10).json()["routes"]
    plane = [r for r in routes if r["path"] == "/reset" or (r["path"].startswith("/emulator/") and not r["path"].startswith("/emulator/action"))]
    assert len(plane) > 30
    checked = 0
    with requests.Session() as http:
        for r in plane:
            concrete = r["path"]
            while "{" in concrete:
                a, b = concrete.index("{"), concrete.index("}")
                concrete = concrete[:a] + ("a/b" if "=" in concrete[a:b] else "p1") + concrete[b + 1:]
            method = "POST" if r["method"] == "*" else r["method"]
            for v in encodings(concrete):
                req = requests.Request(method, f"{emu.url}{v}").prepare()
                req.url = f"{emu.url}{v}"  # as typed: no client-side normalization
                got = http.send(req, timeout=10)
                checked += 1
                assert got.status_code in (400, 401), f"{method} {v} answered {got.status_code} without the admin token"
    assert checked > 500
    assert alive(emu)


def test_reset_spelled_with_escapes_is_refused_then_accepted_with_the_token(emulator_factory):
    emu = emulator_factory("--admin-token", TOKEN)
    for path in ("/%65mulator/v1/reset", "/emulator/v1/%72eset", "/%72eset", "/emulator//v1/reset", "/emulator/x/../v1/reset"):
        assert requests.post(f"{emu.url}{path}", timeout=10).status_code in (400, 401), path
    assert requests.post(f"{emu.url}/%65mulator/v1/reset", headers=AUTH, timeout=10).status_code == 200
    r = requests.get(f"{emu.url}/emulator/v1/a//b", headers=AUTH, timeout=10)
    assert r.status_code == 400 and "empty segment" in r.json()["error"]["message"]
