"""Durability: --data-dir survives SIGKILL during a write load; exports are atomic and re-importable."""
import os
import signal
import threading

import requests

from conftest import RunningEmulator


def docs_url(emu, project="demo-test"):
    return f"{emu.url}/v1/projects/{project}/databases/(default)/documents"


OWNER = {"Authorization": "Bearer owner"}


def test_kill_9_during_writes_loses_nothing_acknowledged(tmp_path):
    data = str(tmp_path / "data")
    emu = RunningEmulator(["--data-dir", data])
    acknowledged = []
    stop = threading.Event()

    def writer(n):
        s = requests.Session()
        i = 0
        while not stop.is_set() and i < 2000:
            doc = f"w{n}-{i}"
            try:
                r = s.patch(f"{docs_url(emu)}/load/{doc}", json={"fields": {"i": {"integerValue": str(i)}}}, headers=OWNER, timeout=5)
            except requests.RequestException:
                return
            if r.status_code == 200:
                acknowledged.append(doc)
            i += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    while len(acknowledged) < 300:
        pass
    emu.proc.send_signal(signal.SIGKILL)
    emu.proc.wait(10)
    stop.set()
    for t in threads:
        t.join()
    assert len(acknowledged) >= 300

    again = RunningEmulator(["--data-dir", data])
    try:
        s = requests.Session()
        missing = [d for d in acknowledged if s.get(f"{docs_url(again)}/load/{d}", headers=OWNER, timeout=5).status_code != 200]
        assert missing == []
    finally:
        again.stop()


def test_torn_journal_tail_is_dropped_not_fatal(tmp_path):
    data = tmp_path / "data"
    emu = RunningEmulator(["--data-dir", str(data)])
    requests.patch(f"{docs_url(emu)}/c/kept", json={"fields": {}}, headers=OWNER, timeout=5).raise_for_status()
    emu.proc.send_signal(signal.SIGKILL)
    emu.proc.wait(10)
    journal = sorted(p for p in os.listdir(data) if p.startswith("journal-"))[-1]
    with open(data / journal, "ab") as f:
        f.write(b"\x40\x00\x00\x00garbage")  # a record header promising 64 bytes that never came
    again = RunningEmulator(["--data-dir", str(data)])
    try:
        assert requests.get(f"{docs_url(again)}/c/kept", headers=OWNER, timeout=5).status_code == 200
    finally:
        again.stop()


def test_reset_and_restore_are_durable(tmp_path):
    data = str(tmp_path / "data")
    emu = RunningEmulator(["--data-dir", data])
    base = emu.url + "/emulator/v1/projects/demo-test"
    requests.patch(f"{docs_url(emu)}/c/a", json={"fields": {}}, headers=OWNER, timeout=5).raise_for_status()
    requests.post(base + "/snapshots", json={"name": "one"}, timeout=5).raise_for_status()
    requests.patch(f"{docs_url(emu)}/c/b", json={"fields": {}}, headers=OWNER, timeout=5).raise_for_status()
    requests.post(base + "/snapshots/one:restore", timeout=5).raise_for_status()
    emu.stop()
    again = RunningEmulator(["--data-dir", data])
    try:
        assert requests.get(f"{docs_url(again)}/c/a", headers=OWNER, timeout=5).status_code == 200
        assert requests.get(f"{docs_url(again)}/c/b", headers=OWNER, timeout=5).status_code == 404
        requests.post(again.url + "/emulator/v1/projects/demo-test:reset", timeout=5).raise_for_status()
    finally:
        again.stop()
    third = RunningEmulator(["--data-dir", data])
    try:
        assert requests.get(f"{docs_url(third)}/c/a", headers=OWNER, timeout=5).status_code == 404
    finally:
        third.stop()


def test_export_import_round_trip_and_export_on_exit(tmp_path, emulator):
    out = str(tmp_path / "export")
    requests.patch(f"{docs_url(emulator)}/exp/one", json={"fields": {"v": {"integerValue": "1"}}}, headers=OWNER, timeout=5).raise_for_status()
    r = requests.post(emulator.url + "/emulator/v1/projects/demo-test:export", json={"path": out}, timeout=10)
    assert r.status_code == 200, r.text
    assert os.path.exists(os.path.join(out, "metadata.json"))
    # A second export replaces the first atomically.
    assert requests.post(emulator.url + "/emulator/v1/projects/demo-test:export", json={"path": out}, timeout=10).status_code == 200
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p or ".old-" in p]

    fresh = RunningEmulator(["--import", out, "--export-on-exit", str(tmp_path / "on-exit")])
    try:
        got = requests.get(f"{docs_url(fresh)}/exp/one", headers=OWNER, timeout=5).json()
        assert got["fields"]["v"]["integerValue"] == "1"
    finally:
        fresh.stop()
    assert os.path.exists(tmp_path / "on-exit" / "firestore" / "demo-test.json")

    bad = requests.post(emulator.url + "/emulator/v1/projects/demo-test:export", json={"path": "../escape"}, timeout=5)
    assert bad.status_code == 400
    missing = requests.post(emulator.url + "/emulator/v1/projects/demo-test:import", json={"path": str(tmp_path / "nope")}, timeout=5)
    assert missing.status_code == 404


def test_firebase_emulator_auth_export_loads(tmp_path):
    """An export written by the Firebase Auth emulator (auth_export/accounts.json with fake hashes)."""
    import json
    export = tmp_path / "firebase-export"
    (export / "auth_export").mkdir(parents=True)
    (export / "firebase-export-metadata.json").write_text(json.dumps({"version": "13.0.0", "auth": {"version": "13.0.0", "path": "auth_export"}}))
    (export / "auth_export" / "config.json").write_text(json.dumps({"signIn": {"allowDuplicateEmails": False}}))
    (export / "auth_export" / "accounts.json").write_text(json.dumps({"kind": "identitytoolkit#DownloadAccountResponse", "users": [
        {"localId": "u-ada", "email": "ada@example.com", "emailVerified": True, "passwordHash": "fakeHash:salt=fakeSaltAbc:password=lovelace1",
         "salt": "fakeSaltAbc", "displayName": "Ada", "createdAt": "1700000000000", "lastLoginAt": "1700000000000",
         "providerUserInfo": [{"providerId": "password", "email": "ada@example.com", "federatedId": "ada@example.com", "rawId": "ada@example.com"}]},
        {"localId": "u-grace", "email": "grace@gmail.com", "createdAt": "1700000000000",
         "providerUserInfo": [{"providerId": "google.com", "rawId": "google-grace", "federatedId": "google-grace", "email": "grace@gmail.com"}]},
    ]}))
    emu = RunningEmulator(["--import", str(export), "--export-on-exit", str(tmp_path / "ours")])
    try:
        r = requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                          json={"email": "ada@example.com", "password": "lovelace1", "returnSecureToken": True}, timeout=5)
        assert r.status_code == 200, r.text
        assert r.json()["localId"] == "u-ada"
        found = requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/projects/{emu.project}/accounts:lookup",
                              json={"localId": ["u-grace"]}, headers=OWNER, timeout=5).json()["users"][0]
        assert found["providerUserInfo"][0]["providerId"] == "google.com"
    finally:
        emu.stop()
    accounts = json.loads((tmp_path / "ours" / "auth_export" / "accounts.json").read_text())
    assert {u["localId"] for u in accounts["users"]} == {"u-ada", "u-grace"}
    assert (tmp_path / "ours" / "firebase-export-metadata.json").exists()
