"""gRPC requests get everything REST requests get: `authorization` metadata means what REST's
Authorization header means, Security Rules, faults, the project clock, the journal-visible commit
path; plus firebase-admin's `firestore.client()` and a 10 MB RunQuery streamed to the end."""
import json
import time
import uuid

import grpc
import pytest
import requests
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1.services.firestore import FirestoreClient
from google.cloud.firestore_v1.services.firestore.transports import FirestoreGrpcTransport
from google.cloud.firestore_v1.types import firestore as firestore_pb

from rules.test_rules_enforcement import RULES, sign_up


def gapic(emulator):
    """The generated client over a plain insecure channel: metadata is exactly what we pass."""
    channel = grpc.insecure_channel(f"{emulator.host}:{emulator.port}")
    return FirestoreClient(transport=FirestoreGrpcTransport(channel=channel))


@pytest.fixture
def project(emulator):
    pid = "grpc-" + uuid.uuid4().hex[:8]
    key = "key-" + pid
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid, "apiKey": key}, timeout=5).raise_for_status()
    r = requests.put(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules",
                     json={"rules": {"files": [{"name": "firestore.rules", "content": RULES}]}}, timeout=5)
    assert r.status_code == 200, r.text
    return pid, key


def auth(token):
    return [("authorization", f"Bearer {token}")]


def test_rules_apply_to_grpc_with_id_tokens(emulator, project):
    pid, key = project
    alice, alice_uid = sign_up(emulator, key)
    bob, _ = sign_up(emulator, key)
    api = gapic(emulator)
    parent = f"projects/{pid}/databases/(default)/documents"
    doc = {"fields": {"title": {"string_value": "milk"}, "completed": {"boolean_value": False}, "userId": {"string_value": alice_uid}}}
    created = api.create_document(request={"parent": parent, "collection_id": "tasks", "document": doc}, metadata=auth(alice))
    assert created.fields["userId"].string_value == alice_uid
    assert api.get_document(request={"name": created.name}, metadata=auth(alice)).name == created.name
    with pytest.raises(exceptions.PermissionDenied) as denied:
        api.get_document(request={"name": created.name}, metadata=auth(bob))
    assert "Missing or insufficient permissions." in str(denied.value)
    with pytest.raises(exceptions.PermissionDenied):
        api.get_document(request={"name": created.name})  # no credentials at all
    # Rules are not filters: a query not constrained to the caller's uid is refused as a whole.
    q = {"parent": parent, "structured_query": {"from_": [{"collection_id": "tasks"}]}}
    with pytest.raises(exceptions.PermissionDenied):
        list(api.run_query(request=q, metadata=auth(alice)))
    q["structured_query"]["where"] = {"field_filter": {"field": {"field_path": "userId"}, "op": "EQUAL", "value": {"string_value": alice_uid}}}
    assert [r.document.name for r in api.run_query(request=q, metadata=auth(alice)) if r.document.name] == [created.name]
    # Bearer owner is the administrator, as over REST.
    assert api.get_document(request={"name": created.name}, metadata=auth("owner")).name == created.name


def test_bad_tokens_are_unauthenticated(emulator, project):
    pid, _ = project
    api = gapic(emulator)
    with pytest.raises(exceptions.Unauthenticated):
        api.get_document(request={"name": f"projects/{pid}/databases/(default)/documents/tasks/x"}, metadata=auth("not-a-jwt"))


def test_list_collection_ids_needs_admin(emulator, project):
    pid, key = project
    alice, _ = sign_up(emulator, key)
    api = gapic(emulator)
    with pytest.raises(exceptions.PermissionDenied) as e:
        api.list_collection_ids(request={"parent": f"projects/{pid}/databases/(default)/documents"}, metadata=auth(alice))
    assert "Metadata operations require admin authentication." in str(e.value)


def test_faults_fire_for_grpc_calls(emulator):
    pid = "grpc-faults-" + uuid.uuid4().hex[:6]
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid}, timeout=5).raise_for_status()
    r = requests.post(f"{emulator.url}/emulator/v1/projects/{pid}/faults", timeout=5, json={
        "match": {"service": "firestore", "method": "commit"}, "error": {"status": "PERMISSION_DENIED", "message": "injected by the test"},
        "times": 1})
    r.raise_for_status()
    db = firestore.Client(project=pid)
    with pytest.raises(exceptions.PermissionDenied) as e:
        db.document("f/1").set({"a": 1})
    assert "injected by the test" in str(e.value)
    db.document("f/1").set({"a": 1})  # the fault fired once
    listed = requests.get(f"{emulator.url}/emulator/v1/projects/{pid}/faults", timeout=5).json()
    assert json.dumps(listed).count('"fired": 1') == 1, listed
    r = requests.post(f"{emulator.url}/emulator/v1/projects/{pid}/faults", timeout=5, json={
        "match": {"service": "firestore", "method": "get", "path": "f/*"}, "error": {"status": "NOT_FOUND", "message": "gone"}, "times": 1})
    r.raise_for_status()
    api = gapic(emulator)
    with pytest.raises(exceptions.NotFound):
        api.get_document(request={"name": f"projects/{pid}/databases/(default)/documents/f/1"}, metadata=auth("owner"))


def test_commit_times_follow_the_project_clock(emulator):
    pid = "grpc-clock-" + uuid.uuid4().hex[:6]
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid}, timeout=5).raise_for_status()
    r = requests.put(f"{emulator.url}/emulator/v1/projects/{pid}/clock", json={"mode": "frozen", "time": "2031-05-06T07:08:09Z"}, timeout=5)
    assert r.status_code == 200, r.text
    db = firestore.Client(project=pid)
    result = db.document("c/1").set({"at": firestore.SERVER_TIMESTAMP})
    assert result.update_time.year == 2031
    assert db.document("c/1").get().to_dict()["at"].year == 2031


def test_writes_over_grpc_are_seen_over_rest_and_vice_versa(emulator):
    pid = "grpc-both-" + uuid.uuid4().hex[:6]
    db = firestore.Client(project=pid)
    db.document("x/1").set({"via": "grpc"})
    got = requests.get(f"{emulator.url}/v1/projects/{pid}/databases/(default)/documents/x/1", headers={"Authorization": "Bearer owner"}, timeout=5)
    assert got.json()["fields"]["via"] == {"stringValue": "grpc"}
    requests.patch(f"{emulator.url}/v1/projects/{pid}/databases/(default)/documents/x/2", json={"fields": {"via": {"stringValue": "rest"}}},
                   headers={"Authorization": "Bearer owner"}, timeout=5).raise_for_status()
    assert db.document("x/2").get().to_dict() == {"via": "rest"}


def test_firebase_admin_firestore_client(emulator, tmp_path):
    import firebase_admin
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from firebase_admin import credentials
    from firebase_admin import firestore as admin_firestore

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    sa = {"type": "service_account", "project_id": emulator.project, "private_key_id": "k1", "private_key": pem,
          "client_email": f"test@{emulator.project}.iam.gserviceaccount.com", "client_id": "1",
          "token_uri": "https://oauth2.googleapis.com/token"}
    path = tmp_path / "sa.json"
    path.write_text(json.dumps(sa))
    app = firebase_admin.initialize_app(credentials.Certificate(str(path)), name="grpc-" + uuid.uuid4().hex[:6])
    try:
        db = admin_firestore.client(app)
        ref = db.collection("admin").document(uuid.uuid4().hex)
        ref.set({"n": 1, "at": admin_firestore.SERVER_TIMESTAMP})
        snap = ref.get()
        assert snap.get("n") == 1 and snap.get("at") is not None
        named = admin_firestore.client(app, database_id="testing-database")
        named.document(ref.path).set({"db": "named"})
        assert named.document(ref.path).get().to_dict() == {"db": "named"}
        assert ref.get().to_dict()["n"] == 1
        ref.delete()
        assert not ref.get().exists
    finally:
        firebase_admin.delete_app(app)


def test_ten_megabyte_run_query_streams_to_the_end(emulator):
    pid = "grpc-big-" + uuid.uuid4().hex[:6]
    db = firestore.Client(project=pid)
    blob = "x" * 100_000
    batch = db.batch()
    for i in range(100):
        batch.set(db.document(f"big/{i:03d}"), {"blob": blob, "i": i})
    batch.commit()
    started = time.time()
    docs = list(db.collection("big").stream())
    elapsed = time.time() - started
    assert len(docs) == 100 and sum(len(d.get("blob")) for d in docs) == 10_000_000
    assert [d.get("i") for d in docs] == list(range(100))
    assert elapsed < 20
