"""A WebChannel (VER=8) test client of our own, written from the protocol as the Firebase JS SDK
speaks it (docs/webchannel.md): raw HTTP/1.1 over sockets, form-encoded forward POSTs, and
backchannel GETs whose bodies are parsed chunk by chunk the way the browser client does (the
length prefix counts UTF-16 code units of the decoded text). No third-party HTTP library, so a
test controls every byte and can drop a connection in the middle of a chunk."""
import codecs
import json
import random
import socket
import string
import time
import urllib.parse


def encode_component(s):
    """JavaScript's encodeURIComponent."""
    return urllib.parse.quote(s, safe="-_.!~*'()")


def form(fields):
    return "&".join(f"{encode_component(k)}={encode_component(v)}" for k, v in fields).encode()


class BadData(Exception):
    """The body is not a valid chunk sequence (what the client reports as BAD_DATA)."""


class ChunkParser:
    """`channelrequest.js` getNextChunk_: `<size>\\n` then `size` characters (UTF-16 code units)."""

    def __init__(self):
        self.text = ""
        self.pos = 0
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.raw_count = 0
        self.pending = []

    def feed(self, data):
        self.raw_count += len(data)
        self.pending.append(self.decoder.decode(data))

    def _join(self):
        if self.pending:
            self.text = self.text[self.pos:] + "".join(self.pending)
            self.pos = 0
            self.pending = []

    def next(self):
        self._join()
        nl = self.text.find("\n", self.pos)
        if nl < 0:
            return None
        size_text = self.text[self.pos:nl]
        if not size_text.isdigit():
            raise BadData(f"chunk size {size_text!r}")
        size = int(size_text)
        start = nl + 1
        candidate = self.text[start:start + size]
        if candidate.isascii():  # one code unit per character: the common case, and ours always
            if len(candidate) < size:
                return None
            end = start + size
        else:
            units, end = 0, start
            while units < size and end < len(self.text):
                units += 2 if ord(self.text[end]) > 0xFFFF else 1
                end += 1
            if units < size:
                return None
        self.pos = end
        return json.loads(self.text[start:end])


class HTTPStream:
    """One HTTP/1.1 request on its own connection; the response body is read as it arrives."""

    def __init__(self, host, port, method, target, headers=(), body=b"", timeout=10):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        lines = [f"{method} {target} HTTP/1.1", f"Host: {host}:{port}"]
        lines += [f"{k}: {v}" for k, v in headers]
        if method == "POST" or body:
            lines.append(f"Content-Length: {len(body)}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        self.buf = bytearray()
        self.done = False
        self.status, self.headers = self._head()
        te = self.headers.get("transfer-encoding", "")
        self.chunked = "chunked" in te.lower()
        self.remaining = None if self.chunked else int(self.headers.get("content-length", "0"))
        if self.remaining == 0:
            self.done = True

    def _recv(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnectionError("connection closed")
        self.buf += data

    def _head(self):
        while b"\r\n\r\n" not in self.buf:
            self._recv()
        head, rest = bytes(self.buf).split(b"\r\n\r\n", 1)
        self.buf = bytearray(rest)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        return status, headers

    def read_some(self, timeout=None):
        """The next piece of body (b"" at the end). Raises socket.timeout when nothing comes."""
        if self.done:
            return b""
        if timeout is not None:
            self.sock.settimeout(timeout)
        if not self.chunked:
            if not self.buf:
                self._recv()
            piece = bytes(self.buf[:self.remaining])
            del self.buf[:len(piece)]
            self.remaining -= len(piece)
            self.done = self.remaining == 0
            return piece
        while (eol := self.buf.find(b"\r\n")) < 0:
            self._recv()
        size = int(bytes(self.buf[:eol]).split(b";")[0], 16)
        while len(self.buf) < eol + 2 + size + 2:
            self._recv()
        piece = bytes(self.buf[eol + 2:eol + 2 + size])
        del self.buf[:eol + 2 + size + 2]
        if size == 0:
            self.done = True
        return piece

    def read_all(self, timeout=30):
        out = []
        deadline = time.time() + timeout
        while not self.done:
            out.append(self.read_some(timeout=max(0.01, deadline - time.time())))
        return b"".join(out)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def chunks(self):
        p = ChunkParser()
        p.feed(self.body)
        out = []
        while (c := p.next()) is not None:
            out.append(c)
        return out

    def text(self):
        return self.body.decode()


def request(host, port, method, target, headers=(), body=b"", timeout=10):
    s = HTTPStream(host, port, method, target, headers, body, timeout)
    try:
        return Response(s.status, s.headers, s.read_all(timeout))
    finally:
        s.close()


class Backchannel:
    """A backchannel GET being read: `arrays()` returns the arrays received so far."""

    def __init__(self, stream):
        self.stream = stream
        self.parser = ChunkParser()
        self.received = []

    @property
    def status(self):
        return self.stream.status

    def pump(self, timeout):
        """Reads what arrives within `timeout`; returns False once the response has ended."""
        try:
            piece = self.stream.read_some(timeout=timeout)
        except (socket.timeout, TimeoutError):
            return True
        self.parser.feed(piece)
        while (c := self.parser.next()) is not None:
            self.received.extend(c)
        return not self.stream.done

    def wait(self, predicate, timeout=10):
        deadline = time.time() + timeout
        while not predicate(self.received):
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError(f"condition not met; arrays: {self.received}")
            if not self.pump(min(left, 0.5)) and not predicate(self.received):
                raise AssertionError(f"backchannel ended; arrays: {self.received}")
        return self.received

    def until_end(self, timeout=30):
        deadline = time.time() + timeout
        while self.pump(max(0.01, deadline - time.time())):
            if time.time() > deadline:
                raise AssertionError(f"backchannel did not end; arrays: {self.received}")
        return self.received

    def close(self):
        self.stream.close()


def zx():
    return "".join(random.choices(string.ascii_lowercase + string.digits, k=12))


class Channel:
    """One WebChannel session on `/google.firestore.v1.Firestore/<rpc>/channel`, as the SDK drives it."""

    def __init__(self, host, port, rpc, project, database="(default)", origin=None, headers_block=None, ask_session_id=True):
        self.host, self.port, self.rpc = host, port, rpc
        self.database = f"projects/{project}/databases/{database}"
        self.path = f"/google.firestore.v1.Firestore/{rpc}/channel"
        self.origin = origin
        self.headers_block = headers_block if headers_block is not None else {
            "X-Goog-Api-Client": "gl-js/ fire/12.3.0", "Content-Type": "text/plain", "X-Firebase-GMPID": "1:1:web:1"}
        self.ask_session_id = ask_session_id
        self.sid = None
        self.gsessionid = None
        self.rid = random.randrange(0, 100000)
        self.next_map = 0
        self.aid = 0

    def _headers(self, content_type="application/x-www-form-urlencoded"):
        h = [("Content-Type", content_type)]
        if self.origin:
            h.append(("Origin", self.origin))
        return h

    def url(self, **params):
        q = []
        if self.gsessionid and "SID" in params:
            q.append(("gsessionid", self.gsessionid))
        q += [("VER", "8"), ("database", self.database)]
        q += [(k, str(v)) for k, v in params.items() if v is not None]
        q.append(("zx", zx()))
        return self.path + "?" + urllib.parse.urlencode(q, quote_via=urllib.parse.quote, safe="()")

    def body(self, messages, ofs, with_headers=False):
        fields = []
        if with_headers:
            fields.append(("headers", "".join(f"{k}:{v}\r\n" for k, v in self.headers_block.items())))
        fields += [("count", str(len(messages))), ("ofs", str(ofs))]
        fields += [(f"req{i}___data__", m if isinstance(m, str) else json.dumps(m)) for i, m in enumerate(messages)]
        return form(fields)

    def open(self, *messages, raw_body=None):
        """The handshake; returns the response (the session id is kept when it succeeds)."""
        params = {"RID": self.rid, "CVER": 22, "t": 1}
        if self.ask_session_id:
            params["X-HTTP-Session-Id"] = "gsessionid"
        body = raw_body if raw_body is not None else self.body(list(messages), 0, with_headers=True)
        r = request(self.host, self.port, "POST", self.url(**params), self._headers(), body)
        if r.status == 200:
            arrays = r.chunks()[0]
            assert arrays[0][0] == 0 and arrays[0][1][0] == "c", arrays
            self.sid = arrays[0][1][1]
            self.gsessionid = r.headers.get("x-http-session-id")
            self.next_map = len(messages)
        return r

    def send(self, *messages, ofs=None, aid=None, rid=None, t=1, raw_body=None):
        """A forward POST with `messages` (map ids from `ofs`, default: the next ones)."""
        if rid is None:
            self.rid += 1
            rid = self.rid
        if ofs is None:
            ofs = self.next_map
        self.next_map = max(self.next_map, ofs + len(messages))
        body = raw_body if raw_body is not None else self.body(list(messages), ofs)
        url = self.url(SID=self.sid, RID=rid, AID=self.aid if aid is None else aid, t=t)
        return request(self.host, self.port, "POST", url, self._headers(), body)

    def get(self, ci=0, aid=None, timeout=10, to=None):
        """Opens a backchannel GET (CI=0 streaming, CI=1 long-polling)."""
        url = self.url(RID="rpc", SID=self.sid, AID=self.aid if aid is None else aid, CI=ci, TYPE="xmlhttp", TO=to, t=1)
        h = [("Origin", self.origin)] if self.origin else []
        return Backchannel(HTTPStream(self.host, self.port, "GET", url, h, timeout=timeout))

    def poll(self, aid=None, timeout=30):
        """One long-poll GET read to its end; acknowledges what it received."""
        b = self.get(ci=1, aid=aid)
        try:
            assert b.status == 200, b.status
            arrays = b.until_end(timeout)
        finally:
            b.close()
        if arrays:
            self.aid = max(self.aid, arrays[-1][0])
        return arrays

    def terminate(self):
        self.rid += 1
        url = self.url(SID=self.sid, RID=self.rid, TYPE="terminate")
        return request(self.host, self.port, "POST", url, self._headers("text/plain;charset=UTF-8"), b"")


def messages(arrays):
    """The Firestore messages of backchannel arrays (noops dropped): [id, [msg]] -> msg."""
    return [a[1][0] for a in arrays if a[1] != ["noop"]]
