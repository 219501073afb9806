"""A raw HTTP/2 peer for edge-case tests: the `h2` state machine (PyPI) over a plain socket, plus
helpers to send hand-made frames that `h2` itself would refuse to produce (hostile peers)."""
import socket
import struct
import time

import h2.config
import h2.connection
import h2.events
import h2.settings

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# Frame types and error codes (RFC 9113).
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
NO_ERROR, PROTOCOL_ERROR, INTERNAL_ERROR, FLOW_CONTROL_ERROR = 0, 1, 2, 3
FRAME_SIZE_ERROR, REFUSED_STREAM, CANCEL, COMPRESSION_ERROR, ENHANCE_YOUR_CALM = 6, 7, 8, 9, 11


def frame(ftype, flags, stream, payload=b""):
    """One frame's bytes."""
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream) + payload


def read_frames(sock, until, timeout=5.0):
    """Reads raw frames until `until(frames)` is true or the peer closes; returns them as
    (type, flags, stream, payload) tuples. Skips the connection preface of the server (none)."""
    sock.settimeout(timeout)
    buf = b""
    frames = []
    deadline = time.time() + timeout
    while not until(frames) and time.time() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            break
        if not chunk:
            break
        buf += chunk
        while len(buf) >= 9:
            length = int.from_bytes(buf[:3], "big")
            if len(buf) < 9 + length:
                break
            ftype, flags = buf[3], buf[4]
            stream = int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
            frames.append((ftype, flags, stream, buf[9:9 + length]))
            buf = buf[9 + length:]
    return frames


def goaway_of(frames):
    """(last_stream_id, error_code, debug) of the first GOAWAY, or None."""
    for t, _, _, p in frames:
        if t == GOAWAY:
            return int.from_bytes(p[:4], "big") & 0x7FFFFFFF, int.from_bytes(p[4:8], "big"), p[8:].decode("utf-8", "replace")
    return None


class Peer:
    """An h2 client connection to the emulator (cleartext, prior knowledge)."""

    def __init__(self, host, port, settings=None, window=None):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.host = f"{host}:{port}"
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        if settings:
            self.conn.local_settings = h2.settings.Settings(client=True, initial_values=settings)
        self.conn.initiate_connection()
        if window:
            self.conn.increment_flow_control_window(window)
        self.flush()
        self.events = []
        self.closed = False

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def pump(self, until, timeout=10.0, auto_ack=True):
        """Reads and processes until `until()` is true; returns the events seen meanwhile."""
        self.sock.settimeout(0.2)
        deadline = time.time() + timeout
        seen = []
        while not until() and time.time() < deadline and not self.closed:
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                self.closed = True
                break
            events = self.conn.receive_data(chunk)
            for e in events:
                if auto_ack and isinstance(e, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
            self.events += events
            seen += events
            self.flush()
        return seen

    def request(self, method, path, headers=(), body=b"", end=True):
        sid = self.conn.get_next_available_stream_id()
        hdrs = [(":method", method), (":scheme", "http"), (":authority", self.host), (":path", path), *headers]
        self.conn.send_headers(sid, hdrs, end_stream=end and not body)
        self.flush()
        self.send_body(sid, body, end)
        return sid

    def send_body(self, sid, body, end=True):
        """Sends `body` within the server's flow-control windows, waiting for WINDOW_UPDATEs."""
        while body:
            window = min(self.conn.local_flow_control_window(sid), self.conn.max_outbound_frame_size)
            if window <= 0:
                self.pump(lambda: self.conn.local_flow_control_window(sid) > 0, timeout=10)
                if self.conn.local_flow_control_window(sid) <= 0:
                    raise TimeoutError("the server never opened its receive window")
                continue
            chunk, body = body[:window], body[window:]
            self.conn.send_data(sid, chunk, end_stream=end and not body)
            self.flush()

    def response(self, sid, timeout=10.0):
        """(headers dict, body bytes, trailers dict) of a finished stream."""
        def done():
            return any(isinstance(e, (h2.events.StreamEnded, h2.events.StreamReset)) and e.stream_id == sid for e in self.events)
        self.pump(done, timeout)
        headers, body, trailers = {}, b"", {}
        for e in self.events:
            if getattr(e, "stream_id", None) != sid:
                continue
            if isinstance(e, h2.events.ResponseReceived):
                headers = dict(e.headers)
            elif isinstance(e, h2.events.DataReceived):
                body += e.data
            elif isinstance(e, h2.events.TrailersReceived):
                trailers = dict(e.headers)
        return headers, body, trailers

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def grpc_frame(message: bytes) -> bytes:
    """A gRPC length-prefixed message (uncompressed)."""
    return b"\x00" + struct.pack(">I", len(message)) + message


def grpc_headers(method, extra=()):
    return [("content-type", "application/grpc"), ("te", "trailers"), *extra]
