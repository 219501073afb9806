"""Supervision of Python codebases: reload on edit, a module that fails to import (reported with its
traceback while the rest keeps running), the launcher dying, CLI-style fresh interpreters, schedules
on the project clock, and no process left behind after SIGTERM or kill -9 of the emulator."""
import os
import pathlib
import signal
import time

import pytest
import requests

from functions_python.sdk import (CODEBASE, alive, call, descendants, idle, listing, logs, make_project, process_name, start, wait_for)


def codebase_state(emu, name="default"):
    return next((c for c in listing(emu)["codebases"] if c["name"] == name), None)


def test_an_edit_reloads_the_codebase(tmp_path):
    folder = make_project(tmp_path, "demo-reload")
    emu = start(folder)
    try:
        first = call(emu, "whoami").json()["result"]
        assert first["version"] == "v1"
        main = folder / "functions" / "main.py"
        main.write_text(main.read_text().replace('VERSION = "v1"', 'VERSION = "v2"'))
        result = wait_for(lambda: (call(emu, "whoami").json().get("result") or {}).get("version") == "v2" and call(emu, "whoami").json()["result"],
                          timeout=30, what="the edited version to be served")
        assert result["pid"] != first["pid"]
        # A new function appears, an .env change reaches the processes.
        main.write_text(main.read_text() + "\n\n@https_fn.on_call()\ndef added(req):\n    return os.environ.get('FROM_DOTENV')\n")
        (folder / "functions" / ".env").write_text("FROM_DOTENV=changed\n")
        wait_for(lambda: call(emu, "added").status_code == 200, timeout=30, what="the added function")
        assert call(emu, "added").json()["result"] == "changed"
    finally:
        emu.stop()


def test_an_import_failure_is_reported_with_its_traceback_and_the_rest_keeps_running(tmp_path):
    broken = tmp_path / "broken-src"
    broken.mkdir()
    (broken / "requirements.txt").write_text((CODEBASE / "requirements.txt").read_text())
    (broken / "main.py").write_text("from firebase_functions import https_fn\n\nRATIO = 1 / 0\n\n@https_fn.on_call()\ndef later(req):\n    return 'fixed'\n")
    folder = make_project(tmp_path / "project", "demo-broken", codebases={"default": (CODEBASE, "functions"), "broken": (broken, "broken")})
    emu = start(folder)
    try:
        failed = codebase_state(emu, "broken")
        assert failed["state"] == "failed"
        assert "Traceback (most recent call last)" in failed["error"] and "ZeroDivisionError: division by zero" in failed["error"]
        assert 'main.py", line 3' in failed["error"]
        assert any("ZeroDivisionError" in line for line in emu.log)
        # The other codebase and the other services are unaffected.
        assert codebase_state(emu)["state"] == "ready" and call(emu, "whoami").status_code == 200
        assert requests.get(f"{emu.url}/emulator/v1/status", timeout=5).status_code == 200
        # Fixing the file brings it up.
        main = folder / "broken" / "main.py"
        main.write_text(main.read_text().replace("RATIO = 1 / 0", "RATIO = 1"))
        wait_for(lambda: codebase_state(emu, "broken")["state"] == "ready", timeout=30, what="the fixed codebase")
        assert call(emu, "later").json()["result"] == "fixed"
    finally:
        emu.stop()


def test_a_checked_in_functions_yaml_is_used_as_is(tmp_path):
    folder = make_project(tmp_path, "demo-yaml")
    (folder / "functions" / "functions.yaml").write_text(
        "specVersion: v1alpha1\nendpoints:\n  whoami:\n    entryPoint: whoami\n    platform: gcfv2\n    callableTrigger: {}\n"
        "    timeoutSeconds: 5\n    region:\n    - europe-west2\n")
    emu = start(folder)
    try:
        functions = listing(emu)["functions"]
        assert [(f["name"], f["regions"], f["timeoutSeconds"]) for f in functions] == [("whoami", ["europe-west2"], 5)]
        assert call(emu, "whoami", region="europe-west2").json()["result"]["version"] == "v1"
    finally:
        emu.stop()


def test_prestart_starts_every_function_at_discovery(tmp_path):
    folder = make_project(tmp_path, "demo-prestart")
    (folder / "functions" / "functions.yaml").write_text(
        "specVersion: v1alpha1\nendpoints:\n  whoami:\n    entryPoint: whoami\n    platform: gcfv2\n    callableTrigger: {}\n"
        "  pid:\n    entryPoint: pid\n    platform: gcfv2\n    callableTrigger: {}\n")
    (folder / "emulator.json").write_text('{"project": "demo-prestart", "functions": {"codebases": [{"source": "functions", "prestart": true}]}}')
    from conftest import RunningEmulator
    emu = RunningEmulator(["--config", str(folder / "emulator.json")], project=None)
    try:
        names = lambda: {process_name(p) for p in alive(descendants(emu.proc.pid))}
        wait_for(lambda: {"py:whoami", "py:pid"} <= names(), timeout=30, what="both functions' processes before any call")
        assert not logs(emu)
        assert call(emu, "whoami").json()["result"]["version"] == "v1"
    finally:
        emu.stop()


def test_the_launcher_dying_is_survived(tmp_path):
    folder = make_project(tmp_path, "demo-launcher")
    emu = start(folder)
    try:
        first = call(emu, "whoami").json()["result"]["pid"]
        launcher = [p for p in descendants(emu.proc.pid) if process_name(p) == "py:launcher"]
        assert len(launcher) == 1
        os.kill(launcher[0], signal.SIGKILL)
        # The function process died with it (PR_SET_PDEATHSIG); the next calls get a new launcher.
        wait_for(lambda: not alive([first]), timeout=10, what="the function process to die with its launcher")
        result = wait_for(lambda: call(emu, "whoami").status_code == 200 and call(emu, "whoami").json()["result"], timeout=30,
                          what="a new launcher")
        assert result["pid"] != first
    finally:
        emu.stop()


def test_fresh_interpreters_like_the_firebase_cli(tmp_path):
    folder = make_project(tmp_path, "demo-exec")
    config = folder / "emulator.json"
    config.write_text('{"project": "demo-exec", "functions": {"codebases": [{"name": "default", "source": "functions", "prefork": false}]}}')
    from conftest import RunningEmulator
    emu = RunningEmulator(["--config", str(config)], project=None)
    try:
        assert codebase_state(emu)["prefork"] is False and codebase_state(emu)["state"] == "ready"
        r = call(emu, "whoami")
        assert r.status_code == 200 and r.json()["result"]["version"] == "v1"
        assert logs(emu, "whoami")[-1]["logs"] == ["whoami called by None", "a line on stderr"]
    finally:
        emu.stop()


def test_schedules_run_on_the_project_clock(tmp_path):
    folder = make_project(tmp_path, "demo-clock")
    emu = start(folder, "--functions-schedules", "clock")
    try:
        admin = f"{emu.url}/emulator/v1/projects/{emu.project}"
        # The runner starts counting at its first tick; then ten minutes pass at once.
        requests.put(admin + "/clock", json={"mode": "frozen", "time": "2026-03-01T10:00:30Z"}, timeout=5).raise_for_status()
        time.sleep(2.5)
        requests.post(admin + "/clock:advance", json={"seconds": 600}, timeout=5).raise_for_status()
        wait_for(lambda: logs(emu, "tick"), timeout=15, what="a scheduled run")
        idle(emu)
        runs = [l for l in logs(emu, "tick") if l["outcome"] == "ok"]
        # Missed runs are coalesced into one, at the last due time.
        assert [r["logs"] for r in runs] == [["tick firebase-schedule-tick-us-central1 2026-03-01T10:10:00+00:00"]]
    finally:
        requests.put(f"{emu.url}/emulator/v1/projects/{emu.project}/clock", json={"mode": "system"}, timeout=5)
        emu.stop()


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_no_process_is_left_behind(tmp_path, how):
    folder = make_project(tmp_path, "demo-orphans")
    emu = start(folder)
    try:
        for name in ["whoami", "pid", "environment"]:
            assert call(emu, name).status_code == 200
        assert requests.get(f"{emu.url}/{emu.project}/europe-west1/echo", timeout=10).status_code == 200
        spawned = descendants(emu.proc.pid)
        # launcher + 4 functions × (gunicorn arbiter + worker)
        assert len(alive(spawned)) >= 9, spawned
        if how == "SIGTERM":
            emu.proc.send_signal(signal.SIGTERM)
            assert emu.proc.wait(20) == 0
        else:
            emu.proc.kill()
            emu.proc.wait(10)
        wait_for(lambda: not alive(spawned), timeout=10, what=f"every function process to end after {how}")
    finally:
        emu.stop()
