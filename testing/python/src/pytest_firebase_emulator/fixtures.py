"""The fixtures: the session's emulator, a fresh project per test (or a shared one), per-module
projects and snapshots, and shortcuts to the project's clients and controls."""
from __future__ import annotations

import contextlib
import os
import pathlib
import re
import tempfile

import pytest

from .emulator import EmulatorNotFound
from .indexes import INDEX_COLLECTOR_KEY
from .project import FirebaseProject, close_clients, new_project_id
from .session import _isolation, _session_emulator


# Fixtures ------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def firebase_emulator(pytestconfig):
    """The running emulator (session): ``.host`` (host:port), ``.url``, ``.project_id``,
    ``.control``. Sets FIREBASE_AUTH_EMULATOR_HOST, FIRESTORE_EMULATOR_HOST and
    FIREBASE_EMULATOR_HUB for the session when they are not set."""
    problem = None
    try:
        emu = _session_emulator(pytestconfig)
    except EmulatorNotFound as e:
        problem = str(e)
    if problem:
        pytest.fail(problem, pytrace=False)
    collector = pytestconfig.stash.get(INDEX_COLLECTOR_KEY, None)
    if collector is not None:
        emu.index_collector = collector
    missing = {k: v for k, v in emu.environment().items() if not os.environ.get(k)}
    os.environ.update(missing)
    try:
        yield emu
    finally:
        emu.flush()
        for k in missing:
            os.environ.pop(k, None)
        if emu.removal_errors:
            import warnings
            warnings.warn(f"{len(emu.removal_errors)} test project(s) could not be removed, e.g. {emu.removal_errors[0]}")


def _marker(request):
    m = request.node.get_closest_marker("firebase")
    return dict(m.kwargs) if m else {}


def _configure(project, options, request):
    if options.get("rules_file"):
        base = pathlib.Path(str(request.node.fspath)).parent
        project.rules.set((base / options["rules_file"]).read_text(), file_name=pathlib.Path(options["rules_file"]).name)
    if options.get("rules"):
        project.rules.set(options["rules"])
    if options.get("seed") is not None:
        project.seed(options["seed"])
    if options.get("clock") is not None:
        project.clock.freeze(options["clock"])


def _remove(project):
    """Removes a fresh project after its test, off the test's critical path: its clients are closed
    and the project deleted (or reset, where the emulator cannot delete projects) on a background
    thread; the session waits for them at its end."""
    clients = project.take_clients()
    collector = getattr(project.emulator, "index_collector", None)

    def before():
        close_clients(clients)
        if collector is not None:
            collector.collect(project.control, project.project_id)
    project.emulator.remove_later(project.project_id, before=before)


def _undo(project):
    """Puts a shared project back: data reset, clock on system time, faults cleared, seed dropped."""
    project.close_clients()
    collector = getattr(project.emulator, "index_collector", None)
    if collector is not None:
        collector.collect(project.control, project.project_id)
    project.reset()
    if "clock" in project._touched:
        project.clock.system()
    if "faults" in project._touched:
        project.faults.clear()
    if "seed" in project._touched:
        project.seed(None)
    project._touched.clear()


@contextlib.contextmanager
def _exclusive(emu, project_id):
    """One test at a time on a shared project, across xdist workers (an flock on a temp file)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no cross-process lock
        yield
        return
    name = re.sub(r"[^A-Za-z0-9.-]+", "_", f"pytest-firebase-{emu.host}-{project_id}.lock")
    with open(os.path.join(tempfile.gettempdir(), name), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@pytest.fixture
def firebase_project(request, firebase_emulator, pytestconfig):
    """A project of its own for this test (registered with its API key, removed afterwards), with
    ready clients: ``.project_id``, ``.firestore``, ``.async_firestore``, ``.app``, ``.auth``,
    ``.create_user()``, ``.clock``, ``.faults``, ``.rules``, ``.wait_idle()`` and more (see
    FirebaseProject). ``@pytest.mark.firebase(shared=True)`` or ``--firebase-isolation=reset`` use a
    shared project reset after the test instead."""
    options = _marker(request)
    shared = options.get("shared") or _isolation(pytestconfig) == "reset"
    if shared:
        pid = options.get("project_id") or (firebase_emulator.project_id if options.get("shared")
                                            else f"shared-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}")
        project = FirebaseProject(firebase_emulator, pid)
        with _exclusive(firebase_emulator, pid):
            project.register()
            _configure(project, options, request)
            try:
                yield project
            finally:
                _undo(project)
        return
    project = FirebaseProject(firebase_emulator, new_project_id("t", request.node.name)).register()
    try:
        _configure(project, options, request)
        yield project
    finally:
        _remove(project)


@pytest.fixture(scope="module")
def firebase_module_project(request, firebase_emulator):
    """A fresh project shared by the tests of one module (removed after the module)."""
    project = FirebaseProject(firebase_emulator, new_project_id("m", request.module.__name__.rpartition(".")[2])).register()
    yield project
    _remove(project)


@pytest.fixture(scope="module")
def _firebase_seeded_projects(firebase_emulator):
    projects = {}
    yield projects
    for project in projects.values():
        _remove(project)


@pytest.fixture
def firebase_snapshot(_firebase_seeded_projects, firebase_emulator, request):
    """Seed once per module, restore per test: ``project = firebase_snapshot(seed)`` runs
    ``seed(project)`` in a fresh project the first time in a module and saves a snapshot; every
    later call restores it (a pointer swap). Clock, faults and seed changes are undone after the
    test; set rules inside ``seed``, not in the tests."""
    used = []

    def restore(seed, name=None):
        key = name or getattr(seed, "__qualname__", repr(seed))
        project = _firebase_seeded_projects.get(key)
        if project is None:
            hint = re.sub(r"[^a-z0-9]+", "-", key.lower())
            project = FirebaseProject(firebase_emulator, new_project_id("s", hint)).register()
            seed(project)
            project.wait_idle()
            project.snapshot("seed")
            _firebase_seeded_projects[key] = project
        else:
            project.restore("seed")
        used.append(project)
        return project

    yield restore
    for project in used:
        project.close_clients()
        if "clock" in project._touched:
            project.clock.system()
        if "faults" in project._touched:
            project.faults.clear()
        if "seed" in project._touched:
            project.seed(None)
        project._touched.clear()


@pytest.fixture
def firestore_client(firebase_project):
    """``firebase_project.firestore``: a google.cloud.firestore.Client bound to the test's project."""
    return firebase_project.firestore


@pytest.fixture
def firestore_async_client(firebase_project):
    """``firebase_project.async_firestore``: an AsyncClient bound to the test's project."""
    return firebase_project.async_firestore


@pytest.fixture
def firebase_app(firebase_project):
    """``firebase_project.app``: a firebase-admin App for the test's project."""
    return firebase_project.app


@pytest.fixture
def firebase_auth(firebase_project):
    """``firebase_project.auth``: firebase-admin's auth functions bound to the project's app."""
    return firebase_project.auth


@pytest.fixture
def firebase_users(firebase_project):
    """``firebase_project.users``: ``.anonymous()``, ``.password()``, ``.idp("apple.com")``,
    ``.custom(claims=...)``, ``.mfa()``, ``.id_token(uid)``, ``.custom_token(uid)``."""
    return firebase_project.users


@pytest.fixture
def firebase_rules(firebase_project):
    """``firebase_project.rules``: ``.set(source)`` loads a ruleset for this test only;
    ``.evaluations()``, ``.denials()``, ``.evaluate(...)``, ``.coverage()``."""
    return firebase_project.rules


@pytest.fixture
def firebase_clock(firebase_project):
    """``firebase_project.clock``: ``.freeze(at=None)``, ``.advance(seconds)``, ``.now()``."""
    return firebase_project.clock


@pytest.fixture
def firebase_faults(firebase_project):
    """``firebase_project.faults``: ``.add(service, method=, path=, status=, delay_ms=, times=)``."""
    return firebase_project.faults
