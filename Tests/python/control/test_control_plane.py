"""The test-harness control plane from a client's point of view: isolated projects, seeded ids,
faults that clients recover from, snapshots and resets."""
import uuid

import requests

OWNER = {"Authorization": "Bearer owner"}


def docs(emu, project):
    return f"{emu.url}/v1/projects/{project}/databases/(default)/documents"


def admin(emu, project):
    return f"{emu.url}/emulator/v1/projects/{project}"


def register(emu, project, api_key=None):
    body = {"projectId": project}
    if api_key:
        body["apiKey"] = api_key
    r = requests.post(emu.url + "/emulator/v1/projects", json=body, timeout=5)
    r.raise_for_status()


def test_parallel_projects_never_see_each_other(emulator):
    a, b = "suite-" + uuid.uuid4().hex[:6], "suite-" + uuid.uuid4().hex[:6]
    register(emulator, a)
    register(emulator, b)
    requests.patch(f"{docs(emulator, a)}/c/x", json={"fields": {"owner": {"stringValue": "a"}}}, headers=OWNER, timeout=5).raise_for_status()
    assert requests.get(f"{docs(emulator, b)}/c/x", headers=OWNER, timeout=5).status_code == 404
    requests.post(admin(emulator, b) + ":reset", timeout=5).raise_for_status()
    assert requests.get(f"{docs(emulator, a)}/c/x", headers=OWNER, timeout=5).status_code == 200


def test_seeded_ids_repeat_after_reset(emulator):
    p = "seed-" + uuid.uuid4().hex[:6]
    register(emulator, p)

    def run():
        requests.put(admin(emulator, p) + "/seed", json={"seed": 42}, timeout=5).raise_for_status()
        requests.post(admin(emulator, p) + ":reset", timeout=5).raise_for_status()
        return [requests.post(f"{docs(emulator, p)}/items", json={"fields": {}}, headers=OWNER, timeout=5).json()["name"] for _ in range(3)]

    assert run() == run()


def test_injected_aborts_are_survived_by_a_retrying_client(emulator):
    p = "fault-" + uuid.uuid4().hex[:6]
    register(emulator, p)
    base = docs(emulator, p)
    name = f"projects/{p}/databases/(default)/documents/counters/c"
    requests.patch(f"{base}/counters/c", json={"fields": {"n": {"integerValue": "0"}}}, headers=OWNER, timeout=5).raise_for_status()
    r = requests.post(admin(emulator, p) + "/faults", json={"match": {"service": "firestore", "method": "commit"},
                                                           "error": {"status": "ABORTED"}, "times": 3}, timeout=5)
    assert r.status_code == 200, r.text
    attempts = 0
    for _ in range(5):
        while True:
            attempts += 1
            tx = requests.post(f"{base}:beginTransaction", json={}, headers=OWNER, timeout=5).json()["transaction"]
            got = requests.post(f"{base}:batchGet", json={"documents": [name], "transaction": tx}, headers=OWNER, timeout=5).json()
            n = int(got[0]["found"]["fields"]["n"]["integerValue"])
            c = requests.post(f"{base}:commit", json={"transaction": tx, "writes": [
                {"update": {"name": name, "fields": {"n": {"integerValue": str(n + 1)}}}}]}, headers=OWNER, timeout=5)
            if c.status_code == 409:
                assert c.json()["error"]["status"] == "ABORTED"
                continue
            c.raise_for_status()
            break
    assert attempts == 8
    final = requests.get(f"{base}/counters/c", headers=OWNER, timeout=5).json()
    assert final["fields"]["n"]["integerValue"] == "5"
    listed = requests.get(admin(emulator, p) + "/faults", timeout=5).json()["faults"]
    assert listed[0]["fired"] == 3 and listed[0]["remaining"] == 0


def test_snapshot_restore(emulator):
    p = "snap-" + uuid.uuid4().hex[:6]
    register(emulator, p)
    base = docs(emulator, p)
    requests.patch(f"{base}/c/keep", json={"fields": {}}, headers=OWNER, timeout=5).raise_for_status()
    assert requests.post(admin(emulator, p) + "/snapshots", json={"name": "clean"}, timeout=5).status_code == 200
    requests.patch(f"{base}/c/later", json={"fields": {}}, headers=OWNER, timeout=5).raise_for_status()
    assert requests.post(admin(emulator, p) + "/snapshots/clean:restore", timeout=5).status_code == 200
    assert requests.get(f"{base}/c/later", headers=OWNER, timeout=5).status_code == 404
    assert requests.get(f"{base}/c/keep", headers=OWNER, timeout=5).status_code == 200
    assert [s["name"] for s in requests.get(admin(emulator, p) + "/snapshots", timeout=5).json()["snapshots"]] == ["clean"]
    assert requests.post(admin(emulator, p) + "/snapshots/nope:restore", timeout=5).status_code == 404


def test_clock_drives_update_times(emulator):
    p = "clock-" + uuid.uuid4().hex[:6]
    register(emulator, p)
    requests.put(admin(emulator, p) + "/clock", json={"mode": "frozen", "time": "2031-05-01T12:00:00Z"}, timeout=5).raise_for_status()
    d = requests.patch(f"{docs(emulator, p)}/c/t", json={"fields": {}}, headers=OWNER, timeout=5).json()
    assert d["updateTime"] == "2031-05-01T12:00:00Z"
    requests.post(admin(emulator, p) + "/clock:advance", json={"seconds": 90}, timeout=5).raise_for_status()
    d = requests.patch(f"{docs(emulator, p)}/c/t", json={"fields": {"x": {"nullValue": None}}}, headers=OWNER, timeout=5).json()
    assert d["updateTime"] == "2031-05-01T12:01:30Z"


def test_unknown_projects_are_404(emulator):
    for path in ["/clock", "/seed", "/faults", "/snapshots", ":reset"]:
        method = requests.post if path == ":reset" else requests.get
        assert method(admin(emulator, "never-used-" + uuid.uuid4().hex[:6]) + path, timeout=5).status_code == 404


def test_anonymous_ttl_purges_without_new_sign_ups(emulator_factory, tmp_path):
    import json as _json
    cfg = tmp_path / "emulator.json"
    cfg.write_text(_json.dumps({"auth": {"anonymousTtlSeconds": 60}}))
    emu = emulator_factory("--config", str(cfg))
    r = requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", json={}, timeout=5).json()
    uid = r["localId"]
    requests.post(admin(emu, emu.project) + "/clock:advance", json={"seconds": 120}, timeout=5).raise_for_status()

    def exists():
        found = requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/projects/{emu.project}/accounts:lookup",
                              json={"localId": [uid]}, headers=OWNER, timeout=5).json()
        return bool(found.get("users"))

    import time as _time
    deadline = _time.time() + 8
    while exists():
        assert _time.time() < deadline, "anonymous user was not purged"
        _time.sleep(0.2)
