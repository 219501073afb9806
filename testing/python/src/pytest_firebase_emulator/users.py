"""User and ID-token factories over the emulator's Auth API and control plane."""
from __future__ import annotations

import base64
import dataclasses
import json
import uuid

__all__ = ["TestUser", "Users"]

OWNER = {"Authorization": "Bearer owner"}


@dataclasses.dataclass
class TestUser:
    """A user created for a test, signed in: ``uid``, ``id_token``, ``refresh_token`` and what
    it was created with. Unpacks as ``uid, id_token = project.create_user()``."""

    __test__ = False  # not a test class, whatever pytest's naming rules say

    uid: str
    id_token: str
    refresh_token: str
    provider: str
    email: str | None = None
    password: str | None = None
    phone: str | None = None
    claims: dict | None = None
    mfa_enrollment_id: str | None = None
    _users: "Users | None" = dataclasses.field(default=None, repr=False, compare=False)

    def __iter__(self):
        return iter((self.uid, self.id_token))

    @property
    def headers(self):
        """``{"Authorization": "Bearer <id_token>"}`` for REST calls and callables."""
        return {"Authorization": f"Bearer {self.id_token}"}

    def refresh(self):
        """Exchanges the refresh token for a new ID token (claims and profile as stored now)."""
        body = self._users._refresh(self.refresh_token)
        self.id_token, self.refresh_token = body["id_token"], body["refresh_token"]
        return self.id_token

    @property
    def token_claims(self):
        """The ID token's payload, decoded without verification."""
        return _claims(self.id_token)


def _claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def fake_idp_credential(provider, sub, email=None, email_verified=True):
    """The ``postBody`` of a sign-in with ``provider`` as the emulator accepts it (an unsigned
    JWT with ``sub``), like Firebase's emulator."""
    def b64(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
    claims = {"sub": sub}
    if email:
        claims.update(email=email, email_verified=email_verified)
    return f"id_token={b64({'alg': 'none', 'typ': 'JWT'})}.{b64(claims)}.&providerId={provider}"


class Users:
    """Creates signed-in users in one project through the public Auth API (with the project's API
    key) and the control plane. Each kind is one method; ``create`` picks by arguments."""

    def __init__(self, project):
        self._p = project

    # Raw calls -------------------------------------------------------------------------------

    def _client(self, op, body, version="v1"):
        sep = "/" if version == "v2" else ":"  # v2 MFA calls are accounts/mfaSignIn:start
        return self._p.control.post(f"/identitytoolkit.googleapis.com/{version}/accounts{sep}{op}", body,
                                    params={"key": self._p.api_key})

    def _admin(self, op, body):
        return self._p.control.post(f"/identitytoolkit.googleapis.com/v1/projects/{self._p.project_id}/accounts{op}",
                                    body, headers=OWNER)

    def _refresh(self, refresh_token):
        return self._p.control.post("/securetoken.googleapis.com/v1/token",
                                    {"grant_type": "refresh_token", "refresh_token": refresh_token},
                                    params={"key": self._p.api_key})

    def _user(self, body, provider, **extra):
        uid = body.get("localId") or _claims(body["idToken"])["user_id"]  # custom-token sign-ins answer no localId
        return TestUser(uid=uid, id_token=body["idToken"], refresh_token=body["refreshToken"],
                        provider=provider, _users=self, **extra)

    # Kinds -----------------------------------------------------------------------------------

    def custom_token(self, uid, claims=None):
        """An RS256 custom token for ``uid`` minted by the emulator (accepted in every token mode)."""
        body = {"uid": uid, **({"claims": claims} if claims else {})}
        return self._p.control.post(f"/emulator/v1/projects/{self._p.project_id}/customTokens", body)["token"]

    def id_token(self, uid=None, claims=None):
        """A fresh ID token for ``uid`` (created on first use) through a custom token; ``claims``
        are the custom token's developer claims (in the token, not stored on the user)."""
        uid = uid or _uid()
        body = self._client("signInWithCustomToken", {"token": self.custom_token(uid, claims), "returnSecureToken": True})
        return body["idToken"]

    def anonymous(self, claims=None):
        """An anonymous sign-up (``provider_id: anonymous``)."""
        user = self._user(self._client("signUp", {"returnSecureToken": True}), "anonymous")
        return self._with_claims(user, claims)

    def password(self, email=None, password="password-123", email_verified=False, claims=None, display_name=None):
        """An email/password account, signed in with its password."""
        email = email or f"{_uid()}@example.com"
        body = {"email": email, "password": password, "emailVerified": email_verified}
        if display_name:
            body["displayName"] = display_name
        uid = self._admin("", body)["localId"]
        if claims:
            self.set_claims(uid, claims)
        signed = self._client("signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
        return self._user(signed, "password", email=email, password=password, claims=claims)

    def idp(self, provider, email=None, sub=None, claims=None, id_token=None):
        """A federated sign-in (``apple.com``, ``google.com``, ...) with a fake IdP credential.
        With ``id_token`` (a signed-in user's), the provider is linked to that user instead."""
        sub = sub or _uid()
        body = {"postBody": fake_idp_credential(provider, sub, email), "requestUri": "http://localhost",
                "returnSecureToken": True}
        if id_token:
            body["idToken"] = id_token
        user = self._user(self._client("signInWithIdp", body), provider, email=email)
        return self._with_claims(user, claims)

    def custom(self, uid=None, claims=None, email=None, display_name=None):
        """A user created by the Admin API and signed in with a custom token (``sign_in_provider:
        custom``); ``claims`` are stored as custom claims, so they are in every token."""
        uid = uid or _uid()
        body = {"localId": uid}
        if email:
            body["email"] = email
        if display_name:
            body["displayName"] = display_name
        self._admin("", body)
        if claims:
            self.set_claims(uid, claims)
        signed = self._client("signInWithCustomToken", {"token": self.custom_token(uid), "returnSecureToken": True})
        return self._user(signed, "custom", email=email, claims=claims)

    def mfa(self, phone="+15555550100", email=None, password="password-123", claims=None):
        """A password user with a verified email and an enrolled SMS second factor, signed in with
        both factors (the token carries ``firebase.sign_in_second_factor: phone``)."""
        email = email or f"{_uid()}@example.com"
        body = {"email": email, "password": password, "emailVerified": True, "mfaInfo": [{"phoneInfo": phone}]}
        uid = self._admin("", body)["localId"]
        if claims:
            self.set_claims(uid, claims)
        first = self._client("signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
        pending, enrollment = first["mfaPendingCredential"], first["mfaInfo"][0]["mfaEnrollmentId"]
        started = self._client("mfaSignIn:start", {"mfaPendingCredential": pending, "mfaEnrollmentId": enrollment,
                                                   "phoneSignInInfo": {"phoneNumber": phone}}, version="v2")
        session = started["phoneResponseInfo"]["sessionInfo"]
        code = next(c["code"] for c in reversed(self._p.sms_codes()) if c.get("sessionInfo") == session)
        done = self._client("mfaSignIn:finalize", {"mfaPendingCredential": pending,
                                                   "phoneVerificationInfo": {"sessionInfo": session, "code": code}}, version="v2")
        return TestUser(uid=first["localId"], id_token=done["idToken"], refresh_token=done["refreshToken"], provider="password",
                        email=email, password=password, phone=phone, claims=claims, mfa_enrollment_id=enrollment, _users=self)

    def create(self, uid=None, *, anonymous=False, email=None, password=None, provider=None, claims=None,
               email_verified=False, display_name=None, mfa_phone=None):
        """One entry point for every kind: ``anonymous=True``; ``provider="apple.com"``;
        ``mfa_phone="+1555..."``; ``email``/``password`` (a password account); otherwise a custom-token
        user (``uid`` optional). ``claims`` become custom claims in the ID token."""
        if anonymous:
            return self.anonymous(claims=claims)
        if provider and provider != "password":
            return self.idp(provider, email=email, sub=uid, claims=claims)
        if mfa_phone:
            return self.mfa(phone=mfa_phone, email=email, password=password or "password-123", claims=claims)
        if email or password or provider == "password":
            return self.password(email=email, password=password or "password-123", email_verified=email_verified,
                                 claims=claims, display_name=display_name)
        return self.custom(uid=uid, claims=claims, display_name=display_name)

    def set_claims(self, uid, claims):
        """Stores custom claims on a user (what ``auth.set_custom_user_claims`` does)."""
        self._admin(":update", {"localId": uid, "customAttributes": json.dumps(claims or {})})

    def _with_claims(self, user, claims):
        if claims:
            self.set_claims(user.uid, claims)
            user.claims = claims
            user.refresh()
        return user


def _uid():
    return "u" + uuid.uuid4().hex[:19]
