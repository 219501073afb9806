"""Real-client conformance: firebase-admin (Python) against the emulator's Auth service.

Uses the shared session fixture ``emulator`` (Tests/python/conftest.py), which sets
FIREBASE_AUTH_EMULATOR_HOST so the Admin SDK talks to us with ``Bearer owner`` and mints
unsigned custom tokens, exactly as it does against Firebase's own emulator.
"""
import time
import uuid

import firebase_admin
import pytest
import requests
from firebase_admin import auth


@pytest.fixture(scope="module")
def app(emulator):
    a = firebase_admin.initialize_app(options={"projectId": emulator.project}, name=f"auth-{uuid.uuid4()}")
    yield a
    firebase_admin.delete_app(a)


def itk(emulator, verb, body):
    """POST an end-user Identity Toolkit call the way client SDKs do (API key, JSON)."""
    r = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:{verb}?key=fake-api-key", json=body, timeout=10)
    return r.status_code, r.json()


def unique_email(prefix="user"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def test_create_get_update_delete_user(app):
    email = unique_email()
    user = auth.create_user(email=email, password="secret123", display_name="Ada", app=app)
    assert user.uid and user.email == email and user.display_name == "Ada"
    assert auth.get_user(user.uid, app=app).email == email
    assert auth.get_user_by_email(email, app=app).uid == user.uid
    updated = auth.update_user(user.uid, display_name="Ada L", email_verified=True, disabled=True, app=app)
    assert updated.display_name == "Ada L" and updated.email_verified and updated.disabled
    auth.delete_user(user.uid, app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(user.uid, app=app)


def test_duplicate_email_is_rejected(app):
    email = unique_email()
    auth.create_user(email=email, app=app)
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email=email, app=app)


def test_list_users_pages(app):
    uids = {auth.create_user(uid=f"list-{uuid.uuid4().hex[:8]}-{i}", app=app).uid for i in range(3)}
    seen = {u.uid for u in auth.list_users(max_results=2, app=app).iterate_all()}
    assert uids <= seen


def test_import_users_with_hashes_then_sign_in(app, emulator):
    email = unique_email("imported")
    hash_alg = auth.UserImportHash.scrypt(
        key=__import__("base64").b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
        salt_separator=__import__("base64").b64decode("Bw=="), rounds=8, memory_cost=14)
    record = auth.ImportUserRecord(
        uid=f"imp-{uuid.uuid4().hex[:8]}", email=email,
        password_hash=__import__("base64").b64decode("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="),
        password_salt=__import__("base64").b64decode("42xEC+ixf3L2lw=="))
    result = auth.import_users([record], hash_alg=hash_alg, app=app)
    assert result.success_count == 1 and result.failure_count == 0
    status, body = itk(emulator, "signInWithPassword", {"email": email, "password": "user1password", "returnSecureToken": True})
    assert status == 200 and body["localId"] == record.uid
    status, body = itk(emulator, "signInWithPassword", {"email": email, "password": "nope-nope"})
    assert status == 400 and body["error"]["message"] == "INVALID_PASSWORD"


def test_custom_token_exchange_and_verify_id_token(app, emulator):
    uid = f"custom-{uuid.uuid4().hex[:8]}"
    token = auth.create_custom_token(uid, {"premium": True}, app=app).decode()
    status, body = itk(emulator, "signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert status == 200, body
    claims = auth.verify_id_token(body["idToken"], app=app)
    assert claims["uid"] == uid and claims["premium"] is True
    assert claims["firebase"]["sign_in_provider"] == "custom"
    assert claims["iss"] == f"https://securetoken.google.com/{emulator.project}"


def test_custom_claims_appear_in_new_tokens(app, emulator):
    email = unique_email("claims")
    user = auth.create_user(email=email, password="secret123", app=app)
    auth.set_custom_user_claims(user.uid, {"role": "admin"}, app=app)
    assert auth.get_user(user.uid, app=app).custom_claims == {"role": "admin"}
    _, body = itk(emulator, "signInWithPassword", {"email": email, "password": "secret123", "returnSecureToken": True})
    assert auth.verify_id_token(body["idToken"], app=app)["role"] == "admin"
    with pytest.raises(ValueError):
        auth.set_custom_user_claims(user.uid, {"sub": "x"}, app=app)


def test_revocation_with_check_revoked(app, emulator):
    email = unique_email("revoke")
    auth.create_user(email=email, password="secret123", app=app)
    _, body = itk(emulator, "signInWithPassword", {"email": email, "password": "secret123", "returnSecureToken": True})
    assert auth.verify_id_token(body["idToken"], check_revoked=True, app=app)["email"] == email
    time.sleep(1.1)  # validSince has one-second resolution, as in production
    auth.revoke_refresh_tokens(body["localId"], app=app)
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(body["idToken"], check_revoked=True, app=app)
    # Unlike Firebase's emulator, the refresh token is revoked too.
    r = requests.post(f"{emulator.url}/securetoken.googleapis.com/v1/token?key=fake-api-key",
                      data={"grant_type": "refresh_token", "refresh_token": body["refreshToken"]}, timeout=10)
    assert r.status_code == 400 and r.json()["error"]["message"] == "TOKEN_EXPIRED"


def test_email_action_links(app, emulator):
    email = unique_email("links")
    auth.create_user(email=email, password="secret123", app=app)
    link = auth.generate_email_verification_link(email, app=app)
    assert "/emulator/action?mode=verifyEmail" in link
    path = link[link.index("/emulator/action"):]
    r = requests.get(f"{emulator.url}{path}", timeout=10)
    assert r.status_code == 200, r.text
    assert auth.get_user_by_email(email, app=app).email_verified
    reset = auth.generate_password_reset_link(email, app=app)
    assert "mode=resetPassword" in reset
    settings = auth.ActionCodeSettings(url="https://example.com/finish", handle_code_in_app=True)
    sign_in = auth.generate_sign_in_with_email_link(email, settings, app=app)
    assert "mode=signIn" in sign_in
    code = sign_in.split("oobCode=")[1].split("&")[0]
    status, body = itk(emulator, "signInWithEmailLink", {"email": email, "oobCode": code})
    assert status == 200 and body["email"] == email


def test_signed_tokens_verify_against_published_keys(signed_emulator):
    """With auth.signIdTokens, a backend verifying the production way (fetch keys, check the RS256
    signature, audience and issuer) accepts our tokens."""
    jwt = pytest.importorskip("jwt")
    status, body = itk(signed_emulator, "signUp", {"returnSecureToken": True})
    assert status == 200
    certs = requests.get(f"{signed_emulator.url}/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com", timeout=10).json()
    kid = jwt.get_unverified_header(body["idToken"])["kid"]
    from cryptography.x509 import load_pem_x509_certificate
    key = load_pem_x509_certificate(certs[kid].encode()).public_key()
    claims = jwt.decode(body["idToken"], key, algorithms=["RS256"], audience=signed_emulator.project,
                        issuer=f"https://securetoken.google.com/{signed_emulator.project}")
    assert claims["sub"] == body["localId"] and claims["firebase"]["sign_in_provider"] == "anonymous"


def test_default_tokens_are_unsigned_and_verify_id_token_accepts_them(app, emulator):
    """The default token is what Firebase's emulator mints (alg none, empty signature): the token
    every Admin SDK accepts in emulator mode (Node's accepts nothing else)."""
    status, body = itk(emulator, "signInWithCustomToken", {"token": auth.create_custom_token("unsigned-uid", app=app).decode(), "returnSecureToken": True})
    assert status == 200
    header, _, signature = body["idToken"].split(".")
    assert __import__("json").loads(__import__("base64").urlsafe_b64decode(header + "==")) == {"alg": "none", "typ": "JWT"} and signature == ""
    assert auth.verify_id_token(body["idToken"], check_revoked=True, app=app)["uid"] == "unsigned-uid"


def test_verify_id_token_in_signed_mode(signed_emulator, monkeypatch):
    """firebase-admin-python works against the opt-in signed mode too (it skips the signature in
    emulator mode and checks audience, issuer and, with check_revoked, the user)."""
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", f"{signed_emulator.host}:{signed_emulator.port}")
    signed_app = firebase_admin.initialize_app(options={"projectId": signed_emulator.project}, name=f"signed-{uuid.uuid4()}")
    try:
        status, body = itk(signed_emulator, "signInWithCustomToken", {"token": auth.create_custom_token("signed-uid", app=signed_app).decode(),
                                                                        "returnSecureToken": True})
        assert status == 200
        assert __import__("json").loads(__import__("base64").urlsafe_b64decode(body["idToken"].split(".")[0] + "=="))["alg"] == "RS256"
        assert auth.verify_id_token(body["idToken"], check_revoked=True, app=signed_app)["uid"] == "signed-uid"
    finally:
        firebase_admin.delete_app(signed_app)


def test_get_users_by_several_identifiers(app, emulator):
    sub = f"g-{uuid.uuid4().hex[:8]}"
    email = f"{sub}@gmail.com"
    claims = __import__("json").dumps({"sub": sub, "email": email, "email_verified": True})
    status, body = itk(emulator, "signInWithIdp", {"requestUri": "http://localhost", "returnSecureToken": True,
                                                   "postBody": "providerId=google.com&id_token=" + __import__("urllib.parse").parse.quote(claims)})
    assert status == 200
    other = auth.create_user(phone_number="+1555" + str(uuid.uuid4().int)[:7], app=app)
    result = auth.get_users([auth.ProviderIdentifier("google.com", sub), auth.PhoneIdentifier(other.phone_number),
                             auth.UidIdentifier("missing-uid")], app=app)
    assert {u.uid for u in result.users} == {body["localId"], other.uid}
    assert len(result.not_found) == 1


def test_session_cookies(app, emulator):
    import datetime
    email = unique_email("cookie")
    auth.create_user(email=email, password="secret123", app=app)
    _, body = itk(emulator, "signInWithPassword", {"email": email, "password": "secret123", "returnSecureToken": True})
    cookie = auth.create_session_cookie(body["idToken"], expires_in=datetime.timedelta(minutes=10), app=app)
    claims = auth.verify_session_cookie(cookie, check_revoked=True, app=app)
    assert claims["uid"] == body["localId"]
    assert claims["iss"] == f"https://session.firebase.google.com/{emulator.project}"
    with pytest.raises(ValueError):
        auth.create_session_cookie(body["idToken"], expires_in=datetime.timedelta(seconds=10), app=app)
