"""The MakeItSo story over HTTP, as two devices would tell it (see ../shared scenario and the
README): anonymous first, Apple later, a second device, a refused link, a migration by a callable
function, triggers keeping counts, and the attacks the function must refuse. Told twice: against the
Swift codebase (Examples/MakeItSo/emulator.json) and against the Python one written with the official
SDK (Examples/MakeItSo/firebase.json, functions-python/)."""
import base64
import json
import pathlib
import shutil
import time

import pytest
import requests

from conftest import ROOT, RunningEmulator
from functions_python.sdk import GRPC_SKIP_REASON, grpc_available, sdk_venv

KEY = "makeitso-api-key"
EXAMPLE = ROOT / "Examples" / "MakeItSo"


@pytest.fixture(scope="module", params=["swift", "python"])
def emu(request, tmp_path_factory):
    if request.param == "swift":
        e = RunningEmulator(["--config", "Examples/MakeItSo/emulator.json"], project=None)
    else:
        # The example as a developer checks it out: firebase.json, .firebaserc, rules, the codebase;
        # its venv comes from the suite's cache (the emulator would otherwise create it).
        folder = tmp_path_factory.mktemp("makeitso")
        for name in ["firebase.json", ".firebaserc", "firestore.rules"]:
            shutil.copy(EXAMPLE / name, folder / name)
        shutil.copytree(EXAMPLE / "functions-python", folder / "functions-python", ignore=shutil.ignore_patterns("venv", "__pycache__"))
        (folder / "functions-python" / "venv").symlink_to(sdk_venv(folder / "functions-python" / "requirements.txt"))
        e = RunningEmulator(["--config", str(folder / "firebase.json")], project=None)
    e.codebase = request.param
    assert e.project == "demo-makeitso"
    yield e
    e.stop()


def needs_store_from_functions(emu):
    """The Python codebase reads and writes the store from inside its functions (firebase_admin's
    Firestore client, gRPC only) and its trigger gets protobuf CloudEvents: skip until both are there."""
    if emu.codebase != "python":
        return
    if not grpc_available(emu):
        pytest.skip(GRPC_SKIP_REASON)
    codebases = requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}/functions", timeout=5).json()["codebases"]
    if not all(c.get("documentEvents") for c in codebases):
        pytest.skip("needs the protobuf codec for Firestore CloudEvents (EmulatorProtobuf) in this build")


def b64(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def apple_credential(sub, email):
    """A fake Apple ID token as the Auth emulator accepts it (unsigned JWT with `sub`)."""
    token = b64({"alg": "none", "typ": "JWT"}) + "." + b64({"sub": sub, "email": email, "email_verified": True, "iss": "https://appleid.apple.com"}) + "."
    return f"id_token={token}&providerId=apple.com"


class Device:
    def __init__(self, emu):
        self.emu = emu
        self.token = None
        self.uid = None

    def auth(self, op, body):
        return requests.post(f"{self.emu.url}/identitytoolkit.googleapis.com/v1/accounts:{op}?key={KEY}", json=body, timeout=10)

    def sign_in_anonymously(self):
        r = self.auth("signUp", {"returnSecureToken": True})
        r.raise_for_status()
        self.token, self.uid, self.refresh = r.json()["idToken"], r.json()["localId"], r.json()["refreshToken"]

    def link_apple(self, sub, email, return_credential=True):
        # The JS and iOS SDKs send returnIdpCredential: true; errors then come back as 200 + errorMessage.
        return self.auth("signInWithIdp", {"idToken": self.token, "postBody": apple_credential(sub, email), "requestUri": "http://localhost",
                                           "returnSecureToken": True, "returnIdpCredential": return_credential})

    def sign_in_with_apple(self, sub, email):
        r = self.auth("signInWithIdp", {"postBody": apple_credential(sub, email), "requestUri": "http://localhost", "returnSecureToken": True})
        r.raise_for_status()
        self.token, self.uid, self.refresh = r.json()["idToken"], r.json()["localId"], r.json()["refreshToken"]

    @property
    def docs(self):
        return f"{self.emu.url}/v1/projects/{self.emu.project}/databases/(default)/documents"

    def add_task(self, title):
        r = requests.post(f"{self.docs}/tasks", headers={"Authorization": f"Bearer {self.token}"}, timeout=10, json={"fields": {
            "title": {"stringValue": title}, "completed": {"booleanValue": False}, "userId": {"stringValue": self.uid}}})
        assert r.status_code == 200, r.text

    def my_tasks(self):
        q = {"structuredQuery": {"from": [{"collectionId": "tasks"}], "where": {"fieldFilter": {
            "field": {"fieldPath": "userId"}, "op": "EQUAL", "value": {"stringValue": self.uid}}}}}
        r = requests.post(f"{self.docs}:runQuery", json=q, headers={"Authorization": f"Bearer {self.token}"}, timeout=10)
        assert r.status_code == 200, r.text
        return sorted(e["document"]["fields"]["title"]["stringValue"] for e in r.json() if "document" in e)

    def call(self, name, data, token="self"):
        headers = {"Content-Type": "application/json"}
        tok = self.token if token == "self" else token
        if tok:
            headers["Authorization"] = f"Bearer {tok}"
        return requests.post(f"{self.emu.url}/{self.emu.project}/us-central1/{name}", json={"data": data}, headers=headers, timeout=30)


def idle(emu):
    r = requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}:idle?timeoutMs=20000", timeout=30)
    assert r.status_code == 200, r.text


def owner_get(emu, path):
    return requests.get(f"{emu.url}/v1/projects/{emu.project}/databases/(default)/documents/{path}", headers={"Authorization": "Bearer owner"}, timeout=10)


def test_the_whole_story(emu):
    needs_store_from_functions(emu)
    phone, tablet = Device(emu), Device(emu)
    # 1. Alice opens the app on her phone: anonymous, tasks carry her anonymous uid.
    phone.sign_in_anonymously()
    first_uid = phone.uid
    phone.add_task("buy milk")
    phone.add_task("call mum")
    # 2. She signs in with Apple: the credential is linked, the uid stays.
    linked = phone.link_apple("apple-alice", "alice@privaterelay.appleid.com")
    assert linked.status_code == 200, linked.text
    assert linked.json()["localId"] == first_uid
    phone.token = linked.json()["idToken"]
    # 3. The tablet: a new anonymous user with tasks of its own.
    tablet.sign_in_anonymously()
    anonymous_token, anonymous_uid = tablet.token, tablet.uid
    assert anonymous_uid != first_uid
    tablet.add_task("water plants")
    # 4. Linking the same Apple credential there fails: it already belongs to the phone's account.
    refused = tablet.link_apple("apple-alice", "alice@privaterelay.appleid.com")
    assert refused.status_code == 200 and refused.json()["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED"
    refused = tablet.link_apple("apple-alice", "alice@privaterelay.appleid.com", return_credential=False)
    assert refused.status_code == 400
    assert refused.json()["error"]["message"].startswith("FEDERATED_USER_ID_ALREADY_LINKED")
    # 5. The app recovers: signs in with Apple (becoming the phone's account) and migrates.
    tablet.sign_in_with_apple("apple-alice", "alice@privaterelay.appleid.com")
    assert tablet.uid == first_uid
    r = tablet.call("migrateTasks", {"idToken": anonymous_token})
    assert r.status_code == 200, r.text
    assert r.json()["result"] == {"updatedDocCount": 1, "anonymousUserId": anonymous_uid, "permanentUserId": first_uid}
    # 8. The tablet now shows all of Alice's tasks; the anonymous account is gone.
    assert tablet.my_tasks() == ["buy milk", "call mum", "water plants"]
    idle(emu)
    profile = owner_get(emu, f"users/{first_uid}").json()
    assert profile["fields"]["taskCount"]["integerValue"] == "3"
    if emu.codebase == "swift":  # Python has no onUserCreated trigger (anonymous sign-ups run no blocking function)
        assert profile["fields"]["anonymous"]["booleanValue"] is True  # created when the phone's user was anonymous
    gone = owner_get(emu, f"users/{anonymous_uid}").json()
    assert gone["fields"]["taskCount"]["integerValue"] == "0"
    lookup = requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/projects/{emu.project}/accounts:lookup",
                           json={"localId": [anonymous_uid]}, headers={"Authorization": "Bearer owner"}, timeout=10).json()
    assert not lookup.get("users")
    # Replaying the old anonymous token now fails: the account was deleted.
    again = tablet.call("migrateTasks", {"idToken": anonymous_token})
    assert again.status_code == 401


def test_attacks_are_refused(emu):
    victim, attacker = Device(emu), Device(emu)
    victim.sign_in_anonymously()
    victim.add_task("private")
    attacker.sign_in_with_apple("apple-mallory", "mallory@example.com")

    # Not authenticated.
    r = attacker.call("migrateTasks", {"idToken": victim.token}, token=None)
    assert r.status_code == 400 and r.json()["error"] == {"status": "FAILED_PRECONDITION", "message": "The function must be called while authenticated."}
    # A plain user id instead of a token.
    r = attacker.call("migrateTasks", {"uid": victim.uid})
    assert r.status_code == 400 and r.json()["error"]["status"] == "INVALID_ARGUMENT"
    # A tampered anonymous token.
    head, payload, sig = victim.token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["sub"] = claims["user_id"] = "someone-else"
    r = attacker.call("migrateTasks", {"idToken": f"{head}.{b64(claims)}.{sig}"})
    assert r.status_code == 401 and r.json()["error"]["status"] == "UNAUTHENTICATED"
    # An unsigned token (accepted by rules tooling, never by functions).
    r = attacker.call("migrateTasks", {"idToken": f"{b64({'alg': 'none', 'typ': 'JWT'})}.{payload}."})
    assert r.status_code == 401
    # The token passed in must be anonymous.
    other = Device(emu)
    other.sign_in_with_apple("apple-bob", "bob@example.com")
    r = attacker.call("migrateTasks", {"idToken": other.token})
    assert r.status_code == 400 and r.json()["error"] == {"status": "INVALID_ARGUMENT", "message": "ID token must be anonymous"}
    # The caller must not be anonymous.
    anon = Device(emu)
    anon.sign_in_anonymously()
    r = anon.call("migrateTasks", {"idToken": victim.token})
    assert r.status_code == 400 and r.json()["error"] == {"status": "INVALID_ARGUMENT", "message": "ID token must be non-anonymous"}
    # The caller must have signed in within 5 minutes (the emulator clock, advanced on purpose).
    admin = f"{emu.url}/emulator/v1/projects/{emu.project}"
    requests.post(admin + "/clock:advance", json={"seconds": 301}, timeout=5).raise_for_status()
    try:
        refreshed = requests.post(f"{emu.url}/securetoken.googleapis.com/v1/token?key={KEY}", timeout=5,
                                  data={"grant_type": "refresh_token", "refresh_token": attacker_refresh(attacker)})
        token = refreshed.json().get("id_token", attacker.token)
        victim_fresh = requests.post(f"{emu.url}/securetoken.googleapis.com/v1/token?key={KEY}", timeout=5,
                                     data={"grant_type": "refresh_token", "refresh_token": victim.refresh}).json()["id_token"]
        r = attacker.call("migrateTasks", {"idToken": victim_fresh}, token=token)
        assert r.status_code == 400 and r.json()["error"] == {"status": "FAILED_PRECONDITION", "message": "This operation requires a recent sign-in."}
    finally:
        requests.put(admin + "/clock", json={"mode": "system"}, timeout=5)
    # The victim still has its task.
    assert victim.my_tasks() == ["private"]


def attacker_refresh(device):
    return device.refresh


def test_blocked_domain_cannot_sign_up(emu):
    r = requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={KEY}",
                      json={"email": "eve@blocked.example", "password": "secret123", "returnSecureToken": True}, timeout=10)
    assert r.status_code == 400
    assert "BLOCKING_FUNCTION_ERROR_RESPONSE" in r.json()["error"]["message"]
    ok = requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={KEY}",
                       json={"email": "eve@example.org", "password": "secret123", "returnSecureToken": True}, timeout=10)
    assert ok.status_code == 200


def test_function_logs_and_idle(emu):
    logs = requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}/functions/logs", timeout=5).json()["invocations"]
    listed = {f["name"] for f in requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}/functions", timeout=5).json()["functions"]}
    if emu.codebase == "swift":
        assert any(l["function"] == "onUserCreated" and l["outcome"] == "ok" for l in logs)
        assert listed == {"migrateTasks", "onTaskWritten", "onUserCreated", "beforeCreate"}
    else:
        assert any(l["function"] == "beforeCreate" and l["outcome"] == "error" and "blocked.example" in l["error"] for l in logs)
        assert any(l["function"] == "migrateTasks" for l in logs)
        assert listed == {"migrateTasks", "onTaskWritten", "beforeCreate"}
