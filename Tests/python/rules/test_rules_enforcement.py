"""Security Rules over HTTP with real ID tokens from the Auth service: allowed and denied calls,
explanations, rules-are-not-filters, :securityRules, :evaluateRules, coverage and hot reload."""
import pathlib
import time
import uuid

import pytest
import requests

from conftest import ROOT, RunningEmulator

RULES = (ROOT / "Examples" / "MakeItSo" / "firestore.rules").read_text()


@pytest.fixture
def project(emulator):
    """A fresh project with its own API key and the MakeItSo rules."""
    pid = "rules-" + uuid.uuid4().hex[:8]
    key = "key-" + pid
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid, "apiKey": key}, timeout=5).raise_for_status()
    r = requests.put(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules",
                     json={"rules": {"files": [{"name": "firestore.rules", "content": RULES}]}}, timeout=5)
    assert r.status_code == 200, r.text
    return pid, key


def sign_up(emulator, key):
    r = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={key}", json={"returnSecureToken": True}, timeout=5)
    r.raise_for_status()
    return r.json()["idToken"], r.json()["localId"]


def docs(emulator, pid):
    return f"{emulator.url}/v1/projects/{pid}/databases/(default)/documents"


def task(uid, title="milk"):
    return {"fields": {"title": {"stringValue": title}, "completed": {"booleanValue": False}, "userId": {"stringValue": uid}}}


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def query(uid=None):
    q = {"from": [{"collectionId": "tasks"}]}
    if uid:
        q["where"] = {"fieldFilter": {"field": {"fieldPath": "userId"}, "op": "EQUAL", "value": {"stringValue": uid}}}
    return {"structuredQuery": q}


def test_owner_access_is_allowed_and_strangers_are_denied_with_an_explanation(emulator, project):
    pid, key = project
    alice, alice_uid = sign_up(emulator, key)
    bob, bob_uid = sign_up(emulator, key)
    created = requests.post(f"{docs(emulator, pid)}/tasks", json=task(alice_uid), headers=bearer(alice), timeout=5)
    assert created.status_code == 200, created.text
    name = created.json()["name"].split("/documents/")[1]
    assert requests.get(f"{docs(emulator, pid)}/{name}", headers=bearer(alice), timeout=5).status_code == 200

    denied = requests.get(f"{docs(emulator, pid)}/{name}", headers=bearer(bob), timeout=5)
    assert denied.status_code == 403
    err = denied.json()["error"]
    assert err["status"] == "PERMISSION_DENIED"
    assert err["message"].startswith("Missing or insufficient permissions.")
    assert f'resource.data.userId ("{alice_uid}") != request.auth.uid ("{bob_uid}") at firestore.rules:' in err["message"]

    forged = requests.post(f"{docs(emulator, pid)}/tasks", json=task(alice_uid), headers=bearer(bob), timeout=5)
    assert forged.status_code == 403
    assert "request.resource.data.userId" in forged.json()["error"]["message"]

    assert requests.get(f"{docs(emulator, pid)}/{name}", timeout=5).status_code == 403
    assert requests.get(f"{docs(emulator, pid)}/{name}", headers={"Authorization": "Bearer owner"}, timeout=5).status_code == 200


def test_rules_are_not_filters(emulator, project):
    pid, key = project
    alice, alice_uid = sign_up(emulator, key)
    requests.post(f"{docs(emulator, pid)}/tasks", json=task(alice_uid), headers=bearer(alice), timeout=5).raise_for_status()
    # Every stored task is Alice's, yet the unfiltered query is denied: it could return others' tasks.
    unfiltered = requests.post(f"{docs(emulator, pid)}:runQuery", json=query(), headers=bearer(alice), timeout=5)
    assert unfiltered.status_code == 403
    assert "rules are not filters" in unfiltered.json()["error"]["message"]
    filtered = requests.post(f"{docs(emulator, pid)}:runQuery", json=query(alice_uid), headers=bearer(alice), timeout=5)
    assert filtered.status_code == 200, filtered.text
    assert len([e for e in filtered.json() if "document" in e]) == 1


def test_invalid_tokens_are_refused(emulator, project):
    pid, key = project
    alice, _ = sign_up(emulator, key)
    head, payload, sig = alice.split(".")
    tampered = f"{head}.{payload}.{sig[:-4]}AAAA"
    r = requests.get(f"{docs(emulator, pid)}/tasks/x", headers=bearer(tampered), timeout=5)
    assert r.status_code == 401
    assert r.json()["error"]["status"] == "UNAUTHENTICATED"


def test_security_rules_endpoint_reports_diagnostics(emulator, project):
    pid, _ = project
    bad = {"rules": {"files": [{"name": "firestore.rules", "content": "service cloud.firestore { match /a { allow get: if nope(); } }"}]}}
    r = requests.put(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules", json=bad, timeout=5)
    assert r.status_code == 400
    assert "unknown function 'nope'" in r.json()["error"]["message"]
    r = requests.put(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules", json={**bad, "ignore_errors": True}, timeout=5)
    assert r.status_code == 200
    issue = r.json()["issues"][0]
    assert issue["severity"] == "ERROR" and issue["sourcePosition"]["line"] == 1
    # The previous (valid) rules are still in force.
    got = requests.get(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules", timeout=5).json()
    assert "match /tasks/{taskId}" in got["rules"]["files"][0]["content"]


def test_evaluate_rules_and_coverage(emulator, project):
    pid, _ = project
    url = f"{emulator.url}/emulator/v1/projects/{pid}:evaluateRules"
    ok = requests.post(url, json={"method": "get", "path": "tasks/t1", "auth": {"uid": "u1"}, "resource": {"userId": "u1"}}, timeout=5).json()
    assert ok["allowed"] is True
    no = requests.post(url, json={"method": "delete", "path": "tasks/t1", "auth": {"uid": "u2"}, "resource": {"userId": "u1"}}, timeout=5).json()
    assert no["allowed"] is False and '("u1") != request.auth.uid ("u2")' in no["explanation"]
    assert requests.post(url, json={"method": "fetch", "path": "x"}, timeout=5).status_code == 400
    cov = requests.get(f"{emulator.url}/emulator/v1/projects/{pid}:ruleCoverage", timeout=5).json()
    assert any(e["true"] + e["false"] + e["error"] > 0 for e in cov["expressions"])
    html = requests.get(f"{emulator.url}/emulator/v1/projects/{pid}:ruleCoverage.html", timeout=5)
    assert html.status_code == 200 and "text/html" in html.headers["Content-Type"]


def test_rules_file_hot_reload_keeps_last_good(tmp_path):
    rules = tmp_path / "firestore.rules"
    allow_all = "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents { match /{p=**} { allow read, write: if true; } } }\n"
    deny_all = allow_all.replace("if true", "if false")
    rules.write_text(allow_all)
    emu = RunningEmulator(["--rules", str(rules)])
    try:
        url = f"{emu.url}/v1/projects/{emu.project}/databases/(default)/documents/c/d"
        assert requests.get(url, timeout=5).status_code == 404  # allowed, just missing
        time.sleep(1.1)
        rules.write_text(deny_all)
        deadline = time.time() + 5
        while requests.get(url, timeout=5).status_code != 403:
            assert time.time() < deadline, "rules change was not picked up"
            time.sleep(0.2)
        time.sleep(1.1)
        rules.write_text("service cloud.firestore { this is broken")
        time.sleep(2.5)
        assert requests.get(url, timeout=5).status_code == 403  # last good rules still apply
        assert any("does not compile" in line for line in emu.log)
    finally:
        emu.stop()


def test_broken_rules_file_at_start_is_a_clear_error(tmp_path):
    import subprocess
    from conftest import ROOT as root
    rules = tmp_path / "bad.rules"
    rules.write_text("service cloud.firestore {\n  match /a { allow get: if ; }\n}\n")
    binary = str(pathlib.Path(root) / ".build" / "debug" / "emulator")
    import os
    r = subprocess.run([os.environ.get("EMULATOR_BIN", binary), "start", "--port", "0", "--rules", str(rules)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "bad.rules:2:28: error: expected an expression but found ';'" in r.stderr


def test_time_arithmetic_on_written_values_denies_instead_of_crashing(emulator):
    # Any client could once crash the process: these rules feed a written integer to
    # timestamp.value and duration.value, which overflowed on 2^63-1.
    pid = "rules-" + uuid.uuid4().hex[:8]
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid}, timeout=5).raise_for_status()
    rules = """rules_version = '2';
service cloud.firestore { match /databases/{db}/documents {
  match /items/{id} { allow create: if timestamp.value(request.resource.data.expiresMillis) > request.time
                                    && request.time + duration.value(request.resource.data.days, 'd') > request.time; }
} }"""
    r = requests.put(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules",
                     json={"rules": {"files": [{"name": "firestore.rules", "content": rules}]}}, timeout=5)
    assert r.status_code == 200, r.text

    def create(millis, days):
        body = {"fields": {"expiresMillis": {"integerValue": str(millis)}, "days": {"integerValue": str(days)}}}
        return requests.post(f"{docs(emulator, pid)}/items", json=body, timeout=5)

    assert create(4102444800000, 1).status_code == 200  # 2100-01-01, one day
    for millis, days in [(2**63 - 1, 1), (-(2**63), 1), (4102444800000, 10**17), (4102444800000, -(2**63))]:
        denied = create(millis, days)
        assert denied.status_code == 403 and denied.json()["error"]["status"] == "PERMISSION_DENIED", denied.text
    assert requests.get(f"{emulator.url}/emulator/v1/status", timeout=5).status_code == 200
