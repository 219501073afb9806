"""The MakeItSo story over HTTP, as two devices would tell it (see ../shared scenario and the
README): anonymous first, Apple later, a second device, a refused link, a migration by a callable
function, triggers keeping counts, the attacks the function must refuse, and the same merge ending
with a second-factor challenge.

The example's config opts into RS256-signed ID tokens (`auth.signIdTokens`): its function must not
trust the client, and only signatures make a token unforgeable. The story also runs with the
default unsigned tokens (Firebase's emulator's), so the Swift worker path works either way.

Told against both codebases: the Swift worker (Examples/MakeItSo/emulator.json) and the Python one
written with the official SDK (functions-python/, run by Examples/MakeItSo/firebase.json as a
Firebase developer would; for the signed mode, an emulator.json naming the same folder)."""
import base64
import json
import pathlib
import shutil
import time
import uuid

import pytest
import requests

from conftest import ROOT, RunningEmulator
from functions_python.sdk import GRPC_SKIP_REASON, grpc_available, sdk_venv

KEY = "makeitso-api-key"
EXAMPLE = ROOT / "Examples" / "MakeItSo"


def default_token_config(tmp_path):
    """Examples/MakeItSo/emulator.json without the signing opt-in (paths made absolute)."""
    cfg = json.loads((ROOT / "Examples/MakeItSo/emulator.json").read_text())
    del cfg["auth"]
    here = ROOT / "Examples/MakeItSo"
    cfg["rules"] = str(here / cfg["rules"])
    for cb in cfg["functions"]["codebases"]:
        cb["workingDirectory"] = str((here / cb["workingDirectory"]).resolve())
        cb["watch"] = str(here / cb["watch"])
    path = tmp_path / "emulator.json"
    path.write_text(json.dumps(cfg))
    return str(path)


def python_example(tmp_path, signed):
    """The example as a developer checks it out (firebase.json, .firebaserc, rules, the codebase; its
    venv from the suite's cache, or the emulator would create it). Signed tokens need our own
    emulator.json, as firebase.json has no such setting."""
    for name in ["firebase.json", ".firebaserc", "firestore.rules"]:
        shutil.copy(EXAMPLE / name, tmp_path / name)
    shutil.copytree(EXAMPLE / "functions-python", tmp_path / "functions-python", ignore=shutil.ignore_patterns("venv", "__pycache__"))
    (tmp_path / "functions-python" / "venv").symlink_to(sdk_venv(tmp_path / "functions-python" / "requirements.txt"))
    if not signed:
        return str(tmp_path / "firebase.json")
    (tmp_path / "emulator.json").write_text(json.dumps({"project": "demo-makeitso", "rules": "firestore.rules", "auth": {"signIdTokens": True},
                                                        "functions": {"codebases": [{"name": "makeitso", "source": "functions-python"}]}}))
    return str(tmp_path / "emulator.json")


@pytest.fixture(scope="module", params=["swift-signed", "swift-default", "python-signed", "python-default"])
def emu(request, tmp_path_factory):
    codebase, mode = request.param.split("-")
    if codebase == "swift":
        config = "Examples/MakeItSo/emulator.json" if mode == "signed" else default_token_config(tmp_path_factory.mktemp("makeitso"))
    else:
        config = python_example(tmp_path_factory.mktemp("makeitso-python"), mode == "signed")
    e = RunningEmulator(["--config", config], project=None)
    e.mode, e.codebase = mode, codebase
    assert e.project == "demo-makeitso"
    yield e
    e.stop()


def needs_store_from_functions(emu):
    """The Python codebase reads and writes the store from inside its functions (firebase_admin's
    Firestore client, gRPC only) and its trigger gets protobuf CloudEvents: skip if either is missing."""
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


def test_tokens_follow_the_mode(emu):
    d = Device(emu)
    d.sign_in_anonymously()
    header = json.loads(base64.urlsafe_b64decode(d.token.split(".")[0] + "=="))
    assert header["alg"] == ("RS256" if emu.mode == "signed" else "none")


@pytest.mark.parametrize("emu", ["swift-signed", "python-signed"], indirect=True)
def test_attacks_are_refused(emu):
    """With signed tokens (the example's config). With the default unsigned tokens a token can be
    forged for any existing user, exactly as against Firebase's emulator (pinned in
    Tests/python/security/test_tokens.py), which is why the example opts into signing."""
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
    # Self-contained: pytest may give this test a fresh emulator of its parameter.
    requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={KEY}", json={"returnSecureToken": True}, timeout=10)
    requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={KEY}",
                  json={"email": "mallory@blocked.example", "password": "secret123", "returnSecureToken": True}, timeout=10)
    Device(emu).call("migrateTasks", {}, token=None)
    idle(emu)
    logs = requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}/functions/logs", timeout=5).json()["invocations"]
    listed = {f["name"] for f in requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}/functions", timeout=5).json()["functions"]}
    if emu.codebase == "swift":
        assert any(l["function"] == "onUserCreated" and l["outcome"] == "ok" for l in logs)
        assert listed == {"migrateTasks", "onTaskWritten", "onUserCreated", "beforeCreate"}
    else:
        assert any(l["function"] == "beforeCreate" and l["outcome"] == "error" and "blocked.example" in l["error"] for l in logs)
        assert any(l["function"] == "migrateTasks" for l in logs)
        assert listed == {"migrateTasks", "onTaskWritten", "beforeCreate"}


def resolve_second_factor(device, challenge, older_ios=False):
    """The tablet answers "second factor required" with the phone code, as iOS does in emulator
    mode: >= 12.18 through mfaSignIn:start, older SDKs through sendVerificationCode with the
    masked hint number. The code is read from the emulator, matched on sessionInfo."""
    hint = challenge["mfaInfo"][0]
    if older_ios:
        session = device.auth("sendVerificationCode", {"phoneNumber": hint["phoneInfo"]}).json()["sessionInfo"]
    else:
        r = requests.post(f"{device.emu.url}/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start?key={KEY}", timeout=10,
                          json={"mfaPendingCredential": challenge["mfaPendingCredential"], "mfaEnrollmentId": hint["mfaEnrollmentId"],
                                "phoneSignInInfo": {"phoneNumber": hint["phoneInfo"]}})
        assert r.status_code == 200, r.text
        session = r.json()["phoneResponseInfo"]["sessionInfo"]
    codes = requests.get(f"{device.emu.url}/emulator/v1/projects/{device.emu.project}/verificationCodes", timeout=10).json()["verificationCodes"]
    code = next(c["code"] for c in codes if c["sessionInfo"] == session)
    r = requests.post(f"{device.emu.url}/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize?key={KEY}", timeout=10,
                      json={"mfaPendingCredential": challenge["mfaPendingCredential"], "phoneVerificationInfo": {"sessionInfo": session, "code": code}})
    assert r.status_code == 200, r.text
    device.token, device.refresh = r.json()["idToken"], r.json()["refreshToken"]
    device.uid = json.loads(base64.urlsafe_b64decode(device.token.split(".")[1] + "=="))["sub"]


@pytest.mark.parametrize("older_ios", [False, True], ids=["ios-12.18+", "older-ios"])
def test_the_merge_flow_with_a_second_factor(emu, older_ios):
    """The account-linking guide's ending: link fails, Apple sign-in instead, "second factor
    required", the phone code, and only then the migration to the first device's account."""
    phone, tablet = Device(emu), Device(emu)
    sub, email = "apple-" + uuid.uuid4().hex[:8], None
    email = f"{sub}@privaterelay.appleid.com"
    phone.sign_in_anonymously()
    first_uid = phone.uid
    phone.add_task("pay rent")
    linked = phone.link_apple(sub, email)
    assert linked.status_code == 200 and linked.json()["localId"] == first_uid
    phone.token = linked.json()["idToken"]
    # The phone enrols an SMS second factor (Apple is an MFA-eligible first factor; its email is verified).
    number = "+1555" + str(uuid.uuid4().int)[:7]
    mfa = f"{emu.url}/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment"
    r = requests.post(f"{mfa}:start?key={KEY}", json={"idToken": phone.token, "phoneEnrollmentInfo": {"phoneNumber": number}}, timeout=10)
    assert r.status_code == 200, r.text
    session = r.json()["phoneSessionInfo"]["sessionInfo"]
    codes = requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}/verificationCodes", timeout=10).json()["verificationCodes"]
    code = next(c["code"] for c in codes if c["sessionInfo"] == session)
    r = requests.post(f"{mfa}:finalize?key={KEY}", json={"idToken": phone.token, "displayName": "Alice's phone",
                                                         "phoneVerificationInfo": {"sessionInfo": session, "code": code}}, timeout=10)
    assert r.status_code == 200, r.text
    # The tablet: anonymous tasks, a refused link, then Apple sign-in, which wants the second factor.
    tablet.sign_in_anonymously()
    anonymous_token, anonymous_uid = tablet.token, tablet.uid
    tablet.add_task("feed cat")
    refused = tablet.link_apple(sub, email)
    assert refused.json()["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED"
    challenge = tablet.auth("signInWithIdp", {"postBody": apple_credential(sub, email), "requestUri": "http://localhost",
                                              "returnSecureToken": True, "returnIdpCredential": True})
    assert challenge.status_code == 200 and "idToken" not in challenge.json() and challenge.json()["mfaPendingCredential"]
    resolve_second_factor(tablet, challenge.json(), older_ios=older_ios)
    assert tablet.uid == first_uid
    # The function accepts the second-factor session (auth_time is the finalize time) and migrates.
    r = tablet.call("migrateTasks", {"idToken": anonymous_token})
    assert r.status_code == 200, r.text
    assert r.json()["result"] == {"updatedDocCount": 1, "anonymousUserId": anonymous_uid, "permanentUserId": first_uid}
    assert tablet.my_tasks() == ["feed cat", "pay rent"]
