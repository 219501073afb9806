"""An unmodified Python codebase (firebase-functions from PyPI) served from an existing firebase.json:
discovery, callables and token handling, HTTP functions, blocking functions, the environment the
functions see, scheduled, Pub/Sub and task-queue functions, logs, timeouts and faults."""
import base64
import concurrent.futures
import json

import pytest
import requests

from functions_python.sdk import (CODEBASE, GRPC_SKIP_REASON, OWNER, call, claims, grpc_available, idle, listing, logs, make_project, sign_in,
                                  sign_up, start, wait_for)

PROJECT = "demo-pyfunctions"


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    folder = make_project(tmp_path_factory.mktemp("project"), PROJECT)
    e = start(folder)
    assert e.project == PROJECT
    yield e
    e.stop()


def test_discovery_reports_every_function_with_its_kind_and_regions(emu):
    listed = listing(emu)
    functions = {f["name"]: (f["trigger"], f["regions"]) for f in listed["functions"]}
    central = ["us-central1"]
    assert functions == {
        "whoami": ("callable", central), "environment": ("callable", central), "slow": ("callable", central),
        "crash": ("callable", central), "pid": ("callable", central), "verify_token": ("callable", central), "enqueue": ("callable", central), "store_roundtrip": ("callable", central),
        "echo": ("http", ["europe-west1"]), "regional": ("http", ["us-east1", "asia-northeast1"]),
        "on_task_written": ("document.written tasks/{taskId}", central), "on_note_created": ("document.created notes/{noteId}", central),
        "before_create": ("beforeCreate", central), "before_sign_in": ("beforeSignIn", central),
        "tick": ("schedule every 5 minutes", central), "on_order": ("pubsub orders", central), "work": ("taskQueue", central),
    }
    assert {f["name"]: f["timeoutSeconds"] for f in listed["functions"]}["slow"] == 2
    assert {f["name"]: f["retry"] for f in listed["functions"]}["on_order"] is True
    [codebase] = listed["codebases"]
    assert codebase["name"] == "default" and codebase["state"] == "ready" and codebase["functions"] == 17
    assert codebase["source"].endswith("/functions") and codebase["runtime"] == "python311"


def test_callable_without_token_has_no_auth_and_logs_its_output(emu):
    r = call(emu, "whoami", {"x": 1})
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert result["uid"] is None and result["data"] == {"x": 1} and result["version"] == "v1"
    record = logs(emu, "whoami")[-1]
    assert record["outcome"] == "ok" and record["trigger"] == "callable"
    assert record["logs"] == ["whoami called by None", "a line on stderr"]


def test_callable_with_a_real_token_sees_the_user(emu):
    user = sign_up(emu, "caller@example.com").json()
    r = call(emu, "whoami", None, token=user["idToken"])
    assert r.status_code == 200, r.text
    assert r.json()["result"]["uid"] == user["localId"] and r.json()["result"]["signInProvider"] == "password"


def test_the_emulator_checks_tokens_before_the_sdk_sees_them(emu):
    # Default tokens are unsigned, as Firebase's emulator mints them (forging needs signIdTokens:
    # see test_signed_tokens.py); what is not a token of this project is refused here already.
    user = sign_up(emu, "victim@example.com").json()
    other_project = claims(user["idToken"])
    other_project["aud"] = "someone-elses-project"
    head = user["idToken"].split(".")[0]
    wrong_aud = head + "." + base64.urlsafe_b64encode(json.dumps(other_project).encode()).rstrip(b"=").decode() + "."
    for bad in ["not-a-jwt", wrong_aud]:
        r = call(emu, "whoami", None, token=bad)
        assert r.status_code == 401 and r.json()["error"]["status"] == "UNAUTHENTICATED", (bad, r.text)
    r = call(emu, "whoami", None, headers={"Authorization": "Basic abc"})
    assert r.status_code == 401 and r.json()["error"]["status"] == "UNAUTHENTICATED"
    # A lowercase scheme passes our check but not the SDK's (it wants "Bearer "): still 401.
    r = call(emu, "whoami", None, headers={"Authorization": "bearer " + user["idToken"]})
    assert r.status_code == 401 and r.json()["error"] == {"message": "Unauthenticated", "status": "UNAUTHENTICATED"}


def test_expired_tokens_are_refused_on_the_project_clock(emu):
    user = sign_up(emu, "expiring@example.com").json()
    admin = f"{emu.url}/emulator/v1/projects/{emu.project}"
    requests.post(admin + "/clock:advance", json={"seconds": 7200}, timeout=5).raise_for_status()
    try:
        r = call(emu, "whoami", None, token=user["idToken"])
        assert r.status_code == 401 and r.json()["error"]["status"] == "UNAUTHENTICATED"
    finally:
        requests.put(admin + "/clock", json={"mode": "system"}, timeout=5).raise_for_status()


def test_firebase_admin_verifies_id_tokens_through_the_emulator(emu):
    user = sign_up(emu, "verified@example.com").json()
    assert call(emu, "verify_token", user["idToken"]).json()["result"] == user["localId"]
    # In its emulator mode firebase_admin checks no expiry; the emulator does, on the project clock.
    admin = f"{emu.url}/emulator/v1/projects/{emu.project}"
    requests.post(admin + "/clock:advance", json={"seconds": 7200}, timeout=5).raise_for_status()
    try:
        r = call(emu, "verify_token", user["idToken"])
        assert r.status_code == 401 and r.json()["error"]["message"].startswith("expired:"), r.text
    finally:
        requests.put(admin + "/clock", json={"mode": "system"}, timeout=5).raise_for_status()
    r = call(emu, "verify_token", "not-a-token")
    assert r.status_code == 401 and r.json()["error"]["message"].startswith("invalid:"), r.text


def test_functions_reach_the_store_with_firebase_admin(emu):
    if not grpc_available(emu):
        pytest.skip(GRPC_SKIP_REASON)
    r = call(emu, "store_roundtrip", {"id": "r1", "value": 7})
    assert r.status_code == 200 and r.json()["result"] == {"value": 7}, r.text
    doc = requests.get(f"{emu.url}/v1/projects/{emu.project}/databases/(default)/documents/roundtrip/r1", headers=OWNER, timeout=10).json()
    assert doc["fields"]["value"] == {"integerValue": "7"}


def test_callable_errors_use_the_envelope(emu):
    r = call(emu, "whoami", {"fail": "https"})
    assert r.status_code == 400 and r.json() == {"error": {"status": "FAILED_PRECONDITION", "message": "asked to fail", "details": {"why": "test"}}}
    r = call(emu, "whoami", {"fail": "exception"})
    assert r.status_code == 500 and r.json() == {"error": {"status": "INTERNAL", "message": "INTERNAL"}}
    bad = requests.post(f"{emu.url}/{emu.project}/us-central1/whoami", json={"data": 1, "extra": 2}, timeout=10)
    assert bad.status_code == 400 and bad.json()["error"] == {"status": "INVALID_ARGUMENT", "message": "Bad Request"}
    get = requests.get(f"{emu.url}/{emu.project}/us-central1/whoami", timeout=10)
    assert get.status_code == 400 and get.json()["error"]["status"] == "INVALID_ARGUMENT"
    missing = call(emu, "whoami", None, region="europe-west1")
    assert missing.status_code == 404


def test_http_function_sees_the_stripped_path_query_method_and_body(emu):
    url = f"{emu.url}/{emu.project}/europe-west1/echo"
    r = requests.post(url + "/some/path?q=1&r=2", data="hello", headers={"X-Test": "t"}, timeout=10)
    assert r.status_code == 200, r.text
    assert r.json() == {"method": "POST", "path": "/some/path", "query": "q=1&r=2", "body": "hello", "header": "t", "invocationHeader": None}
    assert r.headers["X-Echo"] == "yes"
    put = requests.put(url, data="x", timeout=10)
    assert put.status_code == 201 and put.json()["path"] == "/"
    assert requests.get(f"{emu.url}/{emu.project}/us-central1/echo", timeout=10).status_code == 404
    for region in ["us-east1", "asia-northeast1"]:
        assert requests.get(f"{emu.url}/{emu.project}/{region}/regional", timeout=10).text == "regional ok"


def test_the_environment_is_the_one_the_cli_gives(emu):
    user = sign_up(emu, "env@example.com").json()
    r = call(emu, "environment", None, token=user["idToken"])
    assert r.status_code == 200, r.text
    env = r.json()["result"]
    hostport = emu.addresses["functions"]
    assert env["GCLOUD_PROJECT"] == PROJECT and env["FUNCTIONS_EMULATOR"] == "true" and env["K_REVISION"] == "1" and env["TZ"] == "UTC"
    assert json.loads(env["FIREBASE_CONFIG"])["projectId"] == PROJECT
    assert env["FUNCTION_TARGET"] == env["K_SERVICE"] == "environment" and env["FUNCTION_SIGNATURE_TYPE"] == "http"
    assert env["FROM_DOTENV"] == "dotenv value" and env["FROM_LOCAL"] == "local value"
    assert env["GREETING"] == env["greeting"] == "hi from .env"  # .env wins over the param's default
    assert env["MAX_ITEMS"] == "3" and env["maxItems"] == 3  # the default, as no .env sets it
    assert env["FIREBASE_AUTH_EMULATOR_HOST"] == hostport and env["FIRESTORE_EMULATOR_HOST"] == hostport
    assert env["CLOUD_TASKS_EMULATOR_HOST"] == hostport and env["HOST"] == "127.0.0.1" and env["portIsSet"] is True
    assert env["credentialsType"] == "service_account" and env["customTokenParts"] == 3
    assert env["email"] == "env@example.com"  # firebase_admin.auth.get_user reached our Auth


def test_blocking_functions_reject_and_modify(emu):
    blocked = sign_up(emu, "eve@blocked.example")
    assert blocked.status_code == 400
    assert blocked.json()["error"]["message"] == "BLOCKING_FUNCTION_ERROR_RESPONSE : ((PERMISSION_DENIED: Sign-ups from blocked.example are not allowed.))"
    ok = sign_up(emu, "alice@example.com")
    assert ok.status_code == 200, ok.text
    token = claims(ok.json()["idToken"])
    assert token["role"] == "tester" and token["created"] is True and token["signInMethod"] == "password"
    looked = requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/projects/{emu.project}/accounts:lookup",
                           json={"localId": [ok.json()["localId"]]}, headers=OWNER, timeout=10).json()["users"][0]
    assert looked["displayName"] == "Made for alice" and looked["photoUrl"] == "https://example.com/p.png"
    assert json.loads(looked["customAttributes"]) == {"role": "tester", "created": True}
    again = sign_in(emu, "alice@example.com")
    assert again.status_code == 200 and claims(again.json()["idToken"])["signInMethod"] == "password"
    plain = sign_up(emu, "plain@example.com").json()
    assert "role" not in claims(plain["idToken"])
    recorded = [l["trigger"] for l in logs(emu) if l["function"] in ("before_create", "before_sign_in")]
    assert "beforeCreate" in recorded and "beforeSignIn" in recorded


def test_firestore_triggers_get_protobuf_cloudevents_with_before_and_after(emu):
    docs = f"{emu.url}/v1/projects/{emu.project}/databases/(default)/documents"
    first = {"title": {"stringValue": "write"}, "done": {"booleanValue": False}, "n": {"integerValue": "1"},
             "tags": {"arrayValue": {"values": [{"stringValue": "a"}]}}, "at": {"timestampValue": "2026-01-02T03:04:05.123456Z"},
             "where": {"geoPointValue": {"latitude": 1.5, "longitude": -2.5}}, "nested": {"mapValue": {"fields": {"x": {"doubleValue": 0.5}}}},
             "nothing": {"nullValue": None}, "raw": {"bytesValue": "AAE="}, "ref": {"referenceValue": f"projects/{emu.project}/databases/(default)/documents/a/b"}}
    assert requests.patch(f"{docs}/tasks/t1", json={"fields": first}, headers=OWNER, timeout=10).status_code == 200
    second = dict(first, n={"integerValue": "2"}, done={"booleanValue": True})
    assert requests.patch(f"{docs}/tasks/t1", json={"fields": second}, headers=OWNER, timeout=10).status_code == 200
    assert requests.delete(f"{docs}/tasks/t1", headers=OWNER, timeout=10).status_code == 200
    idle(emu)
    seen = [json.loads(line[len("TASK "):]) for r in logs(emu, "on_task_written") for line in r["logs"] if line.startswith("TASK ")]
    assert len(seen) == 3 and all(r["outcome"] == "ok" for r in logs(emu, "on_task_written"))
    created, updated, deleted = seen
    expected_first = {"title": "write", "done": False, "n": 1, "tags": ["a"], "at": "2026-01-02 03:04:05.123456+00:00",
                      "where": "GeoPoint{latitude=1.5, longitude=-2.5}", "nested": {"x": 0.5}, "nothing": None, "raw": "b'\\x00\\x01'",
                      "ref": "DocumentReference"}
    assert created["before"] is None and set(created["after"]) == set(expected_first)
    for key in ["title", "done", "n", "tags", "at", "nested", "nothing"]:
        assert created["after"][key] == expected_first[key], key
    assert created["after"]["raw"] in ("b'\\x00\\x01'", "b'\x00\x01'")
    assert updated["before"]["n"] == 1 and updated["after"]["n"] == 2 and updated["after"]["done"] is True
    assert deleted["before"]["n"] == 2 and deleted["after"] is None
    assert created["params"] == {"taskId": "t1"} and created["document"] == "tasks/t1" and created["database"] == "(default)"
    assert created["location"] == "us-central1" and created["type"] == "google.cloud.firestore.document.v1.written"


def test_auth_context_triggers_name_who_wrote(emu):
    docs = f"{emu.url}/v1/projects/{emu.project}/databases/(default)/documents"
    user = sign_up(emu, "writer@example.com").json()
    assert requests.patch(f"{docs}/notes/by-admin", json={"fields": {"v": {"integerValue": "1"}}}, headers=OWNER, timeout=10).status_code == 200
    assert requests.patch(f"{docs}/notes/by-user", json={"fields": {"v": {"integerValue": "2"}}},
                          headers={"Authorization": "Bearer " + user["idToken"]}, timeout=10).status_code == 200
    # An update is not a creation: no event for on_note_created.
    assert requests.patch(f"{docs}/notes/by-admin", json={"fields": {"v": {"integerValue": "3"}}}, headers=OWNER, timeout=10).status_code == 200
    idle(emu)
    seen = {}
    for r in logs(emu, "on_note_created"):
        for line in r["logs"]:
            if line.startswith("NOTE "):
                n = json.loads(line[5:])
                seen[n["params"]["noteId"]] = n
    assert set(seen) == {"by-admin", "by-user"}
    assert seen["by-admin"]["authType"] == "service_account" and seen["by-user"]["authType"] == "app_user"
    assert seen["by-user"]["data"] == {"v": 2} and seen["by-user"]["authId"] == user["localId"]


def test_scheduled_function_runs_on_demand(emu):
    r = requests.post(f"{emu.url}/emulator/v1/projects/{emu.project}/functions/tick:run", json={"scheduleTime": "2026-01-02T03:05:00Z"}, timeout=10)
    assert r.status_code == 200, r.text
    idle(emu)
    record = [l for l in logs(emu, "tick") if l["eventId"] == r.json()["eventId"]][0]
    assert record["outcome"] == "ok" and record["trigger"] == "schedule.run"
    assert record["logs"] == ["tick firebase-schedule-tick-us-central1 2026-01-02T03:05:00+00:00"]
    missing = requests.post(f"{emu.url}/emulator/v1/projects/{emu.project}/functions/whoami:run", json={}, timeout=10)
    assert missing.status_code == 404


def test_pubsub_messages_are_delivered_with_retries(emu):
    def publish(payload, attributes):
        return requests.post(f"{emu.url}/v1/projects/{emu.project}/topics/orders:publish", timeout=10, json={"messages": [
            {"data": base64.b64encode(json.dumps(payload).encode()).decode(), "attributes": attributes}]})
    first = publish({"item": "book"}, {"kind": "new"})
    flaky = publish({"item": "lamp"}, {"fail": "once"})
    assert first.status_code == 200 and len(first.json()["messageIds"]) == 1, first.text
    idle(emu)
    records = logs(emu, "on_order")
    delivered = [json.loads(line[len("ORDER "):]) for r in records for line in r["logs"] if line.startswith("ORDER ")]
    assert {"data": {"item": "book"}, "attributes": {"kind": "new"}, "attempt": 1,
            "subscription": f"projects/{PROJECT}/subscriptions/eventarc-us-central1-on_order"} in delivered
    lamp = [d for d in delivered if d["data"] == {"item": "lamp"}]
    assert len(lamp) == 1 and lamp[0]["attempt"] == 2
    flaky_id = flaky.json()["messageIds"][0]
    assert [r["outcome"] for r in records if r["eventId"] == flaky_id] == ["error", "ok"]
    bad = requests.post(f"{emu.url}/v1/projects/{emu.project}/topics/orders:publish", json={"messages": [{"data": "%%%"}]}, timeout=10)
    assert bad.status_code == 400


def test_task_queue_functions_run_tasks_enqueued_with_firebase_admin(emu):
    r = call(emu, "enqueue", {"job": 42})
    assert r.status_code == 200 and r.json()["result"] == "queued", r.text
    idle(emu)
    [record] = [l for l in logs(emu, "work") if l["outcome"] == "ok"]
    assert record["logs"] == ['WORK {"job": 42}'] and record["trigger"] == "task.dispatched"


def test_timeouts_kill_the_process_and_the_next_call_gets_a_new_one(emu):
    before = call(emu, "slow", 0).json()
    assert before["result"] == "done"
    r = call(emu, "slow", 10)
    assert r.status_code == 504 and r.json()["error"]["status"] == "DEADLINE_EXCEEDED"
    assert call(emu, "slow", 0).json()["result"] == "done"


def test_a_crash_fails_the_call_and_the_next_call_starts_a_new_process(emu):
    pid = call(emu, "whoami").json()["result"]["pid"]
    r = call(emu, "crash")
    assert r.status_code == 503 and r.json()["error"]["status"] == "UNAVAILABLE", r.text
    record = logs(emu, "crash")[-1]
    assert record["outcome"] == "error" and "exit status 7" in record["error"] and "about to crash" in record["logs"]
    # Other functions keep their own processes.
    assert call(emu, "whoami").json()["result"]["pid"] == pid
    again = call(emu, "crash")
    assert again.status_code == 503


def test_concurrent_first_calls_share_one_process(emu):
    # `pid` has not been called yet: eight calls at once start exactly one process.
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: call(emu, "pid"), range(8)))
    assert all(r.status_code == 200 for r in results), [r.text for r in results]
    assert len({r.json()["result"] for r in results}) == 1


def test_faults_apply_to_python_functions(emu):
    rule = {"match": {"service": "functions", "function": "whoami"}, "error": {"status": "UNAVAILABLE", "message": "injected"}, "times": 1}
    r = requests.post(f"{emu.url}/emulator/v1/projects/{emu.project}/faults", json=rule, timeout=5)
    assert r.status_code == 200, r.text
    failed = call(emu, "whoami")
    assert failed.status_code == 503 and failed.json()["error"] == {"status": "UNAVAILABLE", "message": "injected"}
    assert call(emu, "whoami").status_code == 200
