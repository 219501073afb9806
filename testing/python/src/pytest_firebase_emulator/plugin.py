"""The pytest plugin: options, the xdist hand-over, failure logs and the end-of-session report.
Registered through the ``pytest11`` entry point ``firebase_emulator`` (disable it with
``-p no:firebase_emulator``); the fixtures are in ``fixtures.py``."""
from __future__ import annotations

import json

import pytest

from .control import EmulatorError
from .emulator import EmulatorNotFound, environment_host
from .indexes import INDEX_COLLECTOR_KEY, WORKER_OUTPUT, IndexCollector
from .session import EMULATOR_KEY, WORKER_INPUT, _ini, _session_emulator

pytest_plugins = ["pytest_firebase_emulator.fixtures"]

OFFSET_KEY = pytest.StashKey[int]()


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
    group.addoption("--firebase-suggested-indexes", metavar="PATH", default=None,
                    help="collect the composite indexes the session's queries need and the emulator's index file lacks, "
                         "print them and write them to PATH as a firestore.indexes.json ('-' prints only)")
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
    if config.getoption("--firebase-suggested-indexes"):
        config.stash[INDEX_COLLECTOR_KEY] = IndexCollector()
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

def pytest_sessionfinish(session):
    """In an xdist worker: hands the indexes it collected to the controller."""
    collector = session.config.stash.get(INDEX_COLLECTOR_KEY, None)
    if collector is not None and hasattr(session.config, "workeroutput"):
        session.config.workeroutput[WORKER_OUTPUT] = json.dumps(collector.merged())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """In the xdist controller: merges a finished worker's indexes."""
    collector = node.config.stash.get(INDEX_COLLECTOR_KEY, None)
    text = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT)
    if collector is not None and text:
        collector.add(json.loads(text))


def pytest_terminal_summary(terminalreporter, config):
    _report_indexes(terminalreporter, config)
    _report_coverage(terminalreporter, config)


def _report_indexes(terminalreporter, config):
    collector = config.stash.get(INDEX_COLLECTOR_KEY, None)
    if collector is None or hasattr(config, "workeroutput"):
        return
    merged = collector.merged()
    terminalreporter.write_sep("-", "firebase suggested indexes")
    for line in index_lines(merged):
        terminalreporter.write_line(line)
    target = config.getoption("--firebase-suggested-indexes")
    if target != "-":
        with open(target, "w") as f:
            json.dump(merged, f, indent=2)
            f.write("\n")
        terminalreporter.write_line(f"written to {target} (merge it into your firestore.indexes.json)")


def index_lines(merged):
    """One line per index production will need: the collection group, scope and fields."""
    lines = []
    for index in merged["indexes"]:
        fields = ", ".join(f"{f['fieldPath']} {f.get('order') or f.get('arrayConfig') or 'VECTOR'}" for f in index.get("fields", []))
        lines.append(f"  {index.get('collectionGroup')} ({index.get('queryScope', 'COLLECTION')}): {fields}")
    for o in merged["fieldOverrides"]:
        lines.append(f"  {o.get('collectionGroup')}.{o.get('fieldPath')}: single-field override "
                     f"({', '.join(i.get('queryScope', '') + ' ' + (i.get('order') or i.get('arrayConfig') or '') for i in o['indexes'])})")
    count = len(merged["indexes"]) + len(merged["fieldOverrides"])
    return [f"{count} index(es) the session's queries need that the index file lacks" if count else
            "none: every query the session ran is served by the configured indexes"] + lines


def _report_coverage(terminalreporter, config):
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
