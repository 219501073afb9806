"""Python codebases (firebase-functions from PyPI): discovery, cold first call, warm callable round
trip and memory per function process, with processes forked from the warm launcher (default) and
with a fresh interpreter per function (`prefork: false`, what the Firebase CLI does).

Serves Tests/python/functions_python/codebase with the SDK venv the test suite caches in
.cache/functions-python (built on first use). Prints a Markdown block; bench/run.sh appends it to
bench/RESULTS.md. Loopback only; every phase is bounded in count and time.
Usage: EMULATOR_BIN=.build/release/emulator python3 bench/python_functions.py
"""
import json
import os
import pathlib
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import requests

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "python"))
from functions_python.sdk import CODEBASE, sdk_venv  # noqa: E402

BIN = os.environ.get("EMULATOR_BIN", str(ROOT / ".build" / "release" / "emulator"))
STARTS = int(os.environ.get("STARTS", "5"))
CALLS = int(os.environ.get("CALLS", "500"))
PROJECT = "demo-bench-py"


def project_folder(prefork):
    folder = pathlib.Path(tempfile.mkdtemp(prefix="bench-py-"))
    shutil.copytree(CODEBASE, folder / "functions", ignore=shutil.ignore_patterns("venv", "__pycache__"))
    (folder / "functions" / "venv").symlink_to(sdk_venv(folder / "functions" / "requirements.txt"))
    (folder / "emulator.json").write_text(json.dumps({"project": PROJECT, "functions": {"codebases": [
        {"name": "default", "source": "functions", "prefork": prefork, "watch": False}]}}))
    return folder


class Emulator:
    def __init__(self, folder):
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen([BIN, "start", "--port", "0", "--log-level", "warning", "--config", str(folder / "emulator.json")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ready = threading.Event()
        self.url = None

        def pump():
            for line in self.proc.stderr:
                if line.startswith("emulator ready:"):
                    hp = [p.split("=", 1)[1] for p in line.split() if p.startswith("functions=")][0]
                    self.url = f"http://{hp}"
                    self.ready_s = time.perf_counter() - self.t0
                    ready.set()
            ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(120) or not self.url:
            self.stop()
            raise RuntimeError("the emulator did not become ready")

    def call(self, session, name, token=None):
        h = {"Content-Type": "application/json"}
        if token:
            h["Authorization"] = "Bearer " + token
        r = session.post(f"{self.url}/{PROJECT}/us-central1/{name}", data='{"data": null}', headers=h, timeout=60)
        assert r.status_code == 200, r.text
        return r

    def codebase(self):
        return requests.get(f"{self.url}/emulator/v1/projects/{PROJECT}/functions", timeout=10).json()["codebases"][0]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def process_tree(pid):
    children = {}
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        for c in children.get(p, []):
            out.append(c)
            stack.append(c)
    return out


def memory_kib(pid, key):
    try:
        text = pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in text.splitlines() if line.startswith(key + ":")), 0)


def comm(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def measure(prefork):
    folder = project_folder(prefork)
    ready, discovery, cold, cold_http = [], [], [], []
    try:
        for _ in range(STARTS):
            emu = Emulator(folder)
            try:
                ready.append(emu.ready_s)
                info = emu.codebase()
                discovery.append(info["discoveryMs"] / 1000)
                count = info["functions"]
                s = requests.Session()
                t = time.perf_counter()
                emu.call(s, "whoami")
                cold.append(time.perf_counter() - t)
                t = time.perf_counter()
                assert s.get(f"{emu.url}/{PROJECT}/europe-west1/echo", timeout=60).status_code == 200
                cold_http.append(time.perf_counter() - t)
            finally:
                emu.stop()
        emu = Emulator(folder)
        try:
            s = requests.Session()
            user = s.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                          json={"email": "bench@example.com", "password": "secret123", "returnSecureToken": True}, timeout=30).json()
            emu.call(s, "whoami")
            warm, warm_token = [], []
            for _ in range(CALLS):
                t = time.perf_counter()
                emu.call(s, "whoami")
                warm.append(time.perf_counter() - t)
            for _ in range(CALLS):
                t = time.perf_counter()
                emu.call(s, "whoami", user["idToken"])
                warm_token.append(time.perf_counter() - t)
            for name in ["environment", "pid", "verify_token"]:
                s.post(f"{emu.url}/{PROJECT}/us-central1/{name}", json={"data": None}, timeout=60)
            time.sleep(0.5)
            tree = process_tree(emu.proc.pid)
            launcher = [p for p in tree if comm(p) == "py:launcher"]
            functions = {}
            for p in tree:
                name = comm(p)
                if name.startswith("py:") and name not in ("py:launcher", "py:admin"):
                    functions.setdefault(name, []).append(p)
            # A function = its gunicorn arbiter + worker (both named after it in prefork mode; in
            # exec mode the worker keeps the interpreter's name, so count the arbiter's children).
            per_function = []
            for name, pids in functions.items():
                group = set(pids)
                for p in pids:
                    group |= set(process_tree(p))
                per_function.append((sum(memory_kib(p, "Rss") for p in group), sum(memory_kib(p, "Pss") for p in group)))
            launcher_rss = memory_kib(launcher[0], "Rss") if launcher else 0
        finally:
            emu.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"count": count, "ready": ready, "discovery": discovery, "cold": cold, "cold_http": cold_http, "warm": warm, "warm_token": warm_token,
            "per_function": per_function, "launcher_rss": launcher_rss}


def ms(v):
    return f"{v * 1000:.1f} ms" if v < 1 else f"{v:.2f} s"


def p99(values):
    return sorted(values)[max(0, int(len(values) * 0.99) - 1)]


def main():
    sdk_venv(CODEBASE / "requirements.txt")
    warm = measure(True)
    fresh = measure(False)
    print(f"Python codebase ({warm['count']} functions, firebase-functions 0.6.0), {STARTS} emulator starts per mode, "
          f"{CALLS} sequential calls from one Python client (its own round trip included):")
    print()
    print("| measure | prefork (default) | fresh interpreter per function (`prefork: false`) | Firebase CLI (same SDK, measured for the reference notes) |")
    print("|---|---|---|---|")
    print(f"| emulator start to ready, discovery included (median) | {ms(statistics.median(warm['ready']))} | {ms(statistics.median(fresh['ready']))} | |")
    print(f"| discovery: SDK admin server to manifest (median) | {ms(statistics.median(warm['discovery']))} | {ms(statistics.median(fresh['discovery']))} | ~1.7 s |")
    print(f"| cold first call of a callable (median / max) | {ms(statistics.median(warm['cold']))} / {ms(max(warm['cold']))} | "
          f"{ms(statistics.median(fresh['cold']))} / {ms(max(fresh['cold']))} | ~2.7 s |")
    print(f"| cold first call of an HTTP function, second process (median) | {ms(statistics.median(warm['cold_http']))} | {ms(statistics.median(fresh['cold_http']))} | |")
    print(f"| warm callable round trip, no token (p50 / p99) | {ms(statistics.median(warm['warm']))} / {ms(p99(warm['warm']))} | "
          f"{ms(statistics.median(fresh['warm']))} / {ms(p99(fresh['warm']))} | ~10 ms |")
    print(f"| warm callable round trip, ID token verified (p50 / p99) | {ms(statistics.median(warm['warm_token']))} / {ms(p99(warm['warm_token']))} | "
          f"{ms(statistics.median(fresh['warm_token']))} / {ms(p99(fresh['warm_token']))} | |")
    for label, m in (("prefork", warm), ("fresh", fresh)):
        rss = [r for r, _ in m["per_function"]]
        pss = [p for _, p in m["per_function"]]
        m["mem"] = (statistics.median(rss) / 1024 if rss else 0, statistics.median(pss) / 1024 if pss else 0)
    print(f"| memory per function process (gunicorn arbiter + worker; RSS / PSS, median of {len(warm['per_function'])}) | "
          f"{warm['mem'][0]:.0f} / {warm['mem'][1]:.0f} MiB | {fresh['mem'][0]:.0f} / {fresh['mem'][1]:.0f} MiB | ~130 MiB RSS |")
    print(f"| the codebase's launcher (RSS) | {warm['launcher_rss'] / 1024:.0f} MiB | {fresh['launcher_rss'] / 1024:.0f} MiB | (none) |")
    print()


if __name__ == "__main__":
    main()
