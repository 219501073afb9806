"""A codebase without its venv: the emulator creates it and installs requirements.txt (the Firebase
CLI fails instead), unless told not to; and a source that is not a Python codebase is skipped."""
import json
import time

from conftest import RunningEmulator
from functions_python.sdk import CODEBASE, call, listing, make_project


def test_a_missing_venv_is_created_and_installed(tmp_path):
    folder = make_project(tmp_path, "demo-install", link_venv=False)
    started = time.monotonic()
    emu = RunningEmulator(["--config", str(folder / "firebase.json")], project=None, ready_timeout=600)
    try:
        [codebase] = listing(emu)["codebases"]
        assert codebase["state"] == "ready", codebase
        assert (folder / "functions" / "venv" / "bin" / "python").exists()
        assert any("Successfully installed" in line and "firebase-functions" in line.replace("_", "-") for line in emu.log), emu.log[-20:]
        assert call(emu, "whoami").json()["result"]["version"] == "v1"
        print(f"\n[functions_python] venv created and installed in {time.monotonic() - started:.1f} s")
    finally:
        emu.stop()


def test_installing_can_be_turned_off(tmp_path):
    folder = make_project(tmp_path, "demo-noinstall", link_venv=False)
    emu = RunningEmulator(["--config", str(folder / "firebase.json"), "--functions-install", "never"], project=None)
    try:
        [codebase] = listing(emu)["codebases"]
        assert codebase["state"] == "failed" and "venv is missing" in codebase["error"], codebase
        assert not (folder / "functions" / "venv").exists()
        assert call(emu, "whoami").status_code == 404
    finally:
        emu.stop()


def test_a_node_codebase_is_skipped_with_a_warning(tmp_path):
    node = tmp_path / "node"
    node.mkdir()
    (node / "package.json").write_text('{"name": "functions"}')
    (tmp_path / "firebase.json").write_text(json.dumps({"functions": [{"source": "node", "codebase": "web"}], "emulators": {}}))
    (tmp_path / ".firebaserc").write_text('{"projects": {"default": "demo-node"}}')
    emu = RunningEmulator(["--config", str(tmp_path / "firebase.json"), "--log-level", "warning"], project=None)
    try:
        assert any("no requirements.txt" in line and "Node.js" in line for line in emu.log), emu.log
        assert listing(emu) == {"functions": [], "codebases": []}
    finally:
        emu.stop()
