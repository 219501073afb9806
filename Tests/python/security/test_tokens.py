"""ID tokens that must be refused (SECURITY.md), in both token modes.

By default the emulator mints unsigned (`alg: none`) ID tokens, as Firebase's emulator does (the
Node Admin SDK in emulator mode accepts nothing else). A signature then proves nothing, so, exactly
as with Firebase's emulator, anyone can mint a token naming an existing user; what is still refused
is everything else an Admin SDK checks (audience, issuer, expiry on the project clock, revocation,
disabled and deleted users, malformed tokens, unknown algorithms, signatures that are not ours).
`test_default_mode_accepts_forged_unsigned_tokens_like_firebase` pins that trade-off on purpose.

With `auth.signIdTokens: true` (the `signed_emulator` fixture) tokens are RS256 and every alteration
is refused: alg swapped, signature stripped or altered, claims changed under the old signature.

Checked where each service verifies: Firestore caller resolution, the strict verifier functions use
(`/emulator/v1/projects/{p}/functions:verifyIdToken`), and Auth lookup."""
import base64
import datetime
import json
import uuid

import pytest
import requests

OWNER = {"Authorization": "Bearer owner"}


def b64(obj):
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).rstrip(b"=").decode()


def unb64(s):
    return json.loads(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)))


def register(emu):
    p = "sec-" + uuid.uuid4().hex[:8]
    requests.post(emu.url + "/emulator/v1/projects", json={"projectId": p, "apiKey": "k-" + p}, timeout=5).raise_for_status()
    return p


@pytest.fixture
def project(emulator):
    return register(emulator)


@pytest.fixture
def signed_project(signed_emulator):
    return register(signed_emulator)


def sign_up(emulator, project):
    r = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k-{project}",
                      json={"email": f"{uuid.uuid4().hex[:8]}@example.com", "password": "secret123", "returnSecureToken": True}, timeout=5)
    r.raise_for_status()
    return r.json()


def firestore_status(emulator, project, token):
    return requests.get(f"{emulator.url}/v1/projects/{project}/databases/(default)/documents/c/d",
                        headers={"Authorization": f"Bearer {token}"}, timeout=5).status_code


def strict_status(emulator, project, token):
    """The strict verifier functions use (what an Admin SDK's verifyIdToken(checkRevoked) accepts)."""
    return requests.post(f"{emulator.url}/emulator/v1/projects/{project}/functions:verifyIdToken", json={"idToken": token}, timeout=5).status_code


def tamper(token, header=None, claims=None, signature=None):
    h, p, s = token.split(".")
    hj, pj = unb64(h), unb64(p)
    hj.update(header or {})
    pj.update(claims or {})
    return f"{b64(hj)}.{b64(pj)}.{s if signature is None else signature}"


# Refused in both modes, by the strict verifier and by Firestore.
REFUSED_IN_BOTH_MODES = [
    ("alg swapped to HS256", lambda t: tamper(t, header={"alg": "HS256"})),
    ("wrong audience", lambda t: tamper(t, claims={"aud": "another-project"})),
    ("wrong issuer", lambda t: tamper(t, claims={"iss": "https://securetoken.google.com/another-project"})),
    ("expired", lambda t: tamper(t, claims={"exp": 1_000_000_000})),
    ("not a JWT", lambda t: "garbage"),
    ("RS256 with a signature that is not ours", lambda t: tamper(t, header={"alg": "RS256", "kid": "not-ours"}, signature="c2lnbmF0dXJl")),
]


def test_default_tokens_are_unsigned_like_firebases(emulator, project):
    t = sign_up(emulator, project)["idToken"]
    h, p, s = t.split(".")
    assert unb64(h) == {"alg": "none", "typ": "JWT"} and s == ""
    assert unb64(p)["iss"] == f"https://securetoken.google.com/{project}" and unb64(p)["aud"] == project


@pytest.mark.parametrize("mode", ["default", "signed"])
def test_valid_token_is_accepted_everywhere(request, mode):
    emu = request.getfixturevalue("emulator" if mode == "default" else "signed_emulator")
    p = register(emu)
    t = sign_up(emu, p)["idToken"]
    assert firestore_status(emu, p, t) == 404  # authenticated; the document is missing
    assert strict_status(emu, p, t) == 200


def mock_user_token(project, uid):
    """What the JS SDK's `connectFirestoreEmulator(db, host, port, {mockUserToken})` sends
    (createMockUserToken in @firebase/util): unsigned, issued at the epoch, `exp` one hour later."""
    claims = {"iss": f"https://securetoken.google.com/{project}", "aud": project, "iat": 0, "exp": 3600, "auth_time": 0,
              "sub": uid, "user_id": uid, "firebase": {"sign_in_provider": "custom", "identities": {}}}
    return f"{b64({'alg': 'none', 'type': 'JWT'})}.{b64(claims)}."


def test_js_sdk_mock_user_tokens_are_accepted_by_firestore(emulator, project):
    """Firestore and Storage accept the SDK's mock tokens (iat 0) although their `exp` is long past,
    as Google's emulator does; a token that was issued later and has expired is still refused, and
    the strict verifier functions use refuses the mock token too (no such user, and expired)."""
    token = mock_user_token(project, "alice")
    assert firestore_status(emulator, project, token) == 404
    later = tamper(token, claims={"iat": 1, "exp": 3601})
    assert firestore_status(emulator, project, later) == 401
    assert strict_status(emulator, project, token) == 401


@pytest.mark.parametrize("name,mutation", REFUSED_IN_BOTH_MODES + [
    ("unsigned with a signature appended", lambda t: tamper(t, signature="c2lnbmF0dXJl")),
])
def test_bad_tokens_are_refused_in_default_mode(emulator, project, name, mutation):
    t = sign_up(emulator, project)["idToken"]
    assert strict_status(emulator, project, mutation(t)) == 401, name
    assert firestore_status(emulator, project, mutation(t)) == 401, name


def test_default_mode_accepts_forged_unsigned_tokens_like_firebase(emulator, project):
    """The documented trade-off of the default (docs/auth.md "Tokens"): an unsigned token naming an
    existing user is that user, for Firestore and for the strict verifier, as against Firebase's
    emulator. A token naming nobody still fails the strict verifier's user check."""
    victim = sign_up(emulator, project)
    forged = tamper(sign_up(emulator, project)["idToken"], claims={"sub": victim["localId"], "user_id": victim["localId"]})
    assert strict_status(emulator, project, forged) == 200
    assert firestore_status(emulator, project, forged) == 404
    nobody = tamper(forged, claims={"sub": "nobody", "user_id": "nobody"})
    assert strict_status(emulator, project, nobody) == 401


@pytest.mark.parametrize("name,mutation", REFUSED_IN_BOTH_MODES + [
    ("signature altered", lambda t: t[:-6] + ("AAAAAA" if not t.endswith("AAAAAA") else "BBBBBB")),
    ("signature stripped", lambda t: tamper(t, signature="")),
    ("claims changed under the old signature", lambda t: tamper(t, claims={"sub": "someone-else", "user_id": "someone-else"})),
    ("alg swapped to none", lambda t: tamper(t, header={"alg": "none"}, signature="")),
])
def test_bad_tokens_are_refused_by_the_strict_verifier_when_signing(signed_emulator, signed_project, name, mutation):
    t = sign_up(signed_emulator, signed_project)["idToken"]
    assert unb64(t.split(".")[0])["alg"] == "RS256"
    assert strict_status(signed_emulator, signed_project, mutation(t)) == 401, name


@pytest.mark.parametrize("name,mutation", REFUSED_IN_BOTH_MODES + [
    ("signature altered", lambda t: t[:-6] + ("AAAAAA" if not t.endswith("AAAAAA") else "BBBBBB")),
    ("claims changed under the old signature", lambda t: tamper(t, claims={"sub": "someone-else", "user_id": "someone-else"})),
])
def test_bad_tokens_are_refused_by_firestore_when_signing(signed_emulator, signed_project, name, mutation):
    t = sign_up(signed_emulator, signed_project)["idToken"]
    assert firestore_status(signed_emulator, signed_project, mutation(t)) == 401, name


@pytest.mark.parametrize("mode", ["default", "signed"])
def test_revoked_disabled_and_deleted_users(request, mode):
    emulator = request.getfixturevalue("emulator" if mode == "default" else "signed_emulator")
    project = register(emulator)
    base = f"{emulator.url}/identitytoolkit.googleapis.com/v1/projects/{project}"
    revoked = sign_up(emulator, project)
    requests.post(f"{emulator.url}/emulator/v1/projects/{project}/clock:advance", json={"seconds": 2}, timeout=5).raise_for_status()
    now = requests.get(f"{emulator.url}/emulator/v1/projects/{project}/clock", timeout=5).json()["time"]
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

    # Firestore, like production, never looks the user up: an unexpired token of a revoked,
    # disabled or deleted user still reaches the rules (apps that must stop such users check a
    # revocation flag in their rules). Only the Auth calls and the strict verifier refuse them.
    for gone in (revoked, disabled, deleted):
        assert firestore_status(emulator, project, gone["idToken"]) == 404


def test_unsigned_tokens_only_where_allowed_when_signing(signed_emulator, signed_project):
    project = signed_project
    claims = {"iss": f"https://securetoken.google.com/{project}", "aud": project, "sub": "mock-user", "user_id": "mock-user",
              "iat": 1_700_000_000, "exp": 4_000_000_000, "auth_time": 1_700_000_000, "firebase": {"sign_in_provider": "custom", "identities": {}}}
    unsigned = f"{b64({'alg': 'none', 'typ': 'JWT'})}.{b64(claims)}."
    # Rules tooling (rules-unit-testing) mints these: Firestore accepts them while auth.acceptUnsignedTokens is on...
    assert firestore_status(signed_emulator, project, unsigned) == 404
    # ...but with signing on, functions accept only the emulator's signatures.
    assert strict_status(signed_emulator, project, unsigned) == 401
    # Even for a user that exists.
    real = sign_up(signed_emulator, project)
    forged = tamper(real["idToken"], header={"alg": "none"}, signature="")
    assert strict_status(signed_emulator, project, forged) == 401
