"""Helpers for the Python-functions suites: a venv with the real SDK from PyPI (built once and
cached inside the clone, keyed by the requirements and the interpreter), codebases copied into a
temporary folder the way a Firebase project lays them out, and an emulator serving them."""
import hashlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import requests

from conftest import ROOT, RunningEmulator

HERE = pathlib.Path(__file__).resolve().parent
CODEBASE = HERE / "codebase"
CACHE = ROOT / ".cache" / "functions-python"
OWNER = {"Authorization": "Bearer owner"}
KEY = "test-api-key"


def base_python():
    """The interpreter that creates the venv (the suite's own, outside its .venv)."""
    return getattr(sys, "_base_executable", None) or sys.executable


def sdk_venv(requirements: pathlib.Path) -> pathlib.Path:
    """`.cache/functions-python/<key>/venv` with `requirements` installed: built on first use (about a
    minute: pip downloads ~57 packages from PyPI), reused afterwards."""
    python = base_python()
    version = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True, check=True).stdout.strip()
    key = hashlib.sha256((requirements.read_text() + "|" + version).encode()).hexdigest()[:16]
    home = CACHE / key
    venv = home / "venv"
    if (home / "ready").exists() and (venv / "bin" / "python").exists():
        return venv
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    started = time.monotonic()
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(requirements)], check=True)
    (home / "ready").write_text(f"built in {time.monotonic() - started:.1f} s\n")
    print(f"\n[functions_python] built the SDK venv {venv} in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return venv


def make_project(folder: pathlib.Path, project: str, codebases=None, extra_firebase=None, link_venv=True):
    """A Firebase project folder: firebase.json, .firebaserc and, per codebase, its source copied
    from `codebases` (name -> (source dir, target folder name)) with `venv` linked to the cache."""
    codebases = codebases or {"default": (CODEBASE, "functions")}
    entries = []
    for name, (src, target) in codebases.items():
        dest = folder / target
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns("venv", "__pycache__"))
        if link_venv:
            (dest / "venv").symlink_to(sdk_venv(dest / "requirements.txt"))
        entries.append({"source": target, "codebase": name, "runtime": "python311", "ignore": ["venv", "__pycache__", "*.local-log"]})
    firebase = {"functions": entries if len(entries) > 1 else entries[0], "emulators": {"auth": {"port": 0}}}
    firebase.update(extra_firebase or {})
    (folder / "firebase.json").write_text(json.dumps(firebase, indent=2))
    (folder / ".firebaserc").write_text(json.dumps({"projects": {"default": project}}))
    return folder


def start(folder: pathlib.Path, *flags):
    return RunningEmulator(["--config", str(folder / "firebase.json"), *flags], project=None)


def call(emu, name, data=None, token=None, headers=None, region="us-central1", timeout=30):
    h = {"Content-Type": "application/json"}
    if token:
        h["Authorization"] = f"Bearer {token}"
    h.update(headers or {})
    return requests.post(f"{emu.url}/{emu.project}/{region}/{name}", data=json.dumps({"data": data}), headers=h, timeout=timeout)


def sign_up(emu, email, password="secret123"):
    return requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={KEY}",
                         json={"email": email, "password": password, "returnSecureToken": True}, timeout=30)


def sign_in(emu, email, password="secret123"):
    return requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key={KEY}",
                         json={"email": email, "password": password, "returnSecureToken": True}, timeout=30)


def claims(token):
    import base64
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def idle(emu, timeout_ms=20000):
    r = requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}:idle?timeoutMs={timeout_ms}", timeout=timeout_ms / 1000 + 10)
    assert r.status_code == 200, r.text


def logs(emu, function=None):
    items = requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}/functions/logs", timeout=10).json()["invocations"]
    return [i for i in items if function is None or i["function"] == function]


def listing(emu):
    return requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}/functions", timeout=10).json()


def wait_for(predicate, timeout=20, interval=0.1, what="condition"):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def descendants(pid):
    """Every process whose ancestry leads to `pid` (from /proc), plus processes in their groups."""
    parents = {}
    groups = {}
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        groups[int(entry.name)] = int(fields[2])
    found = set()
    frontier = [pid]
    while frontier:
        p = frontier.pop()
        for child, parent in parents.items():
            if parent == p and child not in found:
                found.add(child)
                frontier.append(child)
    member_groups = {groups[p] for p in found if p in groups}
    found |= {p for p, g in groups.items() if g in member_groups and g != groups.get(pid)}
    return found


def alive(pids):
    out = set()
    for p in pids:
        try:
            state = pathlib.Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(p)
    return out


def process_name(pid):
    """What `ps` shows as the process's name ('' once it is gone)."""
    try:
        return pathlib.Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def grpc_available(emu) -> bool:
    """Whether the emulator's Firestore port speaks gRPC (cleartext HTTP/2 with prior knowledge):
    an HTTP/2 connection preface must be answered with an HTTP/2 SETTINGS frame."""
    import socket
    host, _, port = emu.addresses["firestore"].rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=2) as s:
            s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            s.settimeout(2)
            head = s.recv(9)
    except OSError:
        return False
    return len(head) == 9 and head[3] == 0x04


GRPC_SKIP_REASON = ("needs Firestore over gRPC: firebase_admin.firestore.client() inside a function is google-cloud-firestore, "
                    "which speaks gRPC only, and this emulator's Firestore port does not answer an HTTP/2 preface yet")
