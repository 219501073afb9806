"""Resource limits over real sockets: an abusive connection costs only itself (issue 22, items 7,
8 and 11). Each test starts its own emulator, attacks it the way a hostile local program would,
and checks the process from outside: resident memory (VmRSS in /proc/<pid>/status), CPU time
(/proc/<pid>/stat), and that a bystander client is still answered promptly."""
import os
import pathlib
import select
import socket
import stat
import struct
import threading
import time

import hpack
import pytest
import requests

from http2.rawh2 import (DATA, ENHANCE_YOUR_CALM, GOAWAY, HEADERS, PING, PREFACE, REFUSED_STREAM, RST_STREAM, SETTINGS,
                         WINDOW_UPDATE, frame, goaway_of, read_frames)

MIB = 1024 * 1024


def rss_mib(pid):
    """Resident memory of the process, in MiB."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def cpu_seconds(pid):
    """User plus system CPU time the process has used, in seconds."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def bystander_latency(emu, timeout=10):
    """Seconds another client waits for a small answer (a fresh connection each time)."""
    start = time.monotonic()
    r = requests.get(emu.url + "/emulator/v1/status", timeout=timeout)
    assert r.status_code == 200
    return time.monotonic() - start


def owner_json(emu, method, path, body=None):
    r = requests.request(method, emu.url + path, json=body, headers={"Authorization": "Bearer owner"}, timeout=30)
    assert r.status_code < 300, r.text
    return r.json()


def big_document(emu, name="limits/big", size=900_000):
    """Writes a document of about `size` bytes; returns its REST path."""
    path = f"/v1/projects/{emu.project}/databases/(default)/documents/{name}"
    owner_json(emu, "PATCH", path, {"fields": {"pad": {"stringValue": "x" * size}}})
    return path


def send_for(sock, data_source, seconds):
    """Writes whatever the peer takes for `seconds` without ever reading; returns bytes sent."""
    sock.setblocking(False)
    sent = 0
    deadline = time.monotonic() + seconds
    pending = b""
    while time.monotonic() < deadline:
        if not pending:
            pending = data_source()
            if not pending:
                break
        _, writable, _ = select.select([], [sock], [], 0.05)
        if not writable:
            continue
        try:
            n = sock.send(pending)
        except BlockingIOError:
            continue
        except OSError:
            break
        sent += n
        pending = pending[n:]
    return sent


def watch_while(emu, seconds, action):
    """Runs `action` in a thread for about `seconds`; meanwhile samples the emulator's RSS and
    a bystander's latency. Returns (peak RSS MiB, worst bystander latency s, action's result)."""
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("value", action()), daemon=True)
    t.start()
    peak, worst = rss_mib(emu.proc.pid), 0.0
    while t.is_alive():
        peak = max(peak, rss_mib(emu.proc.pid))
        worst = max(worst, bystander_latency(emu))
        time.sleep(0.1)
    t.join()
    return max(peak, rss_mib(emu.proc.pid)), worst, result.get("value")


# --- item 7: one connection cannot hold memory the others need --------------------------------


def test_pipelined_requests_whose_answers_are_never_read_hold_bounded_memory(emulator_factory):
    emu = emulator_factory()
    path = big_document(emu)
    request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer owner\r\n\r\n").encode()
    base = rss_mib(emu.proc.pid)
    s = socket.create_connection((emu.host, emu.port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    # 600 answers of 0.9 MB each (540 MB) asked for, none read.
    peak, worst, sent = watch_while(emu, 4, lambda: send_for(s, lambda: request * 600, 4))
    s.close()
    assert sent > 0
    assert peak - base < 64, f"RSS grew {peak - base:.0f} MiB for one connection that reads nothing"
    assert worst < 2, f"a bystander waited {worst:.2f} s"


def test_back_to_back_30_mib_bodies_hold_one_body_at_a_time(emulator_factory):
    emu = emulator_factory()
    body = b"b" * (30 * MIB)
    head = f"POST /emulator/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n\r\n".encode()
    base = rss_mib(emu.proc.pid)
    s = socket.create_connection((emu.host, emu.port))
    count = [0]

    def next_request():
        count[0] += 1
        return head + body if count[0] <= 20 else b""

    peak, worst, sent = watch_while(emu, 6, lambda: send_for(s, next_request, 6))
    s.close()
    assert sent > 30 * MIB
    # One body being parsed and one handed to the route, at most: about 2 x 30 MiB plus copies.
    assert peak - base < 160, f"RSS grew {peak - base:.0f} MiB (sent {sent / MIB:.0f} MiB)"
    assert worst < 2, f"a bystander waited {worst:.2f} s"


def test_unread_server_sent_events_over_many_http2_streams_hold_bounded_memory(emulator_factory):
    emu = emulator_factory()
    owner_json(emu, "PATCH", f"/v1/projects/{emu.project}/databases/(default)/documents/sse/seed", {"fields": {}})
    enc = hpack.Encoder()
    s = socket.create_connection((emu.host, emu.port))
    # Stream windows of 0: every event the server produces has to wait in the server.
    out = PREFACE + frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 0))
    streams = 400
    for i in range(streams):
        block = enc.encode([(":method", "GET"), (":scheme", "http"), (":path", f"/emulator/v1/projects/{emu.project}/events"),
                            (":authority", f"127.0.0.1:{emu.port}"), ("accept", "text/event-stream")])
        out += frame(HEADERS, 0x5, 1 + 2 * i, block)
    s.sendall(out)
    time.sleep(0.5)
    base = rss_mib(emu.proc.pid)
    db = f"projects/{emu.project}/databases/(default)"

    def churn():
        for n in range(60):
            writes = [{"update": {"name": f"{db}/documents/sse/{'p' * 300}{n}-{i}", "fields": {}}} for i in range(200)]
            owner_json(emu, "POST", f"/v1/{db}/documents:commit", {"writes": writes})
        return n

    peak, worst, _ = watch_while(emu, 10, churn)
    s.close()
    assert peak - base < 128, f"RSS grew {peak - base:.0f} MiB for {streams} unread event streams"
    assert worst < 2, f"a bystander waited {worst:.2f} s"


def test_unread_ping_replies_hold_bounded_memory(emulator_factory):
    emu = emulator_factory()
    base = rss_mib(emu.proc.pid)
    s = socket.create_connection((emu.host, emu.port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(PREFACE + frame(SETTINGS, 0, 0))
    pings = frame(PING, 0, 0, b"12345678") * 4000
    peak, worst, sent = watch_while(emu, 5, lambda: send_for(s, lambda: pings, 5))
    s.close()
    assert peak - base < 32, f"RSS grew {peak - base:.0f} MiB after {sent / 17:,.0f} PINGs whose replies were not read"
    # The flood ends the connection (GOAWAY ENHANCE_YOUR_CALM, then a bounded lingering close).
    assert sent < 64 * MIB, f"the server took {sent / MIB:.0f} MiB of PINGs"
    assert worst < 2, f"a bystander waited {worst:.2f} s"


def test_a_zero_window_peer_does_not_stall_other_clients(emulator_factory):
    emu = emulator_factory()
    big_document(emu, "limits/stall", 200_000)
    path = f"/v1/projects/{emu.project}/databases/(default)/documents/limits/stall"
    enc = hpack.Encoder()
    s = socket.create_connection((emu.host, emu.port))
    # The connection window stays at 65,535 (no WINDOW_UPDATE on stream 0) and every stream's is 0.
    out = PREFACE + frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 0) + struct.pack(">HI", 3, 1000))
    sids = [1 + 2 * i for i in range(900)]
    for sid in sids:
        block = enc.encode([(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", f"127.0.0.1:{emu.port}"),
                            ("authorization", "Bearer owner")])
        out += frame(HEADERS, 0x5, sid, block)
    s.sendall(out)
    # The first answers are computed (a few at a time), then the connection's output budget is
    # full and nothing more runs for it; wait for that before the nudging starts.
    settle = time.monotonic() + 20
    while time.monotonic() < settle and bystander_latency(emu, timeout=20) > 0.2:
        time.sleep(0.2)
    base = rss_mib(emu.proc.pid)
    # Then one-byte window increments on every stream, again and again.
    nudges = b"".join(frame(WINDOW_UPDATE, 0, sid, struct.pack(">I", 1)) for sid in sids)
    peak, worst, _ = watch_while(emu, 5, lambda: send_for(s, lambda: nudges, 5))
    s.close()
    assert peak - base < 32, f"RSS grew {peak - base:.0f} MiB while the streams were nudged"
    assert worst < 2, f"a bystander waited {worst:.2f} s while another connection nudged stalled streams"


# --- item 8: rapid reset and other cheap floods ------------------------------------------------


def flood_until_goaway(emu, frames_fn, seconds=10):
    """Sends frames as fast as the server takes them while reading its answers; returns the first
    GOAWAY (last stream, code, debug) and the worst bystander latency during the flood."""
    s = socket.create_connection((emu.host, emu.port))
    s.sendall(PREFACE + frame(SETTINGS, 0, 0))
    s.setblocking(False)
    got = {}

    def attack():
        buf = b""
        deadline = time.monotonic() + seconds
        pending = b""
        while time.monotonic() < deadline and "goaway" not in got:
            if not pending:
                pending = frames_fn()
            readable, writable, _ = select.select([s], [s], [], 0.05)
            if readable:
                try:
                    chunk = s.recv(1 << 20)
                except (BlockingIOError, ConnectionResetError):
                    chunk = b""
                if not chunk:
                    break
                buf += chunk
                while len(buf) >= 9:
                    length = int.from_bytes(buf[:3], "big")
                    if len(buf) < 9 + length:
                        break
                    if buf[3] == GOAWAY:
                        got["goaway"] = goaway_of([(GOAWAY, 0, 0, buf[9:9 + length])])
                    buf = buf[9 + length:]
            if writable and pending:
                try:
                    pending = pending[s.send(pending):]
                except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                    pass
        return got.get("goaway")

    _, worst, goaway = watch_while(emu, seconds, attack)
    s.close()
    return goaway, worst


def test_rapid_reset_flood_gets_goaway_enhance_your_calm(emulator_factory):
    emu = emulator_factory()
    enc = hpack.Encoder()
    block = enc.encode([(":method", "GET"), (":scheme", "http"), (":path", "/emulator/v1/status"), (":authority", "127.0.0.1")])
    next_id = [1]

    def batch():
        out = b""
        for _ in range(500):
            sid = next_id[0]
            next_id[0] += 2
            out += frame(HEADERS, 0x4, sid, block) + frame(RST_STREAM, 0, sid, struct.pack(">I", 8))
        return out

    goaway, worst = flood_until_goaway(emu, batch)
    assert goaway is not None, "66,000 resets a second were accepted without GOAWAY"
    assert goaway[1] == ENHANCE_YOUR_CALM and "reset" in goaway[2], goaway
    assert goaway[0] < 2 * 5000, f"the server took {goaway[0] // 2} streams before GOAWAY"
    assert worst < 2, f"a bystander waited {worst:.2f} s during the flood"


@pytest.mark.parametrize("name,unit", [
    ("SETTINGS", frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 65535))),
    ("PING", frame(PING, 0, 0, b"abcdefgh")),
    ("empty DATA", None),
])
def test_floods_of_cheap_frames_get_goaway_enhance_your_calm(emulator_factory, name, unit):
    emu = emulator_factory()
    if unit is None:
        # An open request stream, then DATA frames that carry nothing and end nothing.
        enc = hpack.Encoder()
        block = enc.encode([(":method", "POST"), (":scheme", "http"), (":path", "/emulator/v1/status"), (":authority", "127.0.0.1")])
        first = [frame(HEADERS, 0x4, 1, block)]
        unit = frame(DATA, 0, 1)
    else:
        first = []

    def batch():
        return (first.pop() if first else b"") + unit * 2000

    goaway, worst = flood_until_goaway(emu, batch)
    assert goaway is not None and goaway[1] == ENHANCE_YOUR_CALM, f"{name} flood: {goaway}"
    assert worst < 2, f"a bystander waited {worst:.2f} s during the {name} flood"


# --- item 11: global limits --------------------------------------------------------------------


def http_get_status(sock, host="127.0.0.1"):
    sock.sendall(f"GET /emulator/v1/status HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    sock.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data.split(b"\r\n", 1)[0].decode(errors="replace")


def test_connections_beyond_the_cap_are_answered_503_and_closed(emulator_factory):
    emu = emulator_factory("--max-connections", "20")
    held = [socket.create_connection((emu.host, emu.port)) for _ in range(20)]
    for h in held[:3]:
        assert http_get_status(h).startswith("HTTP/1.1 200")
    time.sleep(0.2)
    extra = socket.create_connection((emu.host, emu.port))
    extra.settimeout(5)
    answer = b""
    try:
        while True:
            chunk = extra.recv(65536)
            if not chunk:
                break
            answer += chunk
    except ConnectionResetError:
        pass
    extra.close()
    assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
    assert b"UNAVAILABLE" in answer and b"maxConnections" in answer
    for h in held:
        h.close()
    time.sleep(0.3)
    fresh = socket.create_connection((emu.host, emu.port))
    assert http_get_status(fresh).startswith("HTTP/1.1 200")
    fresh.close()


def test_streams_per_connection_are_announced_and_enforced(emulator_factory):
    emu = emulator_factory("--max-streams-per-connection", "50")
    s = socket.create_connection((emu.host, emu.port))
    s.sendall(PREFACE + frame(SETTINGS, 0, 0))
    frames = read_frames(s, lambda f: len(f) >= 1)
    settings = dict(struct.unpack(">HI", frames[0][3][i:i + 6]) for i in range(0, len(frames[0][3]), 6))
    assert settings[3] == 50
    enc = hpack.Encoder()
    out = b""
    for i in range(51):  # held open: no END_STREAM
        block = enc.encode([(":method", "POST"), (":scheme", "http"), (":path", "/emulator/v1/status"), (":authority", "127.0.0.1")])
        out += frame(HEADERS, 0x4, 1 + 2 * i, block)
    s.sendall(out)
    frames = read_frames(s, lambda f: any(t == RST_STREAM for t, _, _, _ in f))
    resets = [(sid, int.from_bytes(p, "big")) for t, _, sid, p in frames if t == RST_STREAM]
    assert resets == [(101, REFUSED_STREAM)]
    s.close()


def open_streams_then_close(emu, connections, per_connection):
    """Opens `per_connection` request streams (held open: no END_STREAM) on each of `connections`
    connections, waits until the server has read them all (a PING's answer), then closes."""
    enc = hpack.Encoder()
    block = enc.encode([(":method", "POST"), (":scheme", "http"), (":path", "/emulator/v1/status"), (":authority", "127.0.0.1")])
    socks = []
    for _ in range(connections):
        s = socket.create_connection((emu.host, emu.port))
        s.sendall(PREFACE + frame(SETTINGS, 0, 0) + b"".join(frame(HEADERS, 0x4, 1 + 2 * i, block) for i in range(per_connection))
                  + frame(PING, 0, 0, b"opened!!"))
        socks.append(s)
    for s in socks:
        read_frames(s, lambda f: any(t == PING and fl & 1 for t, fl, _, _ in f), timeout=30)
    time.sleep(0.3)
    peak = rss_mib(emu.proc.pid)
    for s in socks:
        s.close()
    return peak


def test_memory_returns_after_100k_streams_open_and_close(emulator_factory):
    emu = emulator_factory()
    base = rss_mib(emu.proc.pid)
    peak = base
    for _ in range(10):
        peak = max(peak, open_streams_then_close(emu, 10, 1000))
    deadline = time.monotonic() + 10
    after = rss_mib(emu.proc.pid)
    while time.monotonic() < deadline and after - base > max(24, (peak - base) / 4):
        time.sleep(0.5)
        after = rss_mib(emu.proc.pid)
    assert bystander_latency(emu) < 2
    assert after - base <= max(24, (peak - base) / 4), \
        f"RSS {base:.0f} MiB at start, {peak:.0f} at peak, still {after:.0f} after every stream closed"


def start_with_file_limit(tmp_path, emulator_factory, nofile, *args):
    """An emulator whose descriptor limit (soft and hard) is `nofile`, through prlimit."""
    binary = os.environ.get("EMULATOR_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "emulator"))
    wrapper = tmp_path / "emulator-with-limit"
    wrapper.write_text(f"#!/bin/sh\nexec prlimit --nofile={nofile}:{nofile} -- '{binary}' \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    saved = os.environ.get("EMULATOR_BIN")
    os.environ["EMULATOR_BIN"] = str(wrapper)
    try:
        return emulator_factory(*args)
    finally:
        if saved is None:
            os.environ.pop("EMULATOR_BIN")
        else:
            os.environ["EMULATOR_BIN"] = saved


def test_out_of_descriptors_the_server_backs_off_and_recovers(tmp_path, emulator_factory):
    # --max-connections above the descriptor limit: accept() itself runs out (EMFILE).
    emu = start_with_file_limit(tmp_path, emulator_factory, 64, "--max-connections", "1000")
    hogs = []
    for _ in range(120):
        try:
            hogs.append(socket.create_connection((emu.host, emu.port), timeout=2))
        except OSError:
            break
    time.sleep(0.5)
    cpu0 = cpu_seconds(emu.proc.pid)
    time.sleep(3)
    used = cpu_seconds(emu.proc.pid) - cpu0
    assert used < 0.5, f"the server used {used:.2f} s of CPU in 3 s while out of descriptors"
    waiting = socket.create_connection((emu.host, emu.port), timeout=5)
    waiting.sendall(b"GET /emulator/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    for h in hogs:
        h.close()
    # The client that queued meanwhile is served once descriptors are free again.
    waiting.settimeout(5)
    assert waiting.recv(65536).startswith(b"HTTP/1.1 200")
    waiting.close()
    assert bystander_latency(emu) < 2


def test_the_default_connection_cap_stays_below_the_descriptor_limit(tmp_path, emulator_factory):
    emu = start_with_file_limit(tmp_path, emulator_factory, 64)
    hogs = [socket.create_connection((emu.host, emu.port), timeout=2) for _ in range(80)]
    time.sleep(0.5)
    answered = 0
    for h in hogs:
        h.settimeout(0.05)
        try:
            if h.recv(65536).startswith(b"HTTP/1.1 503"):
                answered += 1
        except (socket.timeout, ConnectionResetError):
            pass
    assert answered > 0, "connections beyond the descriptor budget were neither answered nor closed"
    cpu0 = cpu_seconds(emu.proc.pid)
    time.sleep(2)
    assert cpu_seconds(emu.proc.pid) - cpu0 < 0.4
    for h in hogs:
        h.close()
    time.sleep(0.3)
    assert bystander_latency(emu) < 2
    assert open_fds(emu.proc.pid) < 40
