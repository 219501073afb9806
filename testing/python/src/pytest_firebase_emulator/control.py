"""The emulator's control plane (``/emulator/v1``) and the other APIs the fixtures call, over
HTTP/1.1 with keep-alive connections from the standard library.

``http.client`` rather than ``requests`` on purpose: each request goes out in one write (requests,
through urllib3 2, writes the headers and the body separately), and the per-call overhead is a
fraction of requests', which matters for a fixture that runs before every test.
"""
from __future__ import annotations

import http.client
import json as jsonlib
import threading
import urllib.parse

__all__ = ["ControlPlane", "EmulatorError"]


class EmulatorError(Exception):
    """A control-plane or API call the emulator refused: ``status`` (HTTP), ``code`` (the canonical
    code such as ``NOT_FOUND``, when the body has one), ``message`` and the decoded ``body``."""

    def __init__(self, method, path, status, body):
        self.status = status
        self.body = body
        err = body.get("error") if isinstance(body, dict) else None
        err = err if isinstance(err, dict) else {}
        self.code = err.get("status")
        self.message = err.get("message") or (body if isinstance(body, str) else "")
        super().__init__(f"{method} {path} -> {status} {self.code or ''}: {self.message}".rstrip(": "))


class _Connection(http.client.HTTPConnection):
    """An HTTPConnection that sends a whole request (line, headers and body) in one write:
    ``http.client`` writes the headers and the body separately, which costs the server a second
    wake-up per request (and a delayed-ACK stall where Nagle is on)."""

    _pending = None

    def send(self, data):
        if self._pending is None or not isinstance(data, (bytes, bytearray)):
            return super().send(data)
        if self.sock is None:
            self.connect()
        self._pending += data

    def request_in_one_write(self, method, target, body, headers):
        self._pending = bytearray()
        try:
            self.request(method, target, body=body, headers=headers)
            data = bytes(self._pending)
        finally:
            self._pending = None
        self.sock.sendall(data)


class ControlPlane:
    """Calls ``http://host:port`` with JSON bodies and decodes the answers. One keep-alive
    connection per thread, so fixtures and helper threads may share the object. ``admin_token``
    is sent as ``Authorization: Bearer`` on ``/emulator/...`` calls."""

    def __init__(self, host, admin_token=None, timeout=30.0):
        self.host = host
        self.url = f"http://{host}"
        self.admin_token = admin_token
        self.timeout = timeout
        hostname, _, port = host.rpartition(":")
        self._address = (hostname.strip("[]") or "127.0.0.1", int(port))
        self._local = threading.local()

    def _connection(self, timeout):
        c = getattr(self._local, "connection", None)
        if c is None:
            c = _Connection(*self._address, timeout=timeout)
            self._local.connection = c
        c.timeout = timeout
        if c.sock is not None:
            c.sock.settimeout(timeout)
        return c

    def _drop(self):
        c = getattr(self._local, "connection", None)
        self._local.connection = None
        if c is not None:
            c.close()

    def call(self, method, path, json=None, params=None, headers=None, ok=(200,), timeout=None):
        """Sends one request and returns the decoded JSON body (or text, or None when empty).
        Raises EmulatorError unless the status is in ``ok``."""
        h = {"Accept": "application/json"}
        h.update(headers or {})
        if self.admin_token and path.startswith("/emulator/") and "Authorization" not in h:
            h["Authorization"] = f"Bearer {self.admin_token}"
        body = None
        if json is not None:
            body = jsonlib.dumps(json).encode()
            h["Content-Type"] = "application/json"
        target = path + ("?" + urllib.parse.urlencode(params) if params else "")
        for attempt in (1, 2):
            c = self._connection(timeout or self.timeout)
            try:
                c.request_in_one_write(method, target, body, h)
                r = c.getresponse()
                data = r.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, http.client.CannotSendRequest):
                # A keep-alive connection the server closed meanwhile: one fresh connection, once.
                self._drop()
                if attempt == 2:
                    raise
            except Exception:
                self._drop()
                raise
        if r.getheader("Connection", "").lower() == "close":
            self._drop()
        decoded = _decode(data, r.getheader("Content-Type", ""))
        if r.status not in ok:
            raise EmulatorError(method, path, r.status, decoded)
        return decoded

    def get(self, path, **kw):
        return self.call("GET", path, **kw)

    def post(self, path, json=None, **kw):
        return self.call("POST", path, json={} if json is None else json, **kw)

    def put(self, path, json=None, **kw):
        return self.call("PUT", path, json={} if json is None else json, **kw)

    def patch(self, path, json=None, **kw):
        return self.call("PATCH", path, json={} if json is None else json, **kw)

    def delete(self, path, **kw):
        return self.call("DELETE", path, **kw)


def _decode(data, content_type):
    if not data:
        return None
    text = data.decode("utf-8", "replace")
    if "json" in content_type:
        try:
            return jsonlib.loads(text)
        except ValueError:
            pass
    return text
