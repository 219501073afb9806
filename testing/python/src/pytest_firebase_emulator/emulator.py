"""Finding or starting the emulator process a test session uses.

Order: an emulator named by the environment (``FIREBASE_EMULATOR_HUB``, else
``FIRESTORE_EMULATOR_HOST``, as ``emulator exec`` sets them) is used as it is; otherwise the binary
(``--firebase-emulator-bin``, the ``firebase_emulator_bin`` ini option, ``FIREBASE_EMULATOR_BIN``, or
``emulator`` on ``PATH``) is started on port 0 and stopped at the end. Its log goes to a file, so
a failing test can show the lines written while it ran, even from another xdist worker.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from .control import ControlPlane, EmulatorError

__all__ = ["FirebaseEmulator", "EmulatorNotFound", "find_binary", "environment_host"]

ENV_VARS = ("FIREBASE_AUTH_EMULATOR_HOST", "FIRESTORE_EMULATOR_HOST", "FIREBASE_EMULATOR_HUB")


class EmulatorNotFound(RuntimeError):
    """No running emulator is named by the environment and no binary could be found or started."""


def environment_host(env=None):
    """The host:port of an emulator named by the environment, or None."""
    env = os.environ if env is None else env
    for name in ("FIREBASE_EMULATOR_HUB", "FIRESTORE_EMULATOR_HOST"):
        value = (env.get(name) or "").strip()
        if value:
            return value.removeprefix("http://").rstrip("/")
    return None


def find_binary(configured=None):
    """The emulator binary to start: the configured path, ``FIREBASE_EMULATOR_BIN``, or ``emulator``
    on PATH. Returns None when none exists."""
    for candidate in (configured, os.environ.get("FIREBASE_EMULATOR_BIN")):
        if candidate:
            path = shutil.which(candidate) or (candidate if os.path.isfile(candidate) else None)
            if path:
                return os.path.abspath(path)
            raise EmulatorNotFound(f"the configured emulator binary '{candidate}' does not exist")
    return shutil.which("emulator")


class FirebaseEmulator:
    """A running emulator: ``host`` ("127.0.0.1:PORT"), ``url``, ``project_id`` (its default
    project), ``control`` (the control-plane client), and when this session started it, the process
    and ``log_path``. Value of the session fixture ``firebase_emulator``."""

    def __init__(self, host, project_id=None, admin_token=None, process=None, log_path=None):
        self.host = host
        self.url = f"http://{host}"
        self.admin_token = admin_token
        self.control = ControlPlane(host, admin_token=admin_token)
        self.process = process
        self.log_path = log_path
        self._project_id = project_id
        self._status = None
        self.delete_supported = True
        self._removals = []
        self._removal_cv = threading.Condition()
        self._removal_thread = None
        self._removing = 0
        self._flushing = False
        self.removal_errors = []

    @property
    def started_here(self):
        """True when this test run started the process (and will stop it)."""
        return self.process is not None

    @property
    def status(self):
        """``GET /emulator/v1/status``, read once."""
        if self._status is None:
            self._status = self.control.get("/emulator/v1/status")
        return self._status

    @property
    def project_id(self):
        """The emulator's default project (the one clients use when they name none)."""
        if self._project_id is None:
            self._project_id = self.status.get("project")
        return self._project_id

    def serves(self, service):
        """True when the emulator reports ``service`` (e.g. "storage") in its status."""
        return service in (self.status.get("services") or {})

    def environment(self):
        """The variables Firebase clients read to find the emulator."""
        return {"FIREBASE_AUTH_EMULATOR_HOST": self.host, "FIRESTORE_EMULATOR_HOST": self.host,
                "FIREBASE_EMULATOR_HUB": self.host, "STORAGE_EMULATOR_HOST": self.url}

    # Removing projects ------------------------------------------------------------------------

    def remove_project(self, project_id):
        """``DELETE /emulator/v1/projects/{p}`` where the emulator has that route; otherwise a reset
        of the project's data (its id is never reused)."""
        if self.delete_supported:
            try:
                self.control.delete(f"/emulator/v1/projects/{project_id}")
                return
            except EmulatorError as e:
                # Without the route the path falls through to another API's 404 (or a 405).
                if e.status not in (404, 405):
                    raise
                self.delete_supported = False
        self.control.post(f"/emulator/v1/projects/{project_id}:reset")

    def remove_later(self, project_id, before=None):
        """Queues ``before()`` (closing the test's clients) and the project's removal for a
        background thread, which works in batches of ``REMOVAL_BATCH``: a test's teardown never waits
        for them, and most tests do not even share the machine with them. ``flush`` does the rest."""
        with self._removal_cv:
            self._removals.append((project_id, before))
            if self._removal_thread is None:
                self._removal_thread = threading.Thread(target=self._remove_loop, name="firebase-project-removal", daemon=True)
                self._removal_thread.start()
            if len(self._removals) >= self.REMOVAL_BATCH:
                self._removal_cv.notify_all()

    REMOVAL_BATCH = 32

    def _remove_loop(self):
        while True:
            with self._removal_cv:
                while len(self._removals) < self.REMOVAL_BATCH and not (self._flushing and self._removals):
                    self._removal_cv.wait()
                batch, self._removals = self._removals, []
                self._removing = len(batch)
            for project_id, before in batch:
                try:
                    if before:
                        before()
                    self.remove_project(project_id)
                except Exception as e:  # reported by the session; a removal never fails a test
                    self.removal_errors.append(f"{project_id}: {e}")
            with self._removal_cv:
                self._removing = 0
                self._removal_cv.notify_all()

    def flush(self, timeout=60.0):
        """Removes every queued project now (bounded by ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self._removal_cv:
            if self._removal_thread is None:
                return
            self._flushing = True
            self._removal_cv.notify_all()
            while (self._removals or self._removing) and time.monotonic() < deadline:
                self._removal_cv.wait(0.05)
            self._flushing = False

    # The log ---------------------------------------------------------------------------------

    def log_offset(self):
        """The current end of the log file (0 when there is none)."""
        try:
            return os.path.getsize(self.log_path) if self.log_path else 0
        except OSError:
            return 0

    def log_since(self, offset, limit=64 * 1024):
        """The log written since ``offset``, at most ``limit`` bytes (the newest ones)."""
        if not self.log_path:
            return ""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                end = f.tell()
                start = max(offset, end - limit)
                f.seek(start)
                text = f.read(end - start).decode("utf-8", "replace")
                return ("[...]\n" if start > offset else "") + text
        except OSError:
            return ""

    # Lifecycle -------------------------------------------------------------------------------

    @classmethod
    def start(cls, binary, args=(), project_id="demo-pytest", cwd=None, log_dir=None, log_level="info",
              ready_timeout=60.0, admin_token=None):
        """Starts ``binary start --port 0`` and waits for its ``emulator ready:`` line."""
        fd, log_path = tempfile.mkstemp(prefix="firebase-emulator-", suffix=".log", dir=log_dir)
        cmd = [binary, "start", "--port", "0", "--log-level", log_level, *args]
        if project_id and "--project" not in args:
            cmd += ["--project", project_id]
        if admin_token and "--admin-token" not in args:
            cmd += ["--admin-token", admin_token]
        with os.fdopen(fd, "wb") as log:
            try:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=cwd,
                                        start_new_session=True)
            except OSError as e:
                raise EmulatorNotFound(f"cannot start {binary}: {e}") from e
        deadline = time.monotonic() + ready_timeout
        while True:
            ready = _ready_line(log_path)
            if ready:
                fields = dict(p.partition("=")[::2] for p in ready.split()[2:])
                host = fields.get("firestore") or fields.get("hub")
                return cls(host, project_id=fields.get("project"), admin_token=admin_token, process=proc, log_path=log_path)
            if proc.poll() is not None or time.monotonic() > deadline:
                _stop(proc)
                with open(log_path, encoding="utf-8", errors="replace") as f:
                    log_text = f.read()
                raise EmulatorNotFound(f"the emulator did not become ready ({' '.join(cmd)}):\n{log_text}")
            time.sleep(0.005)

    def stop(self):
        """Stops the process if this run started it (SIGTERM, then SIGKILL after 15 s)."""
        if self.process is not None:
            _stop(self.process)


def _ready_line(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("emulator ready:"):
                return line
    return None


def _stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
