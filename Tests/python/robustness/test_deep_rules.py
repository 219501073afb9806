"""Deeply nested rules over every way rules arrive: the API, a file at start-up, a hot-reloaded file.

Regression: a ruleset with 1,000 nested parentheses overflowed the stack and killed the process
(segfault). Each case must now be a 400 (or exit code 2 at start-up) naming the limit, while the
process stays up and the rules in force do not change.
"""
import os
import subprocess
import time
import uuid

import pytest
import requests

from conftest import ROOT, RunningEmulator

TIMEOUT = 20
OPEN = "rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents { match /{d=**} { allow read, write: if %s; } } }\n"
DEEP = {
    "1,000 parentheses": "(" * 1000 + "true" + ")" * 1000,
    "100,000 parentheses": "(" * 100_000 + "true" + ")" * 100_000,
    "50,000 negations": "!" * 50_000 + "true",
    "20,000 nested lists": "[" * 20_000 + "]" * 20_000 + " != null",
    "30,000-term chain": " && ".join(["true"] * 30_000),
    "30,000 nested calls": "f(" * 30_000 + "true" + ")" * 30_000,
}
LIMIT_MESSAGES = ("expression is nested more than 64 levels deep",
                  "expression is more than 256 levels deep; split long chains of operators into functions")


def put_rules(emulator, project, source):
    return requests.put(f"{emulator.url}/emulator/v1/projects/{project}:securityRules",
                        json={"rules": {"files": [{"name": "firestore.rules", "content": source}]}}, timeout=TIMEOUT)


@pytest.fixture
def project(emulator):
    """A project whose rules deny everything, so a change of rules would show."""
    pid = "deep-" + uuid.uuid4().hex[:8]
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid}, timeout=TIMEOUT).raise_for_status()
    assert put_rules(emulator, pid, OPEN % "false").status_code == 200
    return pid


@pytest.mark.parametrize("name", DEEP)
def test_deep_rules_over_the_api_are_400(emulator, project, name):
    source = OPEN.replace("match /databases", "function f(x) { return x; } match /databases") % DEEP[name]
    r = put_rules(emulator, project, source)
    assert r.status_code == 400, r.text[:300]
    details = r.json()["error"]["details"]
    assert any(d["description"] in LIMIT_MESSAGES for d in details), details
    assert emulator.proc.poll() is None, "the emulator process died"
    doc = f"{emulator.url}/v1/projects/{project}/databases/(default)/documents/c/d"
    assert requests.get(doc, timeout=TIMEOUT).status_code == 403  # the deny-all rules still apply


def test_deep_rules_file_at_start_is_exit_2(tmp_path):
    rules = tmp_path / "deep.rules"
    rules.write_text(OPEN % DEEP["1,000 parentheses"])
    binary = os.environ.get("EMULATOR_BIN", str(ROOT / ".build" / "debug" / "emulator"))
    r = subprocess.run([binary, "start", "--port", "0", "--rules", str(rules)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, r.stderr[-500:]
    assert "deep.rules:2:" in r.stderr and "expression is nested more than 64 levels deep" in r.stderr
    assert max(len(line) for line in r.stderr.splitlines()) < 200  # the excerpt is a window, not the whole line


def test_deep_rules_file_on_reload_keeps_last_good(tmp_path):
    rules = tmp_path / "firestore.rules"
    rules.write_text(OPEN % "false")
    emu = RunningEmulator(["--rules", str(rules)])
    try:
        url = f"{emu.url}/v1/projects/{emu.project}/databases/(default)/documents/c/d"
        assert requests.get(url, timeout=TIMEOUT).status_code == 403
        time.sleep(1.1)  # the file's mtime has a one-second resolution
        rules.write_text(OPEN % DEEP["100,000 parentheses"])
        deadline = time.time() + 10
        while not any("does not compile" in line for line in emu.log):
            assert time.time() < deadline, "the changed rules file was not looked at"
            assert emu.proc.poll() is None, "the emulator process died"
            time.sleep(0.2)
        assert requests.get(url, timeout=TIMEOUT).status_code == 403
    finally:
        emu.stop()
