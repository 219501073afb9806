"""Shared pytest fixtures: one emulator process per test session, on an ephemeral port.

The binary is EMULATOR_BIN (default: .build/debug/emulator, built by Tests/run-all.sh).
The fixture waits for the machine-readable ``emulator ready:`` line on stderr, so no sleeps.
"""
import json
import os
import pathlib
import signal
import subprocess
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROJECT = "demo-test"


class RunningEmulator:
    """A started emulator process and where it listens."""

    def __init__(self, args=(), project=PROJECT, ready_timeout=60, cwd=None):
        binary = os.environ.get("EMULATOR_BIN", str(ROOT / ".build" / "debug" / "emulator"))
        cmd = [binary, "start", "--port", "0", "--log-level", "warning", *args]
        if project:
            cmd += ["--project", project]
        self.project = project
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=cwd)
        self.log = []
        ready = threading.Event()
        self.addresses = {}

        def pump():
            for line in self.proc.stderr:
                self.log.append(line)
                if line.startswith("emulator ready:"):
                    self.project = self.project or line.split()[2].partition("=")[2]
                    for part in line.split()[3:]:
                        key, _, value = part.partition("=")
                        self.addresses[key] = value
                    ready.set()
            ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(ready_timeout) or "firestore" not in self.addresses:
            self.stop()
            raise RuntimeError("emulator did not become ready:\n" + "".join(self.log))
        self.host, _, port = self.addresses["firestore"].rpartition(":")
        self.port = int(port)
        self.url = f"http://{self.host}:{self.port}"

    def environment(self):
        hp = f"{self.host}:{self.port}"
        return {
            "FIREBASE_AUTH_EMULATOR_HOST": hp,
            "FIRESTORE_EMULATOR_HOST": hp,
            "FIREBASE_EMULATOR_HUB": hp,
            "GCLOUD_PROJECT": self.project,
            "GOOGLE_CLOUD_PROJECT": self.project,
        }

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def emulator():
    """The session's emulator; sets the standard *_EMULATOR_HOST variables while it runs."""
    emu = RunningEmulator()
    saved = {k: os.environ.get(k) for k in emu.environment()}
    os.environ.update(emu.environment())
    try:
        yield emu
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        emu.stop()


@pytest.fixture
def emulator_factory():
    """Starts extra emulators with custom flags (stopped after the test)."""
    started = []

    def start(*args, project=PROJECT):
        emu = RunningEmulator(args, project=project)
        started.append(emu)
        return emu

    yield start
    for emu in started:
        emu.stop()


@pytest.fixture(scope="session")
def signed_emulator(tmp_path_factory):
    """An emulator in the opt-in production-like token mode (`auth.signIdTokens: true`: RS256 ID
    tokens with published keys). The default `emulator` mints unsigned tokens like Firebase's."""
    cfg = tmp_path_factory.mktemp("signed") / "emulator.json"
    cfg.write_text(json.dumps({"auth": {"signIdTokens": True}}))
    emu = RunningEmulator(["--config", str(cfg)])
    yield emu
    emu.stop()
