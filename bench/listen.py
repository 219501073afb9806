"""Real-time listener benchmarks (bench/run.sh): many Listen streams and targets in one process
(memory per listener), write-to-snapshot latency with 100 listeners attached, the cost of a write
to a watched 100,000-document collection against the same write unwatched, and the rate at which
a 100,000-document initial snapshot streams. The listeners are raw HTTP/2 streams (the `h2`
package), so one Python thread can hold a thousand of them. Prints Markdown rows."""
import http.client
import json
import os
import socket
import statistics
import struct
import sys
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
from google.cloud.firestore_v1.types import firestore as fs

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import rss_mib, seed, start_emulator, stop, wrk  # noqa: E402

PROJECT = "bench"
DB = f"projects/{PROJECT}/databases/(default)"
SECONDS = int(os.environ.get("WRK_SECONDS", "8"))


def listen_request(target_id, collection, first=True):
    target = {"target_id": target_id, "query": {"parent": f"{DB}/documents", "structured_query": {"from_": [{"collection_id": collection}]}}}
    req = fs.ListenRequest(database=DB, add_target=target) if first else fs.ListenRequest(add_target=target)
    body = fs.ListenRequest.serialize(req)
    return b"\x00" + struct.pack(">I", len(body)) + body


def kind(message):
    """The ListenResponse's kind from its first bytes: change, delete, remove, current, snapshot, ..."""
    tag = message[0]
    if tag == 0x1A:
        return "change"
    if tag in (0x22, 0x32):
        return "gone"
    if tag != 0x12:
        return "other"
    i = 1
    while message[i] & 0x80:
        i += 1
    inner = message[i + 1:]
    if inner[:1] == b"\x08":
        return {1: "add", 2: "remove", 3: "current", 4: "reset"}.get(inner[1], "other")
    return "snapshot"  # NO_CHANGE: no type, no target ids


class Connection:
    """One HTTP/2 connection carrying many Listen streams; `pump` reads and counts messages."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        cfg = h2.config.H2Configuration(client_side=True)
        self.conn = h2.connection.H2Connection(config=cfg)
        self.conn.local_settings = h2.settings.Settings(client=True, initial_values={
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 24, h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 10000})
        self.conn.initiate_connection()
        self.conn.increment_flow_control_window((1 << 30) - 65535)
        self.sock.sendall(self.conn.data_to_send())
        self.buffers = {}
        self.counts = {}
        self.on_message = None
        # The server's SETTINGS and its connection WINDOW_UPDATE open our send windows.
        self.pump(lambda: self.conn.outbound_flow_control_window > 65535, timeout=10)

    def open(self, first_request):
        sid = self.conn.get_next_available_stream_id()
        self.conn.send_headers(sid, [(":method", "POST"), (":scheme", "http"), (":authority", "bench"),
                                     (":path", "/google.firestore.v1.Firestore/Listen"), ("content-type", "application/grpc"),
                                     ("te", "trailers"), ("authorization", "Bearer owner"),
                                     # The real SDKs send these; Google's emulator ends a Listen
                                     # stream without them (grpc-status 2), ours reads neither.
                                     ("google-cloud-resource-prefix", DB), ("x-goog-request-params", "database=" + DB)])
        self.conn.send_data(sid, first_request)
        self.buffers[sid] = bytearray()
        self.counts[sid] = {}
        self.sock.sendall(self.conn.data_to_send())
        return sid

    def send(self, sid, data):
        if self.conn.local_flow_control_window(sid) < len(data):
            self.pump(lambda: self.conn.local_flow_control_window(sid) >= len(data), timeout=10)
        self.conn.send_data(sid, data)
        self.sock.sendall(self.conn.data_to_send())

    def pump(self, until, timeout=60):
        self.sock.settimeout(0.05)
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError("listeners did not get there in time")
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                continue
            if not data:
                raise ConnectionError("the emulator closed the connection")
            for e in self.conn.receive_data(data):
                if isinstance(e, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                    self.take(e.stream_id, e.data)
                elif isinstance(e, h2.events.StreamEnded) or isinstance(e, h2.events.StreamReset):
                    raise ConnectionError(f"stream {e.stream_id} ended")
            out = self.conn.data_to_send()
            if out:
                self.sock.sendall(out)

    def take(self, sid, data):
        buf = self.buffers[sid]
        buf += data
        while len(buf) >= 5:
            n = int.from_bytes(buf[1:5], "big")
            if len(buf) < 5 + n:
                break
            k = kind(bytes(buf[5:5 + min(n, 16)]) + b"\x00\x00")
            del buf[:5 + n]
            c = self.counts[sid]
            c[k] = c.get(k, 0) + 1
            if self.on_message:
                self.on_message(sid, k)

    def total(self, k):
        return sum(c.get(k, 0) for c in self.counts.values())

    def close(self):
        self.sock.close()


def many_listeners(port, pid, lines, streams=1000, per_stream=10, connections=4):
    """`streams` Listen streams, each with `per_stream` targets on its own small collections."""
    for k in range(50):  # a few documents so initial results are not all empty
        seed(port, PROJECT, f"m{k}", 2)
    before = rss_mib(pid)
    conns = [Connection(port) for _ in range(connections)]
    started = time.perf_counter()
    sids = []
    for s in range(streams):
        c = conns[s % connections]
        sid = c.open(listen_request(1, f"m{s % 50}"))
        for t in range(2, per_stream + 1):
            c.send(sid, listen_request(t, f"m{(s + t) % 50}", first=False))
        sids.append((c, sid))
    for c in conns:
        c.pump(lambda c=c: c.total("current") >= (streams // connections) * per_stream, timeout=120)
    setup = time.perf_counter() - started
    time.sleep(0.5)
    after = rss_mib(pid)
    targets = streams * per_stream
    lines.append(f"| {streams:,} Listen streams with {per_stream} targets each ({targets:,} targets) on {connections} connections | "
                 f"all current in {setup:.1f} s; RSS {before:.1f} → {after:.1f} MiB = {(after - before) * 1024 / streams:.1f} KiB per stream, "
                 f"{(after - before) * 1024 * 1024 / targets:,.0f} bytes per target | ≥ 1,000 streams, 10,000 targets |")
    for c in conns:
        c.close()


def latency(port, lines, listeners=100, writes=300):
    """One probe listener is timed while 99 more on another connection receive the same changes
    (their bytes are read and dropped by a thread, so the Python client's own parsing of 99 streams
    does not count against the server). Appends a row to `lines`; with `lines=None`, returns the
    sorted samples (ms) instead."""
    others = Connection(port)
    for _ in range(listeners - 1):
        others.open(listen_request(1, "lat"))
    others.pump(lambda: others.total("current") >= listeners - 1)
    stop_draining = threading.Event()

    def drain():
        others.sock.settimeout(0.2)
        while not stop_draining.is_set():
            try:
                if not others.sock.recv(1 << 20):
                    return
            except socket.timeout:
                continue
            except OSError:
                return
    threading.Thread(target=drain, daemon=True).start()
    probe = Connection(port)
    probe.open(listen_request(1, "lat"))
    probe.pump(lambda: probe.total("snapshot") >= 1)
    http = socket.create_connection(("127.0.0.1", port))
    http.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    samples = []
    for i in range(writes):
        body = json.dumps({"fields": {"n": {"integerValue": str(i)}}}).encode()
        req = (f"PATCH /v1/{DB}/documents/lat/d{i % 10} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer owner\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        target = probe.total("snapshot") + 1
        t0 = time.perf_counter()
        http.sendall(req)
        probe.pump(lambda: probe.total("snapshot") >= target, timeout=10)
        samples.append((time.perf_counter() - t0) * 1000)
        http.recv(65536)  # the PATCH response (small)
    stop_draining.set()
    http.close()
    probe.close()
    others.close()
    samples.sort()
    if lines is None:
        return samples
    lines.append(f"| write-to-snapshot latency with {listeners} listeners attached (PATCH sent → the probe listener's NO_CHANGE "
                 f"received; {writes} writes) | p50 {statistics.median(samples):.2f} ms, p90 {samples[int(len(samples) * 0.9)]:.2f} ms | p50 < 2 ms |")


class Drainer(threading.Thread):
    """Keeps one listener's connection read while wrk writes (a client that keeps up)."""

    def __init__(self, conn):
        super().__init__(daemon=True)
        self.conn, self.stop = conn, threading.Event()

    def run(self):
        try:
            self.conn.pump(lambda: self.stop.is_set(), timeout=3600)
        except Exception:  # noqa: BLE001 - the benchmark closes the socket under it
            pass


def watched_writes(port, lines, count=100_000):
    seed(port, PROJECT, "w100k", count)
    plain = wrk(port, "commit.lua", SECONDS, {"COLL": "w100k", "COUNT": str(count)})
    conn = Connection(port)
    t0 = time.perf_counter()
    conn.open(listen_request(1, "w100k"))
    conn.pump(lambda: conn.total("current") >= 1, timeout=300)
    initial = time.perf_counter() - t0
    changes = conn.total("change")
    assert changes == count, changes
    drainer = Drainer(conn)
    drainer.start()
    watched = wrk(port, "commit.lua", SECONDS, {"COLL": "w100k", "COUNT": str(count)})
    drainer.stop.set()
    drainer.join(5)
    conn.close()
    lines.append(f"| initial snapshot of a {count:,}-document collection (add_target → CURRENT, raw HTTP/2 client) | "
                 f"{initial * 1000:,.0f} ms = {count / initial:,.0f} documents/s | ≥ 50,000 documents/s |")
    lines.append(f"| write to a {count:,}-document collection (wrk :commit of 1 update): unwatched → watched by a listener | "
                 f"{plain['rps']:,.0f} → {watched['rps']:,.0f} req/s; p50 {plain['p50_ms']:.2f} → {watched['p50_ms']:.2f} ms "
                 f"= {plain['rps'] / watched['rps']:.2f}× the cost | ≤ 1.5× (the Firebase emulator: about 11×) |")


def main():
    binary = os.environ["EMULATOR_BIN"]
    lines = []
    for step in (many_listeners, latency, watched_writes):
        proc, port = start_emulator(binary, PROJECT)
        try:
            if step is many_listeners:
                step(port, proc.pid, lines)
            else:
                step(port, lines)
        finally:
            stop(proc)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
