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


def test_the_clock_stays_within_firestores_years_and_never_takes_the_process_down(emulator):
    # Three advances of 98 years each used to overflow the clock's offset and crash the process.
    p = "clock-" + uuid.uuid4().hex[:6]
    register(emulator, p)
    answers = [requests.post(admin(emulator, p) + "/clock:advance", json={"seconds": 3.1e9}, timeout=5) for _ in range(3)]
    assert [a.status_code for a in answers[:2]] == [200, 200], answers[1].text
    refused = answers[2]
    assert refused.status_code == 400 and refused.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert "292 years" in refused.json()["error"]["message"], refused.text
    assert requests.get(admin(emulator, p) + "/clock", timeout=5).json()["offsetSeconds"] == 6.2e9  # unchanged by the refusal
    assert requests.get(f"{emulator.url}/emulator/v1/status", timeout=5).status_code == 200
    # Frozen, it may go anywhere in years 1-9999 and no further.
    def freeze(time):
        return requests.put(admin(emulator, p) + "/clock", json={"mode": "frozen", "time": time}, timeout=5)
    assert freeze("9999-12-31T23:59:00Z").status_code == 200
    late = requests.post(admin(emulator, p) + "/clock:advance", json={"seconds": 60}, timeout=5)
    assert late.status_code == 400 and "9999-12-31T23:59:59.999999999Z" in late.json()["error"]["message"], late.text
    assert requests.get(admin(emulator, p) + "/clock", timeout=5).json()["time"] == "9999-12-31T23:59:00Z"
    early = freeze("0000-06-01T00:00:00Z")
    assert early.status_code == 400 and "0001-01-01T00:00:00Z" in early.json()["error"]["message"], early.text
    assert freeze("0001-01-01T00:00:00Z").status_code == 200
    assert requests.post(admin(emulator, p) + "/clock:advance", json={"seconds": -1}, timeout=5).status_code == 400
    assert requests.get(admin(emulator, p) + "/clock", timeout=5).json()["time"] == "0001-01-01T00:00:00Z"
    # Commit times never go back, so a write stamps the epoch's first microsecond, not year 1.
    d = requests.patch(f"{docs(emulator, p)}/c/t", json={"fields": {}}, headers=OWNER, timeout=5)
    assert d.status_code == 200 and d.json()["updateTime"] == "1970-01-01T00:00:00.000001Z"


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


def test_clock_expires_tokens_and_oob_codes(emulator):
    p = "expiry-" + uuid.uuid4().hex[:6]
    key = "key-" + p
    register(emulator, p, api_key=key)
    requests.put(admin(emulator, p) + "/clock", json={"mode": "frozen", "time": "2032-01-01T00:00:00Z"}, timeout=5).raise_for_status()
    signed = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={key}",
                           json={"email": "x@example.com", "password": "secret123", "returnSecureToken": True}, timeout=5).json()
    token = signed["idToken"]
    doc = f"{docs(emulator, p)}/c/d"
    assert requests.get(doc, headers={"Authorization": f"Bearer {token}"}, timeout=5).status_code == 404  # accepted, doc missing
    code = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/projects/{p}/accounts:sendOobCode",
                         json={"requestType": "PASSWORD_RESET", "email": "x@example.com", "returnOobLink": True}, headers=OWNER, timeout=5)
    assert code.status_code == 200, code.text
    oob = requests.get(f"{emulator.url}/emulator/v1/projects/{p}/oobCodes", timeout=5).json()["oobCodes"][-1]["oobCode"]
    requests.post(admin(emulator, p) + "/clock:advance", json={"seconds": 3601}, timeout=5).raise_for_status()
    expired = requests.get(doc, headers={"Authorization": f"Bearer {token}"}, timeout=5)
    assert expired.status_code == 401, expired.text
    requests.post(admin(emulator, p) + "/clock:advance", json={"seconds": 7 * 86400}, timeout=5).raise_for_status()
    reset = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:resetPassword?key={key}",
                          json={"oobCode": oob, "newPassword": "another123"}, timeout=5)
    assert reset.status_code == 400, reset.text


def test_seeded_uids_repeat_after_reset(emulator):
    p = "seeduid-" + uuid.uuid4().hex[:6]
    key = "key-" + p
    register(emulator, p, api_key=key)

    def run():
        requests.put(admin(emulator, p) + "/seed", json={"seed": 7}, timeout=5).raise_for_status()
        requests.post(admin(emulator, p) + ":reset", timeout=5).raise_for_status()
        return [requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={key}", json={}, timeout=5).json()["localId"]
                for _ in range(2)]

    assert run() == run()


def test_failing_trigger_fault_is_retried_end_to_end(emulator_factory, tmp_path):
    import json as _json
    import pathlib
    import sys
    worker = pathlib.Path(__file__).resolve().parents[1] / "functions" / "worker_py.py"
    cfg = tmp_path / "emulator.json"
    cfg.write_text(_json.dumps({"project": "demo-fault", "functions": {"retryBaseDelaySeconds": 0.01, "codebases": [
        {"name": "py", "command": [sys.executable, str(worker)]}]}}))
    emu = emulator_factory("--config", str(cfg), project=None)
    r = requests.post(admin(emu, "demo-fault") + "/faults", json={"match": {"service": "functions", "function": "pyOnNote"},
                                                                  "error": {"status": "UNAVAILABLE"}, "times": 2}, timeout=5)
    assert r.status_code == 200, r.text
    requests.patch(f"{docs(emu, 'demo-fault')}/notes/n9", json={"fields": {}}, headers=OWNER, timeout=5).raise_for_status()
    assert requests.get(admin(emu, "demo-fault") + ":idle?timeoutMs=10000", timeout=15).status_code == 200
    assert requests.get(f"{docs(emu, 'demo-fault')}/notes-seen/n9", headers=OWNER, timeout=5).status_code == 200
    outcomes = [l["outcome"] for l in requests.get(f"{emu.url}/emulator/v1/projects/demo-fault/functions/logs", timeout=5).json()["invocations"]]
    assert outcomes == ["error", "error", "ok"]


def test_256_projects_in_one_process(emulator):
    s = requests.Session()
    tag = uuid.uuid4().hex[:6]
    names = [f"many-{tag}-{i}" for i in range(256)]
    for i, p in enumerate(names):
        s.post(emulator.url + "/emulator/v1/projects", json={"projectId": p, "apiKey": f"k-{p}"}, timeout=5).raise_for_status()
        s.patch(f"{docs(emulator, p)}/c/only", json={"fields": {"i": {"integerValue": str(i)}}}, headers=OWNER, timeout=5).raise_for_status()
    for i, p in enumerate(names):
        listed = s.get(f"{docs(emulator, p)}/c", headers=OWNER, timeout=5).json()["documents"]
        assert [d["fields"]["i"]["integerValue"] for d in listed] == [str(i)]
    s.post(admin(emulator, names[7]) + ":reset", timeout=5).raise_for_status()
    assert s.get(f"{docs(emulator, names[7])}/c/only", headers=OWNER, timeout=5).status_code == 404
    assert s.get(f"{docs(emulator, names[8])}/c/only", headers=OWNER, timeout=5).status_code == 200
