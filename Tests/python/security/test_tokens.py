"""Tokens that must be refused (SECURITY.md): alg swapped, signature stripped or altered, wrong
aud/iss, expired, revoked, for a deleted or disabled user. Checked where each service verifies:
Firestore caller resolution (signed tokens), callable functions' strict verification, Auth lookup."""
import base64
import json
import uuid

import pytest
import requests

OWNER = {"Authorization": "Bearer owner"}


def b64(obj):
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).rstrip(b"=").decode()


def unb64(s):
    return json.loads(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)))


@pytest.fixture
def project(emulator):
    p = "sec-" + uuid.uuid4().hex[:8]
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": p, "apiKey": "k-" + p}, timeout=5).raise_for_status()
    return p


def sign_up(emulator, project):
    r = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k-{project}",
                      json={"email": f"{uuid.uuid4().hex[:8]}@example.com", "password": "secret123", "returnSecureToken": True}, timeout=5)
    r.raise_for_status()
    return r.json()


def firestore_status(emulator, project, token):
    return requests.get(f"{emulator.url}/v1/projects/{project}/databases/(default)/documents/c/d",
                        headers={"Authorization": f"Bearer {token}"}, timeout=5).status_code


def strict_status(emulator, project, token):
    """The strict verifier functions use (signature, expiry, revocation, disabled, no unsigned)."""
    return requests.post(f"{emulator.url}/emulator/v1/projects/{project}/functions:verifyIdToken", json={"idToken": token}, timeout=5).status_code


def tamper(token, header=None, claims=None, signature=None):
    h, p, s = token.split(".")
    hj, pj = unb64(h), unb64(p)
    hj.update(header or {})
    pj.update(claims or {})
    return f"{b64(hj)}.{b64(pj)}.{s if signature is None else signature}"


def test_valid_token_is_accepted_everywhere(emulator, project):
    t = sign_up(emulator, project)["idToken"]
    assert firestore_status(emulator, project, t) == 404  # authenticated; the document is missing
    assert strict_status(emulator, project, t) == 200


@pytest.mark.parametrize("name,mutation", [
    ("signature altered", lambda t: t[:-6] + ("AAAAAA" if not t.endswith("AAAAAA") else "BBBBBB")),
    ("signature stripped", lambda t: tamper(t, signature="")),
    ("claims changed under the old signature", lambda t: tamper(t, claims={"sub": "someone-else", "user_id": "someone-else"})),
    ("alg swapped to HS256", lambda t: tamper(t, header={"alg": "HS256"})),
    ("alg swapped to none", lambda t: tamper(t, header={"alg": "none"}, signature="")),
    ("wrong audience", lambda t: tamper(t, claims={"aud": "another-project"})),
    ("wrong issuer", lambda t: tamper(t, claims={"iss": "https://securetoken.google.com/another-project"})),
    ("expired", lambda t: tamper(t, claims={"exp": 1_000_000_000})),
    ("not a JWT", lambda t: "garbage"),
])
def test_bad_tokens_are_refused_by_the_strict_verifier(emulator, project, name, mutation):
    t = sign_up(emulator, project)["idToken"]
    assert strict_status(emulator, project, mutation(t)) == 401, name


@pytest.mark.parametrize("name,mutation", [
    ("signature altered", lambda t: t[:-6] + ("AAAAAA" if not t.endswith("AAAAAA") else "BBBBBB")),
    ("claims changed under the old signature", lambda t: tamper(t, claims={"sub": "someone-else", "user_id": "someone-else"})),
    ("alg swapped to HS256", lambda t: tamper(t, header={"alg": "HS256"})),
    ("wrong audience", lambda t: tamper(t, claims={"aud": "another-project"})),
    ("expired", lambda t: tamper(t, claims={"exp": 1_000_000_000})),
    ("not a JWT", lambda t: "garbage"),
])
def test_bad_tokens_are_refused_by_firestore(emulator, project, name, mutation):
    t = sign_up(emulator, project)["idToken"]
    assert firestore_status(emulator, project, mutation(t)) == 401, name


def test_revoked_disabled_and_deleted_users(emulator, project):
    base = f"{emulator.url}/identitytoolkit.googleapis.com/v1/projects/{project}"
    revoked = sign_up(emulator, project)
    requests.post(f"{emulator.url}/emulator/v1/projects/{project}/clock:advance", json={"seconds": 2}, timeout=5).raise_for_status()
    now = requests.get(f"{emulator.url}/emulator/v1/projects/{project}/clock", timeout=5).json()["time"]
    import datetime
    valid_since = int(datetime.datetime.fromisoformat(now.replace("Z", "+00:00")).timestamp())
    requests.post(base + "/accounts:update", json={"localId": revoked["localId"], "validSince": str(valid_since)}, headers=OWNER, timeout=5).raise_for_status()
    assert strict_status(emulator, project, revoked["idToken"]) == 401
    refresh = requests.post(f"{emulator.url}/securetoken.googleapis.com/v1/token?key=k-{project}",
                            data={"grant_type": "refresh_token", "refresh_token": revoked["refreshToken"]}, timeout=5)
    assert refresh.status_code == 400  # revoked refresh tokens stop working (the Firebase emulator keeps them)

    disabled = sign_up(emulator, project)
    requests.post(base + "/accounts:update", json={"localId": disabled["localId"], "disableUser": True}, headers=OWNER, timeout=5).raise_for_status()
    assert strict_status(emulator, project, disabled["idToken"]) == 401

    deleted = sign_up(emulator, project)
    requests.post(base + "/accounts:delete", json={"localId": deleted["localId"]}, headers=OWNER, timeout=5).raise_for_status()
    assert strict_status(emulator, project, deleted["idToken"]) == 401


def test_unsigned_tokens_only_where_allowed(emulator, project):
    claims = {"iss": f"https://securetoken.google.com/{project}", "aud": project, "sub": "mock-user", "user_id": "mock-user",
              "iat": 1_700_000_000, "exp": 4_000_000_000, "auth_time": 1_700_000_000, "firebase": {"sign_in_provider": "custom", "identities": {}}}
    unsigned = f"{b64({'alg': 'none', 'typ': 'JWT'})}.{b64(claims)}."
    # Rules tooling (rules-unit-testing) mints these: Firestore accepts them while auth.acceptUnsignedTokens is on...
    assert firestore_status(emulator, project, unsigned) == 404
    # ...but functions decide whom to trust, so their verifier never does.
    assert strict_status(emulator, project, unsigned) == 401
