"""Per-project controls: the clock, faults, rules, and the logs a test asserts on."""
from __future__ import annotations

import datetime

__all__ = ["Clock", "Faults", "Rules", "rfc3339"]


def rfc3339(value):
    """A datetime (naive means UTC) or string as RFC 3339 text."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    raise TypeError(f"expected a datetime or an RFC 3339 string, got {type(value).__name__}")


def parse_time(text):
    """RFC 3339 text (as the emulator writes it) as an aware datetime."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


class Clock:
    """The project's clock (``/emulator/v1/projects/{p}/clock``): everything time-dependent in
    the project (token expiry, server timestamps, TOTP, ``request.time``) reads it."""

    def __init__(self, project):
        self._p = project

    def _path(self, suffix=""):
        return f"/emulator/v1/projects/{self._p.project_id}/clock{suffix}"

    def now(self):
        """The project's current time as an aware datetime."""
        return parse_time(self._p.control.get(self._path())["time"])

    def freeze(self, at=None):
        """Stops the clock at ``at`` (a datetime or RFC 3339 text; default: now). Returns the time."""
        body = {"mode": "frozen"}
        if at is not None:
            body["time"] = rfc3339(at)
        self._p._touched.add("clock")
        return parse_time(self._p.control.put(self._path(), body)["time"])

    def advance(self, seconds):
        """Moves the clock forward (frozen or not). Returns the new time."""
        self._p._touched.add("clock")
        return parse_time(self._p.control.post(self._path(":advance"), {"seconds": seconds})["time"])

    def system(self):
        """Back to the system time with no offset."""
        return parse_time(self._p.control.put(self._path(), {"mode": "system"})["time"])


class Faults:
    """Injected faults (``/emulator/v1/projects/{p}/faults``), e.g.
    ``faults.add("firestore", method="commit", status="ABORTED", times=2)``."""

    def __init__(self, project):
        self._p = project

    def _path(self, suffix=""):
        return f"/emulator/v1/projects/{self._p.project_id}/faults{suffix}"

    def add(self, service, method=None, path=None, function=None, status=None, message=None,
            delay_ms=None, times=None, probability=None):
        """Adds one rule; returns it (with its ``id``). ``service`` is firestore, auth or functions."""
        match = {"service": service}
        for k, v in (("method", method), ("path", path), ("function", function)):
            if v is not None:
                match[k] = v
        body = {"match": match}
        if status is not None:
            body["error"] = {"status": status, **({"message": message} if message else {})}
        for k, v in (("delayMs", delay_ms), ("times", times), ("probability", probability)):
            if v is not None:
                body[k] = v
        self._p._touched.add("faults")
        return self._p.control.post(self._path(), body)

    def list(self):
        """Every rule with ``fired`` and ``remaining``."""
        return self._p.control.get(self._path())["faults"]

    def clear(self):
        """Removes every rule."""
        self._p.control.delete(self._path())


class Rules:
    """The project's Security Rules: ``set`` a ruleset for this project only, read the
    evaluation log, judge hypothetical requests."""

    def __init__(self, project):
        self._p = project

    def set(self, source, file_name="firestore.rules"):
        """Replaces the project's rules (400 with the diagnostics when they do not compile)."""
        self._p._touched.add("rules")
        self._p.control.put(f"/emulator/v1/projects/{self._p.project_id}:securityRules",
                            {"rules": {"files": [{"name": file_name, "content": source}]}})

    def get(self):
        """The source in force (None for the open development default)."""
        files = self._p.control.get(f"/emulator/v1/projects/{self._p.project_id}:securityRules")["rules"]["files"]
        return files[0]["content"] if files else None

    def evaluations(self, outcome=None, method=None, path=None, caller=None, page_size=1000):
        """The project's rules evaluation log, newest first (each with ``outcome``, ``method``,
        ``path``, ``caller``, ``explanation``, ``deciding``)."""
        params = {k: v for k, v in (("outcome", outcome), ("method", method), ("path", path), ("caller", caller)) if v}
        params["pageSize"] = page_size
        return self._p.control.get(f"/emulator/v1/projects/{self._p.project_id}/rulesEvaluations", params=params)["evaluations"]

    def denials(self):
        """The denied requests, newest first."""
        return self.evaluations(outcome="deny")

    def clear_log(self):
        """Empties the evaluation log."""
        self._p.control.delete(f"/emulator/v1/projects/{self._p.project_id}/rulesEvaluations")

    def evaluate(self, method, path, auth=None, resource=None, request_resource=None, time=None):
        """Judges a hypothetical request without touching data: ``{"allowed", "explanation"}``.
        ``auth`` is None (signed out) or ``{"uid": ..., "token": {...}}``; data as plain JSON."""
        body = {"method": method, "path": path, "auth": auth}
        if resource is not None:
            body["resource"] = resource
        if request_resource is not None:
            body["requestResource"] = request_resource
        if time is not None:
            body["time"] = rfc3339(time)
        return self._p.control.post(f"/emulator/v1/projects/{self._p.project_id}:evaluateRules", body)

    def coverage(self):
        """Per-expression counters of the rules in force (``{"file", "expressions": [...]}``)."""
        return self._p.control.get(f"/emulator/v1/projects/{self._p.project_id}:ruleCoverage")
