"""What `--admin-token` protects (see SECURITY.md), pinned against a dedicated emulator."""
import pytest
import requests

TIMEOUT = 10


@pytest.fixture(scope="module")
def guarded():
    from conftest import RunningEmulator
    emu = RunningEmulator(("--admin-token", "s3cret"), project="guarded")
    yield emu
    emu.stop()


def test_admin_api_needs_the_token(guarded):
    r = requests.get(guarded.url + "/emulator/v1/status", timeout=TIMEOUT)
    assert r.status_code == 401 and "admin token" in r.json()["error"]["message"]
    wrong = requests.get(guarded.url + "/emulator/v1/status", headers={"Authorization": "Bearer nope"}, timeout=TIMEOUT)
    assert wrong.status_code == 401
    ok = requests.get(guarded.url + "/emulator/v1/status", headers={"Authorization": "Bearer s3cret"}, timeout=TIMEOUT)
    assert ok.status_code == 200


def test_route_listing_needs_the_token(guarded):
    assert requests.get(guarded.url + "/emulator/v1/routes", timeout=TIMEOUT).status_code == 401
    ok = requests.get(guarded.url + "/emulator/v1/routes", headers={"Authorization": "Bearer s3cret"}, timeout=TIMEOUT)
    assert ok.status_code == 200 and {"method": "GET", "path": "/emulator/v1/routes"} in ok.json()["routes"]


def test_admin_reset_needs_the_token(guarded):
    r = requests.post(guarded.url + "/emulator/v1/reset", timeout=TIMEOUT)
    assert r.status_code == 401


def test_firebase_compatible_reset_needs_the_token(guarded):
    doc = guarded.url + "/v1/projects/guarded/databases/(default)/documents/keep/me"
    assert requests.patch(doc, json={"fields": {}}, headers={"Authorization": "Bearer owner"}, timeout=TIMEOUT).status_code == 200
    assert requests.post(guarded.url + "/reset", timeout=TIMEOUT).status_code == 401
    assert requests.get(doc, headers={"Authorization": "Bearer owner"}, timeout=TIMEOUT).status_code == 200


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_non_loopback_bind_without_token_is_refused(host):
    """The process exits at once with a message naming the fix, before listening anywhere."""
    import os
    import subprocess
    from conftest import ROOT
    binary = os.environ.get("EMULATOR_BIN", str(ROOT / ".build" / "debug" / "emulator"))
    p = subprocess.run([binary, "start", "--port", "0", "--host", host], capture_output=True, text=True, timeout=30)
    assert p.returncode != 0
    assert "--admin-token" in p.stderr and "emulator ready" not in p.stderr
