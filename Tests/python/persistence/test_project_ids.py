"""Project and database ids are checked where they enter, so no id can reach a file name it does
not own (issue 22, item 9): a NUL used to cut `victim-proj.json\\0x.json` down to the victim's
export file."""
import json
import os

import requests

from conftest import RunningEmulator

OWNER = {"Authorization": "Bearer owner"}


def doc(emu, project, path, database="(default)"):
    return f"{emu.url}/v1/projects/{project}/databases/{database}/documents/{path}"


def owner_field(emu, project):
    r = requests.get(doc(emu, project, "c/v"), headers=OWNER, timeout=5)
    assert r.status_code == 200, r.text
    return r.json()["fields"]["owner"]["stringValue"]


def test_nul_in_a_project_id_cannot_overwrite_another_projects_export(tmp_path):
    out = tmp_path / "on-exit"
    emu = RunningEmulator(["--export-on-exit", str(out)])
    try:
        r = requests.patch(doc(emu, "victim-proj", "c/v"), json={"fields": {"owner": {"stringValue": "victim"}}}, headers=OWNER, timeout=5)
        assert r.status_code == 200, r.text
        attack = requests.patch(doc(emu, "victim-proj.json%00x", "c/v"), json={"fields": {"owner": {"stringValue": "attacker"}}},
                                headers=OWNER, timeout=5)
        assert attack.status_code == 400, attack.text
        assert "project id" in attack.json()["error"]["message"].lower()
    finally:
        emu.stop()
    assert sorted(os.listdir(out / "firestore")) == ["demo-test.json", "victim-proj.json"] or \
        sorted(os.listdir(out / "firestore")) == ["victim-proj.json"]
    again = RunningEmulator(["--import", str(out)])
    try:
        assert owner_field(again, "victim-proj") == "victim"
    finally:
        again.stop()


def test_bad_project_and_database_ids_are_refused_everywhere(emulator):
    bad_projects = ["victim.json%00x", "a%2Fb", "%2e%2e", "UPPER", "under_score", "dot.ted", "-lead", "sp%20ace",
                    "%C3%A9t%C3%A9", "x" * 101, "tab%09"]
    for p in bad_projects:
        for method, url, body, headers in [
            ("PATCH", doc(emulator, p, "c/d"), {"fields": {}}, OWNER),
            ("GET", doc(emulator, p, "c/d"), None, OWNER),
            ("POST", f"{emulator.url}/identitytoolkit.googleapis.com/v1/projects/{p}/accounts", {"email": "a@b.co"}, OWNER),
            ("POST", f"{emulator.url}/emulator/v1/projects/{p}:export", {"path": "never-written"}, None),
            ("POST", f"{emulator.url}/emulator/v1/projects/{p}:import", {"path": "never-read"}, None),
            ("POST", f"{emulator.url}/emulator/v1/projects/{p}:reset", None, None),
        ]:
            r = requests.request(method, url, json=body, headers=headers, timeout=5)
            assert r.status_code in (400, 404), (p, method, url, r.status_code, r.text[:200])
            assert r.status_code != 404 or method == "GET", (p, method, url, r.text[:200])
    for p in ["a/b", "a\u0000b", "UPPER", "x" * 101, ""]:
        r = requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": p}, timeout=5)
        assert r.status_code == 400, (p, r.text)
    listed = [x["projectId"] for x in requests.get(emulator.url + "/emulator/v1/projects", timeout=5).json()["projects"]]
    assert all(x == x.lower() and "\u0000" not in x and "/" not in x for x in listed), listed
    assert not os.path.exists("never-written")
    for db in ["a%00b", "UPPER", "a%2Fb", "x" * 64, "(other)"]:
        r = requests.patch(doc(emulator, emulator.project, "c/d", database=db), json={"fields": {}}, headers=OWNER, timeout=5)
        assert r.status_code == 400, (db, r.text)
        # A `/` makes the document name itself malformed; the others name the database id.
        assert db == "a%2Fb" or "database id" in r.json()["error"]["message"].lower(), r.text


def test_ids_firebase_emulators_accept_keep_working(emulator):
    """Production ids, `demo-*` ids, and the short ids test suites use (Google's emulator takes them)."""
    for p in ["demo-project", "p", "p1", "1abc", "e2e", "my-app-12345", "x" * 100]:
        r = requests.patch(doc(emulator, p, "c/d"), json={"fields": {}}, headers=OWNER, timeout=5)
        assert r.status_code == 200, (p, r.text)
    for db in ["(default)", "other-db", "db2"]:
        r = requests.patch(doc(emulator, emulator.project, "c/d", database=db), json={"fields": {}}, headers=OWNER, timeout=5)
        assert r.status_code == 200, (db, r.text)


def test_import_refuses_files_whose_names_are_not_project_ids(tmp_path, emulator):
    folder = tmp_path / "export"
    (folder / "firestore").mkdir(parents=True)
    (folder / "metadata.json").write_text(json.dumps({"version": 1, "participants": ["firestore"]}))
    (folder / "firestore" / "Not_An_Id.json").write_text(json.dumps({"databases": {}}))
    r = requests.post(emulator.url + f"/emulator/v1/projects/{emulator.project}:import", json={"path": str(folder)}, timeout=5)
    assert r.status_code == 400, r.text
    assert "Not_An_Id.json" in r.json()["error"]["message"]
