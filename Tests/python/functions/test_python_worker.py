"""A worker in another language (Python), supervised by the functions host: registration from the
manifest, callables, HTTP functions, document triggers with retries, timeouts, crash and restart."""
import json
import pathlib
import sys
import time

import pytest
import requests

from conftest import RunningEmulator

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pyworker")
    config = folder / "emulator.json"
    config.write_text(json.dumps({"project": "demo-py", "functions": {"retryBaseDelaySeconds": 0.01, "codebases": [
        {"name": "py", "command": [sys.executable, str(HERE / "worker_py.py")]}]}}))
    e = RunningEmulator(["--config", str(config)], project=None)
    yield e
    e.stop()


def call(emu, name, data=None):
    return requests.post(f"{emu.url}/demo-py/us-central1/{name}", json={"data": data}, timeout=20)


def test_manifest_registers_functions(emu):
    listed = {f["name"]: f["trigger"] for f in requests.get(f"{emu.url}/emulator/v1/projects/demo-py/functions", timeout=5).json()["functions"]}
    assert listed == {"pyHello": "callable", "pyCrash": "callable", "pySlow": "callable", "pyOnNote": "document.created notes/{noteId}", "pyHttp": "http"}


def test_callable_and_http(emu):
    r = call(emu, "pyHello", {"x": 1})
    assert r.status_code == 200 and r.json()["result"]["hello"] == {"x": 1} and r.json()["result"]["uid"] is None
    h = requests.get(f"{emu.url}/demo-py/us-central1/pyHttp/some/path?q=1", timeout=10)
    assert h.status_code == 200 and h.text == "hello from python at /some/path?q=1"
    bad = requests.get(f"{emu.url}/demo-py/us-central1/pyHello", timeout=10)
    assert bad.status_code == 400 and bad.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_document_trigger_with_retry(emu):
    docs = f"{emu.url}/v1/projects/demo-py/databases/(default)/documents"
    for note in ["n1", "flaky1"]:
        requests.patch(f"{docs}/notes/{note}", json={"fields": {}}, headers={"Authorization": "Bearer owner"}, timeout=5).raise_for_status()
    assert requests.get(f"{emu.url}/emulator/v1/projects/demo-py:idle?timeoutMs=10000", timeout=15).status_code == 200
    for note in ["n1", "flaky1"]:
        assert requests.get(f"{docs}/notes-seen/{note}", headers={"Authorization": "Bearer owner"}, timeout=5).status_code == 200
    logs = requests.get(f"{emu.url}/emulator/v1/projects/demo-py/functions/logs", timeout=5).json()["invocations"]
    flaky = [l for l in logs if l["function"] == "pyOnNote" and l["outcome"] == "error"]
    assert len(flaky) == 1 and flaky[0]["error"] == "UNAVAILABLE: try again"


def test_timeout_is_deadline_exceeded(emu):
    r = call(emu, "pySlow")
    assert r.status_code == 504 and r.json()["error"]["status"] == "DEADLINE_EXCEEDED"


def test_crash_fails_in_flight_call_and_worker_restarts(emu):
    r = call(emu, "pyCrash")
    assert r.status_code in (500, 503) and r.json()["error"]["status"] in ("UNAVAILABLE", "INTERNAL")
    deadline = time.time() + 15
    while True:
        r = call(emu, "pyHello", "again")
        if r.status_code == 200:
            break
        assert time.time() < deadline, f"worker did not come back: {r.status_code} {r.text}"
        time.sleep(0.2)
    assert r.json()["result"]["hello"] == "again"
