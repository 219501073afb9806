"""Every path in a config file resolves against the file's folder, once, to an absolute path, also
when `--config` itself is relative and the emulator runs from another folder (issue 26: the
README's own `emulator start --config Examples/MakeItSo/firebase.json` broke every Python codebase,
its `source` applied twice: `functions/functions/venv`)."""
import json
import os
import pathlib
import shutil

import requests

from conftest import RunningEmulator
from functions_python.sdk import OWNER, call, make_project


def test_a_relative_firebase_json_serves_its_python_codebase_and_rules(tmp_path):
    folder = make_project(tmp_path / "project", "demo-relative", extra_firebase={"firestore": {"rules": "firestore.rules"}})
    (folder / "firestore.rules").write_text(
        "rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents { match /open/{d} { allow read: if true; } } }\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    emu = RunningEmulator(["--config", os.path.join("..", "project", "firebase.json")], project=None, cwd=elsewhere)
    try:
        r = call(emu, "whoami")
        assert r.status_code == 200, r.text
        docs = f"{emu.url}/v1/projects/{emu.project}/databases/(default)/documents"
        assert requests.get(f"{docs}/open/x", timeout=10).status_code == 404      # allowed: not found
        assert requests.get(f"{docs}/closed/x", timeout=10).status_code == 403    # the file's rules apply
    finally:
        emu.stop()


def test_every_path_in_a_relative_emulator_json_resolves_against_its_folder(tmp_path):
    project = tmp_path / "project"
    (project / "seed").mkdir(parents=True)
    (project / "rules").mkdir()
    (project / "rules" / "firestore.rules").write_text(
        "rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents { match /{document=**} { allow read, write: if false; } } }\n")
    # An import folder made by a first emulator.
    first = RunningEmulator(["--project", "demo-paths"], project=None)
    try:
        docs = f"{first.url}/v1/projects/demo-paths/databases/(default)/documents"
        assert requests.patch(f"{docs}/c/imported", json={"fields": {}}, headers=OWNER, timeout=10).status_code == 200
        exported = requests.post(f"{first.url}/emulator/v1/projects/demo-paths:export", json={"path": str(project / "seed" / "export")}, timeout=10)
        assert exported.status_code == 200, exported.text
    finally:
        first.stop()
    (project / "emulator.json").write_text(json.dumps({
        "project": "demo-paths", "rules": "rules/firestore.rules", "dataDir": "data", "import": "seed/export",
        "exportOnExit": "out/export", "auth": {"serviceAccounts": []},
    }))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    emu = RunningEmulator(["--config", "../project/emulator.json"], project=None, cwd=elsewhere)
    try:
        docs = f"{emu.url}/v1/projects/demo-paths/databases/(default)/documents"
        assert requests.get(f"{docs}/c/imported", headers=OWNER, timeout=10).status_code == 200   # import
        assert requests.get(f"{docs}/c/imported", timeout=10).status_code == 403                  # rules
        assert requests.patch(f"{docs}/c/later", json={"fields": {}}, headers=OWNER, timeout=10).status_code == 200
    finally:
        emu.stop()
    assert (project / "data").is_dir() and any((project / "data").iterdir())    # dataDir
    assert (project / "out" / "export").is_dir()                                 # exportOnExit
    assert not (elsewhere / "data").exists() and not (elsewhere / "out").exists()
    shutil.rmtree(project / "out")
