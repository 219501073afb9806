"""The session's emulator: where it comes from (the xdist controller's hand-over, the environment,
or a process started now) and the options that say so. Shared by the hooks and the fixtures."""
from __future__ import annotations

import json

import pytest

from .emulator import EmulatorNotFound, FirebaseEmulator, environment_host, find_binary

EMULATOR_KEY = pytest.StashKey[FirebaseEmulator]()
WORKER_INPUT = "firebase_emulator"


def _ini(config, name):
    return config.getini(name)


def _isolation(config):
    return config.getoption("--firebase-isolation") or _ini(config, "firebase_isolation") or "project"


def _start(config):
    """Starts the binary as configured (raises EmulatorNotFound with what to do)."""
    binary = find_binary(config.getoption("--firebase-emulator-bin") or _ini(config, "firebase_emulator_bin") or None)
    if not binary:
        raise EmulatorNotFound(
            "no emulator: run the tests under 'emulator exec -- pytest ...', set FIREBASE_EMULATOR_HUB to a running "
            "emulator's host:port, or install the 'emulator' binary on PATH (or set --firebase-emulator-bin, the "
            "firebase_emulator_bin ini option, or FIREBASE_EMULATOR_BIN)")
    return FirebaseEmulator.start(binary, args=_ini(config, "firebase_emulator_args"), cwd=str(config.rootpath),
                                  project_id=_ini(config, "firebase_emulator_project") or "demo-pytest",
                                  log_level=_ini(config, "firebase_emulator_log_level") or "debug",
                                  admin_token=_ini(config, "firebase_emulator_admin_token") or None)


def _session_emulator(config):
    """The emulator of this process: handed over by the xdist controller, named by the
    environment, or started now."""
    emu = config.stash.get(EMULATOR_KEY, None)
    if emu is not None:
        return emu
    token = _ini(config, "firebase_emulator_admin_token") or None
    handed = getattr(config, "workerinput", {}).get(WORKER_INPUT)
    host = environment_host()
    if handed:
        info = json.loads(handed)
        emu = FirebaseEmulator(info["host"], project_id=info.get("project"), admin_token=token, log_path=info.get("log"))
    elif host:
        emu = FirebaseEmulator(host, admin_token=token)
    else:
        emu = _start(config)
    config.stash[EMULATOR_KEY] = emu
    return emu
