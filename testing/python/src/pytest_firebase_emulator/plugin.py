"""The pytest plugin: options, the xdist hand-over, fixtures, failure logs and the end-of-session
report. Registered through the ``pytest11`` entry point ``firebase_emulator`` (disable it with
``-p no:firebase_emulator``)."""
from __future__ import annotations

import contextlib
import json
import os
import pathlib
import re
import tempfile

import pytest

from .control import EmulatorError
from .emulator import EmulatorNotFound, FirebaseEmulator, environment_host, find_binary
from .project import FirebaseProject, close_clients, new_project_id

EMULATOR_KEY = pytest.StashKey[FirebaseEmulator]()
OFFSET_KEY = pytest.StashKey[int]()
WORKER_INPUT = "firebase_emulator"


# Options -------------------------------------------------------------------------------------

def pytest_addoption(parser):
    group = parser.getgroup("firebase-emulator", "Firebase-style emulator (pytest-firebase-emulator)")
    group.addoption("--firebase-emulator-bin", default=None,
                    help="emulator binary to start when no emulator is named by FIREBASE_EMULATOR_HUB/FIRESTORE_EMULATOR_HOST "
                         "(default: the firebase_emulator_bin ini option, $FIREBASE_EMULATOR_BIN, or 'emulator' on PATH)")
    group.addoption("--firebase-isolation", choices=("project", "reset"), default=None,
                    help="'project' (default): every test gets a fresh project; 'reset': tests share one project per "
                         "worker, reset after each test")
    group.addoption("--firebase-rules-coverage", action="store_true", default=False,
                    help="print which expressions of the emulator's rules file the session evaluated")
    parser.addini("firebase_emulator_bin", "emulator binary to start (path or name on PATH)", default="")
    parser.addini("firebase_emulator_args", "extra arguments for 'emulator start', e.g. --config emulator.json "
                  "(run from the rootdir)", type="args", default=[])
    parser.addini("firebase_emulator_project", "default project of a started emulator", default="demo-pytest")
    parser.addini("firebase_emulator_log_level", "log level of a started emulator (debug, the default, logs every "
                  "request, which a failing test's report shows)", default="debug")
    parser.addini("firebase_emulator_admin_token", "admin token of the emulator (--admin-token), if it has one", default="")
    parser.addini("firebase_isolation", "'project' (default) or 'reset'", default="project")
    parser.addini("firebase_emulator_share_across_workers", "with pytest-xdist, start one emulator in the controller "
                  "for every worker (default true)", type="bool", default=True)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "firebase(shared=False, project_id=None, rules=None, rules_file=None, seed=None, clock=None): configures the "
        "test's firebase_project: shared=True uses the emulator's own project (reset afterwards, one test at a time "
        "across xdist workers), rules/rules_file load a ruleset, seed seeds ids, clock freezes the project clock")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistController(config), "firebase-emulator-xdist")


def pytest_unconfigure(config):
    emu = config.stash.get(EMULATOR_KEY, None)
    if emu is not None and emu.started_here and not hasattr(config, "workerinput"):
        emu.stop()


def _ini(config, name):
    return config.getini(name)


def _isolation(config):
    return config.getoption("--firebase-isolation") or _ini(config, "firebase_isolation") or "project"


def _start(config):
    """Starts the binary as configured (raises EmulatorNotFound with what to do)."""
    binary = find_binary(config.getoption("--firebase-emulator-bin") or _ini(config, "firebase_emulator_bin") or None)
    if not binary:
        raise EmulatorNotFound(
            "no emulator: run the tests under 'emulator exec -- pytest ...', set FIREBASE_EMULATOR_HUB to a running "
            "emulator's host:port, or install the 'emulator' binary on PATH (or set --firebase-emulator-bin, the "
            "firebase_emulator_bin ini option, or FIREBASE_EMULATOR_BIN)")
    return FirebaseEmulator.start(binary, args=_ini(config, "firebase_emulator_args"), cwd=str(config.rootpath),
                                  project_id=_ini(config, "firebase_emulator_project") or "demo-pytest",
                                  log_level=_ini(config, "firebase_emulator_log_level") or "debug",
                                  admin_token=_ini(config, "firebase_emulator_admin_token") or None)


def _session_emulator(config):
    """The emulator of this process: handed over by the xdist controller, named by the
    environment, or started now."""
    emu = config.stash.get(EMULATOR_KEY, None)
    if emu is not None:
        return emu
    token = _ini(config, "firebase_emulator_admin_token") or None
    handed = getattr(config, "workerinput", {}).get(WORKER_INPUT)
    host = environment_host()
    if handed:
        info = json.loads(handed)
        emu = FirebaseEmulator(info["host"], project_id=info.get("project"), admin_token=token, log_path=info.get("log"))
    elif host:
        emu = FirebaseEmulator(host, admin_token=token)
    else:
        emu = _start(config)
    config.stash[EMULATOR_KEY] = emu
    return emu


class XdistController:
    """In the xdist controller: starts one emulator before the workers start and hands its address
    and log file to each worker (workers then share it; each test still gets its own project)."""

    def __init__(self, config):
        self.config = config
        self.handover = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node):
        if self.handover is None:
            self.handover = ""
            if environment_host() is None and _ini(self.config, "firebase_emulator_share_across_workers"):
                try:
                    emu = _session_emulator(self.config)
                    self.handover = json.dumps({"host": emu.host, "project": emu.project_id, "log": emu.log_path})
                except EmulatorNotFound:
                    self.handover = ""  # workers report it if a test needs the emulator
        if self.handover:
            node.workerinput[WORKER_INPUT] = self.handover


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
    project.emulator.remove_later(project.project_id, before=lambda: close_clients(clients))


def _undo(project):
    """Puts a shared project back: data reset, clock on system time, faults cleared, seed dropped."""
    project.close_clients()
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


# Failure logs ----------------------------------------------------------------------------------

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    emu = item.config.stash.get(EMULATOR_KEY, None)
    item.stash[OFFSET_KEY] = emu.log_offset() if emu is not None else 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or "firebase_emulator" not in getattr(item, "fixturenames", ()):
        return
    emu = item.config.stash.get(EMULATOR_KEY, None)
    if emu is None or not emu.log_path:
        return
    text = emu.log_since(item.stash.get(OFFSET_KEY, 0))
    if text.strip():
        report.sections.append((f"firebase emulator log ({emu.log_path})", text))


# End of session --------------------------------------------------------------------------------

def pytest_terminal_summary(terminalreporter, config):
    if not config.getoption("--firebase-rules-coverage") or hasattr(config, "workerinput"):
        return
    try:
        emu = _session_emulator(config)
        project = emu.project_id
        coverage = emu.control.get(f"/emulator/v1/projects/{project}:ruleCoverage")
    except (EmulatorNotFound, EmulatorError) as e:
        terminalreporter.write_sep("-", "firebase rules coverage")
        terminalreporter.write_line(f"not available: {e}")
        return
    terminalreporter.write_sep("-", "firebase rules coverage")
    for line in coverage_lines(coverage, emu.url + f"/emulator/v1/projects/{project}:ruleCoverage.html"):
        terminalreporter.write_line(line)


def coverage_lines(coverage, html_url=None):
    """A short text report of ``:ruleCoverage``: how many expressions ran, and those that never did."""
    rows = coverage.get("expressions", [])
    ran = [r for r in rows if r["true"] or r["false"] or r["error"] or r["value"]]
    lines = [f"{coverage.get('file', 'rules')}: {len(ran)} of {len(rows)} expressions evaluated"]
    for r in rows:
        if r not in ran:
            lines.append(f"  never evaluated  {r['line']}:{r['column']}  {r['expression']}")
    for r in rows:
        if r["error"]:
            lines.append(f"  errors ({r['error']}x)       {r['line']}:{r['column']}  {r['expression']}")
    if html_url:
        lines.append(f"annotated source: {html_url}")
    return lines
