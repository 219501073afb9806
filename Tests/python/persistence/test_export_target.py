"""Where an export may go: a new folder, an empty one, or a previous export of ours; nothing else is
ever deleted or replaced (issue 22, item 3)."""
import json
import os
import subprocess

import requests

from conftest import ROOT, RunningEmulator

EXPORT = "/emulator/v1/projects/demo-test:export"
OWNER = {"Authorization": "Bearer owner"}


def export(emu, path):
    return requests.post(emu.url + EXPORT, json={"path": str(path)}, timeout=10)


def refused(r, *words):
    assert r.status_code == 400, r.text
    message = r.json()["error"]["message"]
    for w in words:
        assert w in message, message
    return message


def seed(emu):
    requests.patch(f"{emu.url}/v1/projects/demo-test/databases/(default)/documents/exp/one",
                   json={"fields": {"v": {"integerValue": "1"}}}, headers=OWNER, timeout=5).raise_for_status()


def test_export_refuses_an_existing_file_and_keeps_it(tmp_path, emulator):
    seed(emulator)
    target = tmp_path / "notes.txt"
    target.write_text("precious")
    refused(export(emulator, target), "not a folder")
    assert target.read_text() == "precious"
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


def test_export_refuses_a_folder_that_is_not_an_export(tmp_path, emulator):
    target = tmp_path / "src"
    target.mkdir()
    (target / "main.py").write_text("print('mine')")
    refused(export(emulator, target), "not an export")
    assert os.listdir(target) == ["main.py"] and (target / "main.py").read_text() == "print('mine')"
    assert sorted(os.listdir(tmp_path)) == ["src"]


def test_export_refuses_a_previous_export_holding_files_we_did_not_write(tmp_path, emulator):
    target = tmp_path / "run-1"
    assert export(emulator, target).status_code == 200
    (target / "notes.txt").write_text("added by hand")
    refused(export(emulator, target), "notes.txt")
    assert (target / "notes.txt").read_text() == "added by hand"


def test_export_refuses_a_symbolic_link(tmp_path, emulator):
    real = tmp_path / "real"
    assert export(emulator, real).status_code == 200
    link = tmp_path / "link"
    link.symlink_to(real)
    refused(export(emulator, link), "symbolic link")
    assert link.is_symlink() and (real / "metadata.json").exists()


def test_export_to_root_or_dot_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)  # the emulator's working directory: "." is this folder
    emu = RunningEmulator()
    try:
        seed(emu)
        root_before = set(os.listdir("/"))
        for path in ["/", ".", "./", "..", "/.", "exports/..", str(work) + "/."]:
            r = export(emu, path)
            assert r.status_code == 400, (path, r.text)
        assert set(os.listdir("/")) == root_before
        assert os.listdir(work) == []
        assert os.listdir(tmp_path) == ["cwd"]
    finally:
        emu.stop()


def test_export_creates_a_new_folder_fills_an_empty_one_and_replaces_its_own(tmp_path, emulator):
    seed(emulator)
    fresh = tmp_path / "a" / "b" / "new"
    assert export(emulator, fresh).status_code == 200
    assert (fresh / "metadata.json").exists() and (fresh / "firestore" / "demo-test.json").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert export(emulator, empty).status_code == 200
    assert (empty / "metadata.json").exists()
    # Replacing our own export (every entry one we write) works, and leaves no temporary siblings.
    assert export(emulator, fresh).status_code == 200
    assert not [p for p in os.listdir(fresh.parent) if p != "new"]
    meta = json.loads((fresh / "metadata.json").read_text())
    assert meta["version"] == 1 and "firestore" in meta["participants"]


def test_export_on_exit_to_a_folder_that_is_not_an_export_refuses_to_start(tmp_path):
    target = tmp_path / "home"
    target.mkdir()
    (target / "thesis.tex").write_text("years of work")
    binary = os.environ.get("EMULATOR_BIN", str(ROOT / ".build" / "debug" / "emulator"))
    p = subprocess.run([binary, "start", "--port", "0", "--project", "demo-test", "--export-on-exit", str(target)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert "--export-on-exit" in p.stderr and "not an export" in p.stderr, p.stderr
    assert os.listdir(target) == ["thesis.tex"] and (target / "thesis.tex").read_text() == "years of work"
    root_before = set(os.listdir("/"))
    for path in ["/", ".", str(target / "thesis.tex")]:
        p = subprocess.run([binary, "start", "--port", "0", "--project", "demo-test", "--export-on-exit", path],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert p.returncode == 2 and "--export-on-exit" in p.stderr, (path, p.stderr)
    assert set(os.listdir("/")) == root_before and sorted(os.listdir(tmp_path)) == ["home"]


def test_export_on_exit_never_deletes_a_folder_that_became_foreign(tmp_path):
    """Checked again at exit: a folder that appeared (or changed) while the emulator ran is kept."""
    target = tmp_path / "later"
    emu = RunningEmulator(["--export-on-exit", str(target)])
    seed(emu)
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    emu.stop()
    assert os.listdir(target) == ["keep.txt"]
    assert any("not an export" in line for line in emu.log), "".join(emu.log)
