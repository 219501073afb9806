"""Which answer wins when a request breaks a rule and something else at once, as Google's Firestore
emulator (production's rules engine) answers; found by the differential harness's `rules` kind
(docs/differences.md). Unsigned `alg: none` ID tokens, as rules-unit-testing mints them."""
import base64
import json
import time
import uuid

import pytest
import requests


def token(project, uid):
    def b64(o):
        return base64.urlsafe_b64encode(json.dumps(o).encode()).rstrip(b"=").decode()
    now = int(time.time())
    return b64({"alg": "none", "typ": "JWT"}) + "." + b64({
        "iss": f"https://securetoken.google.com/{project}", "aud": project, "iat": now, "exp": now + 3600,
        "auth_time": now, "sub": uid, "user_id": uid, "firebase": {"sign_in_provider": "custom", "identities": {}}}) + "."


@pytest.fixture
def project(emulator):
    pid = "order-" + uuid.uuid4().hex[:8]
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid}, timeout=5).raise_for_status()
    base = f"{emulator.url}/v1/projects/{pid}/databases/(default)/documents"
    requests.patch(f"{base}/x/a", json={"fields": {"v": {"integerValue": "1"}}}, headers={"Authorization": "Bearer owner"},
                   timeout=5).raise_for_status()

    def load(body):
        rules = "rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents {\n" + body + "\n} }\n"
        r = requests.put(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules", json={"rules": {"files": [{"content": rules}]}}, timeout=5)
        assert r.status_code == 200, r.text

    def commit(*writes):
        r = requests.post(f"{base}:commit", json={"writes": list(writes)}, headers={"Authorization": f"Bearer {token(pid, 'alice')}"}, timeout=5)
        return r.status_code, r.json().get("error", {}).get("status")

    return pid, base, load, commit


def name(pid, path):
    return f"projects/{pid}/databases/(default)/documents/{path}"


def create(pid, path, **fields):
    return {"update": {"name": name(pid, path), "fields": {k: {"integerValue": str(v)} for k, v in fields.items()}},
            "currentDocument": {"exists": False}}


def test_a_denied_create_of_an_existing_document_is_permission_denied(project):
    pid, _, load, commit = project
    load("match /x/{d} { allow update: if true; }")
    assert commit(create(pid, "x/a")) == (403, "PERMISSION_DENIED")  # judged as a create, not by existence
    load("match /x/{d} { allow create: if resource == null; }")
    assert commit(create(pid, "x/a")) == (403, "PERMISSION_DENIED")  # resource is the stored document
    load("match /x/{d} { allow create: if request.resource.data.keys().size() == 0; }")
    assert commit(create(pid, "x/a")) == (409, "ALREADY_EXISTS")  # allowed, then the precondition


def test_a_denied_update_or_delete_of_a_missing_document_is_permission_denied(project):
    pid, _, load, commit = project
    update = {"update": {"name": name(pid, "x/zz"), "fields": {"w": {"integerValue": "2"}}}, "updateMask": {"fieldPaths": ["w"]},
              "currentDocument": {"exists": True}}
    delete = {"delete": name(pid, "x/zz"), "currentDocument": {"exists": True}}
    load("match /x/{d} { allow create: if true; }")
    assert commit(update) == (403, "PERMISSION_DENIED")  # judged as an update
    assert commit(delete) == (403, "PERMISSION_DENIED")
    load("match /x/{d} { allow update, delete: if true; }")
    assert commit(update) == (404, "NOT_FOUND")
    assert commit(delete) == (404, "NOT_FOUND")


def test_every_write_of_a_batch_is_judged_before_any_precondition(project):
    pid, _, load, commit = project
    load("match /x/{d} { allow create: if true; } match /y/{d} { allow write: if false; }")
    denied = {"update": {"name": name(pid, "y/b"), "fields": {}}}
    assert commit(create(pid, "x/a"), denied) == (403, "PERMISSION_DENIED")
    assert commit(denied, create(pid, "x/a")) == (403, "PERMISSION_DENIED")
    assert commit(create(pid, "x/a"), create(pid, "x/new")) == (409, "ALREADY_EXISTS")


def test_listing_missing_documents_needs_admin(project, emulator):
    pid, base, load, _ = project
    load("match /x/{d} { allow list: if true; }")
    user = {"Authorization": f"Bearer {token(pid, 'alice')}"}
    assert requests.get(f"{base}/x", headers=user, timeout=5).status_code == 200
    r = requests.get(f"{base}/x?showMissing=true", headers=user, timeout=5)
    assert r.status_code == 403 and r.json()["error"]["message"] == "Metadata operations require admin authentication.", r.text
    assert requests.get(f"{base}/x?showMissing=true", headers={"Authorization": "Bearer owner"}, timeout=5).status_code == 200
