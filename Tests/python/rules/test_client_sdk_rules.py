"""firebase-client-sdk (PyPI) as an app would use it: sign in anonymously against our Auth, then
read and write rules-guarded documents with the user's ID token; and google-cloud-firestore's REST
client with an ID token instead of `owner`."""
import uuid

import google.auth.credentials
import pytest
from google.api_core import exceptions
from google.cloud.firestore_v1.services.firestore import FirestoreClient

import firebase_client
from conftest import ROOT

RULES = (ROOT / "Examples" / "MakeItSo" / "firestore.rules").read_text()

import requests


@pytest.fixture
def app(emulator):
    pid = "sdk-" + uuid.uuid4().hex[:8]
    key = "key-" + pid
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid, "apiKey": key}, timeout=5).raise_for_status()
    requests.put(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules",
                 json={"rules": {"files": [{"content": RULES}]}}, timeout=5).raise_for_status()
    a = firebase_client.initialize_app({"apiKey": key, "projectId": pid, "storageBucket": f"{pid}.appspot.com"}, name=pid)
    auth = firebase_client.get_auth(a)
    auth.connect_emulator(emulator.host, emulator.port)
    db = firebase_client.get_firestore(a)
    db.connect_emulator(emulator.host, emulator.port)
    yield a, auth, db, pid
    firebase_client.delete_app(a)


def test_anonymous_user_owns_its_tasks(app):
    _, auth, db, _ = app
    cred = auth.sign_in_anonymously()
    uid = cred.user.uid
    db.set_doc(f"tasks/{uid}-1", {"title": "milk", "completed": False, "userId": uid})
    assert db.get_doc(f"tasks/{uid}-1").data()["title"] == "milk"
    with pytest.raises(firebase_client.FirestoreException) as denied:
        db.set_doc("tasks/stolen", {"title": "x", "completed": False, "userId": "someone-else"})
    assert "PERMISSION_DENIED" in str(denied.value) or "insufficient permissions" in str(denied.value)


def test_other_users_cannot_read(app, emulator):
    _, auth, db, pid = app
    owner = auth.sign_in_anonymously().user.uid
    db.set_doc(f"tasks/{owner}", {"title": "secret", "completed": False, "userId": owner})
    auth.sign_out()
    auth.sign_in_anonymously()
    with pytest.raises(firebase_client.FirestoreException):
        db.get_doc(f"tasks/{owner}")


class IdTokenCredentials(google.auth.credentials.Credentials):
    """Credentials that send an end user's ID token (how rules get exercised with server clients)."""

    def __init__(self, token):
        super().__init__()
        self.token = token

    def refresh(self, request):
        pass

    @property
    def valid(self):
        return True


def test_google_cloud_firestore_rest_with_an_id_token(emulator):
    pid = "gcf-" + uuid.uuid4().hex[:8]
    key = "key-" + pid
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid, "apiKey": key}, timeout=5).raise_for_status()
    requests.put(f"{emulator.url}/emulator/v1/projects/{pid}:securityRules", json={"rules": {"files": [{"content": RULES}]}}, timeout=5).raise_for_status()
    signed = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={key}", json={}, timeout=5).json()
    api = FirestoreClient(transport="rest", client_options={"api_endpoint": emulator.url}, credentials=IdTokenCredentials(signed["idToken"]))
    parent = f"projects/{pid}/databases/(default)/documents"
    uid = signed["localId"]
    doc = {"fields": {"title": {"string_value": "t"}, "completed": {"boolean_value": False}, "userId": {"string_value": uid}}}
    # create_document needs a sub-collection parent in this client; use a commit through update_document instead.
    made = api.update_document(request={"document": {"name": f"{parent}/tasks/{uid}", **doc}})
    assert made.fields["userId"].string_value == uid
    with pytest.raises(exceptions.Forbidden):
        api.update_document(request={"document": {"name": f"{parent}/tasks/other", "fields": {**doc["fields"], "userId": {"string_value": "x"}}}})
