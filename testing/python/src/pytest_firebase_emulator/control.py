"""The emulator's control plane (``/emulator/v1``) over HTTP, with one keep-alive session.

Only ``requests`` and the standard library: the Firebase clients stay the user's choice.
"""
from __future__ import annotations

import threading

import requests

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


class ControlPlane:
    """Calls ``http://host:port`` with JSON bodies and decodes the answers. One ``requests.Session``
    per thread (a Session is not documented as thread-safe), so fixtures and helper threads may share
    the object. ``admin_token`` is sent as ``Authorization: Bearer`` on ``/emulator/...`` calls."""

    def __init__(self, host, admin_token=None, timeout=30.0):
        self.host = host
        self.url = f"http://{host}"
        self.admin_token = admin_token
        self.timeout = timeout
        self._local = threading.local()

    @property
    def session(self):
        s = getattr(self._local, "session", None)
        if s is None:
            s = requests.Session()
            s.trust_env = False  # proxies from the environment must never see loopback traffic
            self._local.session = s
        return s

    def call(self, method, path, json=None, params=None, headers=None, ok=(200,), timeout=None):
        """Sends one request and returns the decoded JSON body (or text, or None when empty).
        Raises EmulatorError unless the status is in ``ok``."""
        h = dict(headers or {})
        if self.admin_token and path.startswith("/emulator/") and "Authorization" not in h:
            h["Authorization"] = f"Bearer {self.admin_token}"
        r = self.session.request(method, self.url + path, json=json, params=params, headers=h,
                                 timeout=timeout or self.timeout)
        body = _decode(r)
        if r.status_code not in ok:
            raise EmulatorError(method, path, r.status_code, body)
        return body

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


def _decode(r):
    if not r.content:
        return None
    if "json" in r.headers.get("Content-Type", ""):
        try:
            return r.json()
        except ValueError:
            pass
    return r.text
