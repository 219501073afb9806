"""A project of the emulator as a test sees it: its id, ready clients bound to it, and its
controls. Value of the ``firebase_project`` fixture."""
from __future__ import annotations

import functools
import inspect
import itertools
import os
import re
import threading
import uuid

from .control import EmulatorError
from .controls import Clock, Faults, Rules
from .users import Users

__all__ = ["FirebaseProject", "BoundAuth", "new_project_id"]

_counter = itertools.count(1)
_counter_lock = threading.Lock()


def new_project_id(prefix="t", hint=""):
    """A unique, valid project id: ``<prefix>-<hint>-<worker><n>-<random>`` (at most 60 characters),
    readable in the web UI's project list."""
    with _counter_lock:
        n = next(_counter)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    hint = re.sub(r"[^a-z0-9]+", "-", hint.lower()).strip("-")[:28]
    parts = [prefix, hint, f"{worker}{n}", uuid.uuid4().hex[:6]]
    return "-".join(p for p in parts if p)


class BoundAuth:
    """firebase-admin's ``auth`` module with every function that takes ``app=`` bound to the
    project's app: ``project.auth.create_user(...)``, ``project.auth.verify_id_token(token)``.
    Everything else (error classes, ``UserRecord``) is the module's own."""

    def __init__(self, app):
        from firebase_admin import auth
        self._auth = auth
        self._app = app

    def __getattr__(self, name):
        attr = getattr(self._auth, name)
        if inspect.isfunction(attr) and "app" in inspect.signature(attr).parameters:
            return functools.partial(attr, app=self._app)
        return attr


class FirebaseProject:
    """One project in the running emulator.

    Public contract (kept stable): ``project_id``, ``api_key``, ``firestore``
    (``google.cloud.firestore.Client``), ``async_firestore`` (``AsyncClient``), ``app`` (a
    firebase-admin App), ``auth`` (its ``auth`` functions bound to the app), ``storage`` (a
    ``google.cloud.storage.Client``; the project's default bucket is ``{project_id}.appspot.com``), ``create_user(...)``,
    ``id_token(...)``, ``clock`` (``freeze``, ``advance``, ``now``, ``system``), ``faults``,
    ``rules``, ``seed(n)``, ``snapshot(name)``, ``restore(name)``, ``reset()``, ``wait_idle()``,
    ``invocations()``, ``oob_codes()``, ``sms_codes()``, ``call(...)``, ``url``, ``documents_url``.
    Clients are created on first use and closed when the test ends."""

    def __init__(self, emulator, project_id, api_key=None):
        self.emulator = emulator
        self.control = emulator.control
        self.project_id = project_id
        self.api_key = api_key or f"key-{project_id}"
        self.clock = Clock(self)
        self.faults = Faults(self)
        self.rules = Rules(self)
        self.users = Users(self)
        self._touched = set()
        self._clients = {}

    def __repr__(self):
        return f"<FirebaseProject {self.project_id} at {self.emulator.host}>"

    @property
    def url(self):
        """``http://host:port`` of the emulator (every port serves every API)."""
        return self.emulator.url

    @property
    def documents_url(self):
        """The Firestore REST base of the project's default database
        (``.../v1/projects/{p}/databases/(default)/documents``), for requests made as a user."""
        return f"{self.emulator.url}/v1/projects/{self.project_id}/databases/(default)/documents"

    # Lifecycle (used by the fixtures) ---------------------------------------------------------

    def register(self):
        """Registers the project and its API key (client Auth calls select it by key)."""
        self.control.post("/emulator/v1/projects", {"projectId": self.project_id, "apiKey": self.api_key})
        return self

    def close_clients(self):
        """Closes the clients this project created (gRPC channels, the firebase-admin app)."""
        clients, self._clients = self._clients, {}
        close_clients(clients)

    def take_clients(self):
        """Hands over the clients created so far (to be closed elsewhere); the project starts afresh."""
        clients, self._clients = self._clients, {}
        return clients

    # Clients -----------------------------------------------------------------------------------

    def _client(self, name, make):
        if name not in self._clients:
            self._clients[name] = make()
        return self._clients[name]

    @property
    def firestore(self):
        """A ``google.cloud.firestore.Client`` bound to this project (gRPC, admin rights)."""
        def make():
            from google.cloud import firestore
            return firestore.Client(project=self.project_id, credentials=_anonymous_credentials())
        return self._client("firestore", make)

    @property
    def async_firestore(self):
        """A ``google.cloud.firestore.AsyncClient`` bound to this project."""
        def make():
            from google.cloud import firestore
            return firestore.AsyncClient(project=self.project_id, credentials=_anonymous_credentials())
        return self._client("async_firestore", make)

    @property
    def app(self):
        """A firebase-admin App for this project (named after it)."""
        def make():
            import firebase_admin
            return firebase_admin.initialize_app(_EmulatorCredential(), {"projectId": self.project_id}, name=self.project_id)
        return self._client("app", make)

    @property
    def auth(self):
        """firebase-admin's ``auth`` functions bound to ``app``: ``project.auth.get_user(uid)``."""
        return self._client("auth", lambda: BoundAuth(self.app))

    @property
    def storage(self):
        """A ``google.cloud.storage.Client`` for this project, once the emulator serves Storage."""
        if not self.emulator.serves("storage"):
            raise RuntimeError("this emulator does not serve Cloud Storage yet (no 'storage' in /emulator/v1/status)")

        def make():
            from google.cloud import storage
            return storage.Client(project=self.project_id, credentials=_anonymous_credentials(),
                                  client_options={"api_endpoint": self.url})
        return self._client("storage", make)

    # Users -------------------------------------------------------------------------------------

    def create_user(self, uid=None, **kind):
        """Creates a signed-in user and returns a ``TestUser`` (``uid, token = ...`` unpacks it).
        Kinds: default (custom token; ``uid`` optional), ``anonymous=True``, ``email=``/``password=``,
        ``provider="apple.com"`` or ``"google.com"``, ``mfa_phone="+15555550100"``; ``claims={...}``
        become custom claims in the token. See ``Users.create``."""
        return self.users.create(uid, **kind)

    def id_token(self, uid=None, claims=None):
        """A fresh ID token for ``uid`` (created if missing) via a custom token."""
        return self.users.id_token(uid, claims)

    # Control plane -----------------------------------------------------------------------------

    def _admin_path(self, suffix):
        return f"/emulator/v1/projects/{self.project_id}{suffix}"

    def seed(self, seed):
        """Seeds generated ids, uids and codes (``None``: system randomness)."""
        self._touched.add("seed")
        self.control.put(self._admin_path("/seed"), {"seed": seed})

    def reset(self):
        """Clears the project's data in every service (keeps rules, clock, seed and faults)."""
        self.control.post(self._admin_path(":reset"))

    def snapshot(self, name):
        """Saves the project's data under ``name`` (in memory; a pointer swap)."""
        self.control.post(self._admin_path("/snapshots"), {"name": name})

    def restore(self, name):
        """Puts a saved snapshot back."""
        self.control.post(self._admin_path(f"/snapshots/{name}:restore"))

    def wait_idle(self, timeout=10.0):
        """Returns once no function event of the project is queued or running; raises
        ``TimeoutError`` naming the pending events otherwise."""
        try:
            self.control.get(self._admin_path(":idle"), params={"timeoutMs": int(timeout * 1000)}, timeout=timeout + 30)
        except EmulatorError as e:
            if e.status == 408:
                raise TimeoutError(e.message) from None
            raise

    def invocations(self):
        """Function invocations, newest first (``function``, ``trigger``, ``outcome``, ``logs``, ...)."""
        return self.control.get(self._admin_path("/functions/logs")).get("invocations", [])

    def oob_codes(self):
        """Email action codes sent so far (``email``, ``oobCode``, ``oobLink``, ``requestType``)."""
        return self.control.get(self._admin_path("/oobCodes")).get("oobCodes", [])

    def sms_codes(self):
        """SMS verification codes sent so far (``phoneNumber``, ``code``, ``sessionInfo``)."""
        return self.control.get(self._admin_path("/verificationCodes")).get("verificationCodes", [])

    def call(self, function, data=None, user=None, region="us-central1"):
        """Calls a callable function as the client SDKs do; returns ``result`` or raises
        EmulatorError with the function's error."""
        headers = user.headers if hasattr(user, "headers") else ({"Authorization": f"Bearer {user}"} if user else {})
        return self.control.post(f"/{self.project_id}/{region}/{function}", {"data": data}, headers=headers)["result"]


def close_clients(clients):
    """Closes clients made by ``FirebaseProject``: the firebase-admin app is deleted, Firestore and
    Storage clients closed (an AsyncClient's channel goes with its event loop)."""
    for name, client in clients.items():
        try:
            if name == "app":
                import firebase_admin
                firebase_admin.delete_app(client)
            elif name in ("firestore", "storage"):
                client.close()
        except Exception:  # closing is best effort; the emulator side is removed anyway
            pass


class _EmulatorCredential:
    """A firebase-admin credential that never fetches anything (the emulator accepts ``owner``)."""

    def __new__(cls):
        from firebase_admin import credentials

        class Credential(credentials.Base):
            def get_credential(self):
                from firebase_admin import _utils
                return _utils.EmulatorAdminCredentials()
        return Credential()


def _anonymous_credentials():
    from google.auth.credentials import AnonymousCredentials
    return AnonymousCredentials()
