"""The command line as a user runs it: status routes, exec, graceful shutdown."""
import os
import pathlib
import signal
import subprocess

import requests

from conftest import ROOT

BIN = os.environ.get("EMULATOR_BIN", str(ROOT / ".build" / "debug" / "emulator"))


def test_status_and_hub_listing(emulator):
    status = requests.get(emulator.url + "/emulator/v1/status", timeout=5).json()
    assert status["project"] == emulator.project
    assert set(status["services"]) == {"auth", "firestore", "functions", "hub", "storage", "pubsub"}
    assert status["services"]["auth"]["port"] == emulator.port
    hub = requests.get(emulator.url + "/emulators", timeout=5).json()
    assert hub["firestore"]["port"] == emulator.port
    assert hub["storage"]["port"] == emulator.port  # as the Firebase CLI's hub lists its Storage emulator
    assert hub["pubsub"]["port"] == emulator.port  # as the Firebase CLI's hub lists its Pub/Sub emulator
    assert hub["firestore"]["listen"][0]["family"] == "IPv4"


def test_exec_propagates_exit_code_and_environment():
    script = 'test -n "$FIRESTORE_EMULATOR_HOST" && test -n "$STORAGE_EMULATOR_HOST" && test -n "$PUBSUB_EMULATOR_HOST" && test "$GCLOUD_PROJECT" = demo-exec && exit 7'
    r = subprocess.run([BIN, "exec", "--port", "0", "--project", "demo-exec", "--", "sh", "-c", script],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 7, r.stderr


def test_exec_command_can_reach_the_emulator():
    script = 'curl -sf "http://$FIRESTORE_EMULATOR_HOST/emulator/v1/status" >/dev/null || python3 -c "import os,urllib.request;urllib.request.urlopen(\'http://\'+os.environ[\'FIRESTORE_EMULATOR_HOST\']+\'/emulator/v1/status\')"'
    r = subprocess.run([BIN, "exec", "--port", "0", "--", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_bad_flag_is_one_line_and_exit_2():
    r = subprocess.run([BIN, "start", "--prot", "1"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert r.stderr.strip() == "emulator: unknown flag '--prot' (see --help)"


def test_sigterm_shuts_down_cleanly(emulator_factory):
    emu = emulator_factory()
    emu.proc.send_signal(signal.SIGTERM)
    assert emu.proc.wait(15) == 0


def test_busy_port_is_reported(emulator):
    r = subprocess.run([BIN, "start", "--port", str(emulator.port)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert str(emulator.port) in r.stderr
