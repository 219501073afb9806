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
    assert listed == {"pyHello": "callable", "pyCrash": "callable", "pySlow": "callable", "pyOnNote": "document.created notes/{noteId}", "pyHttp": "http",
                      "pyOnUpload": "storage.finalized demo-py.appspot.com", "pyOnObjectMeta": "storage.metadataUpdated demo-py.appspot.com",
                      "pyOnObjectDelete": "storage.deleted demo-py.appspot.com"}


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


def test_storage_triggers_fire_once_per_change(emu):
    """A worker registers storage triggers by manifest (bucket defaulting to the project's); an upload,
    a metadata update and a delete each invoke their function exactly once, reads none."""
    base = f"{emu.url}/v0/b/demo-py.appspot.com/o"
    up = requests.post(f"{base}?name=docs%2Fw.txt", data=b"hello", headers={"Content-Type": "text/plain"}, timeout=10)
    assert up.status_code == 200, up.text
    for q in ("", "?alt=media"):
        assert requests.get(f"{base}/docs%2Fw.txt{q}", timeout=10).status_code == 200
    assert requests.patch(f"{base}/docs%2Fw.txt", json={"customMetadata": {"k": "v"}}, timeout=10).status_code == 200
    assert requests.delete(f"{base}/docs%2Fw.txt", timeout=10).status_code == 204
    assert requests.get(f"{emu.url}/emulator/v1/projects/demo-py:idle?timeoutMs=10000", timeout=15).status_code == 200
    logs = requests.get(f"{emu.url}/emulator/v1/projects/demo-py/functions/logs", timeout=5).json()["invocations"]
    counts = {n: [l["outcome"] for l in logs if l["function"] == n] for n in ("pyOnUpload", "pyOnObjectMeta", "pyOnObjectDelete")}
    assert counts == {"pyOnUpload": ["ok"], "pyOnObjectMeta": ["ok"], "pyOnObjectDelete": ["ok"]}, logs
    docs = f"{emu.url}/v1/projects/demo-py/databases/(default)/documents/storage-seen"
    seen = {d["name"].rsplit("/", 1)[-1]: {k: list(v.values())[0] for k, v in d["fields"].items()}
            for d in requests.get(docs, headers={"Authorization": "Bearer owner"}, timeout=5).json()["documents"]}
    subject = "demo-py.appspot.com/docs/w.txt"
    assert seen == {
        "pyOnUpload-docs_w.txt-1": {"type": "storage.finalized", "subject": subject, "size": "5", "contentType": "text/plain", "deleted": False},
        "pyOnObjectMeta-docs_w.txt-2": {"type": "storage.metadataUpdated", "subject": subject, "size": "5", "contentType": "text/plain", "deleted": False},
        "pyOnObjectDelete-docs_w.txt-2": {"type": "storage.deleted", "subject": subject, "size": "5", "contentType": "text/plain", "deleted": True},
    }


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


def test_watched_folder_change_restarts_the_worker(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "code.txt").write_text("v1")
    config = tmp_path / "emulator.json"
    config.write_text(json.dumps({"project": "demo-watch", "functions": {"codebases": [
        {"name": "py", "command": [sys.executable, str(HERE / "worker_py.py")], "watch": str(src)}]}}))
    e = RunningEmulator(["--config", str(config)], project=None)
    try:
        first = requests.post(f"{e.url}/demo-watch/us-central1/pyHello", json={"data": 1}, timeout=10).json()["result"]["pid"]
        time.sleep(1.1)
        (src / "code.txt").write_text("v2")
        deadline = time.time() + 15
        while True:
            r = requests.post(f"{e.url}/demo-watch/us-central1/pyHello", json={"data": 1}, timeout=10)
            if r.status_code == 200 and r.json()["result"]["pid"] != first:
                break
            assert time.time() < deadline, "the worker was not restarted after its folder changed"
            time.sleep(0.2)
    finally:
        e.stop()
