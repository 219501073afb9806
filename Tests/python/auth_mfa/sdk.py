"""What the iOS and JS SDKs send for MFA and tenants, one REST call at a time, against one user pool
(a project's own users, or a tenant's: then every call carries `tenantId` in its body, as the JS
SDK's `_addTidIfNecessary` and the iOS SDK's `tenantID` do). Also a test-side TOTP (RFC 6238 with
hmac/hashlib, independent of the emulator's) and helpers for the emulator's control plane."""
import base64
import datetime
import hashlib
import hmac
import json
import struct
import uuid

import requests

ITK = "/identitytoolkit.googleapis.com"
OWNER = {"Authorization": "Bearer owner"}
# What the tests' tenants allow: every first factor, SMS and TOTP second factors (±1 step).
TENANT_SETTINGS = {"displayName": "Mfa-Tenant", "allowPasswordSignup": True, "enableEmailLinkSignin": True, "enableAnonymousUser": True,
                   "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                                 "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}}


def totp(secret_b32, at, digits=6, period=30):
    """RFC 6238 TOTP with HMAC-SHA1: HOTP (RFC 4226) of floor(at / period), as authenticator apps compute it."""
    key = base64.b32decode(secret_b32.upper() + "=" * (-len(secret_b32) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(at) // period), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    value = (struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 10 ** digits
    return str(value).zfill(digits)


def b64(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def apple_post_body(sub, email):
    """The credential the iOS SDK sends for Sign in with Apple (an Apple ID token; fake, unsigned)."""
    token = b64({"alg": "none", "typ": "JWT"}) + "." + b64({"sub": sub, "email": email, "email_verified": True, "iss": "https://appleid.apple.com"}) + "."
    return f"providerId=apple.com&id_token={token}&nonce=n-{sub}"


class Pool:
    """One user pool of a fresh project on `emu`: the project's own users, or a tenant's."""

    def __init__(self, emu, tenant=False, prefix="mfa"):
        self.emu = emu
        self.project = f"{prefix}-{uuid.uuid4().hex[:10]}"
        self.key = "key-" + self.project
        r = requests.post(emu.url + "/emulator/v1/projects", json={"projectId": self.project, "apiKey": self.key}, timeout=10)
        assert r.status_code == 200, r.text
        self.tenant = None
        if tenant:
            r = requests.post(f"{emu.url}{ITK}/v2/projects/{self.project}/tenants", json=TENANT_SETTINGS, headers=OWNER, timeout=10)
            assert r.status_code == 200, r.text
            self.tenant = r.json()["name"].rsplit("/", 1)[1]

    def __repr__(self):
        return f"Pool({self.project}, tenant={self.tenant})"

    # -- client calls (API key, tenantId in the body) --
    def post(self, path, body, key=True, tenant=True):
        body = dict(body)
        if self.tenant and tenant:
            body.setdefault("tenantId", self.tenant)
        url = f"{self.emu.url}{ITK}/{path}" + (f"?key={self.key}" if key else "")
        r = requests.post(url, json=body, timeout=15)
        return r.status_code, r.json()

    def ok(self, path, body, **kw):
        status, out = self.post(path, body, **kw)
        assert status == 200, (path, out)
        return out

    def err(self, path, body, status=400, **kw):
        got, out = self.post(path, body, **kw)
        assert got == status, (path, got, out)
        return out["error"]["message"]

    def refresh(self, refresh_token):
        r = requests.post(f"{self.emu.url}/securetoken.googleapis.com/v1/token?key={self.key}",
                          data={"grant_type": "refresh_token", "refresh_token": refresh_token}, timeout=10)
        return r.status_code, r.json()

    # -- admin calls (Bearer owner, the pool in the path as Admin SDKs put it) --
    @property
    def admin_base(self):
        base = f"{self.emu.url}{ITK}/v1/projects/{self.project}"
        return base + f"/tenants/{self.tenant}" if self.tenant else base

    def admin(self, verb, body):
        r = requests.post(f"{self.admin_base}/accounts:{verb}", json=body, headers=OWNER, timeout=10)
        return r.status_code, r.json()

    def admin_ok(self, verb, body):
        status, out = self.admin(verb, body)
        assert status == 200, (verb, out)
        return out

    def user(self, uid):
        return self.admin_ok("lookup", {"localId": [uid]})["users"][0]

    # -- the emulator's control plane --
    @property
    def emulator_base(self):
        base = f"{self.emu.url}/emulator/v1/projects/{self.project}"
        return base + f"/tenants/{self.tenant}" if self.tenant else base

    def codes(self):
        r = requests.get(f"{self.emulator_base}/verificationCodes", timeout=10)
        assert r.status_code == 200, r.text
        return r.json()["verificationCodes"]

    def code_for(self, session):
        """What a test reads to type the SMS code: matched on sessionInfo, never on the number."""
        return next(c for c in self.codes() if c["sessionInfo"] == session)

    def oob_codes(self):
        return requests.get(f"{self.emulator_base}/oobCodes", timeout=10).json()["oobCodes"]

    def advance(self, seconds):
        r = requests.post(f"{self.emu.url}/emulator/v1/projects/{self.project}/clock:advance", json={"seconds": seconds}, timeout=10)
        assert r.status_code == 200, r.text

    def freeze(self, at=None):
        body = {"mode": "frozen"}
        if at:
            body["time"] = at
        r = requests.put(f"{self.emu.url}/emulator/v1/projects/{self.project}/clock", json=body, timeout=10)
        assert r.status_code == 200, r.text

    def now(self):
        t = requests.get(f"{self.emu.url}/emulator/v1/projects/{self.project}/clock", timeout=10).json()["time"]
        return datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()

    def set_config(self, patch):
        r = requests.patch(f"{self.emu.url}/emulator/v1/projects/{self.project}/config", json=patch, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()

    def set_mfa(self, mfa):
        """The project's `mfa` (v2 config) or the tenant's `mfaConfig` (v2 tenant PATCH)."""
        if self.tenant:
            r = requests.patch(f"{self.emu.url}{ITK}/v2/projects/{self.project}/tenants/{self.tenant}?updateMask=mfaConfig",
                               json={"mfaConfig": mfa}, headers=OWNER, timeout=10)
        else:
            r = requests.patch(f"{self.emu.url}{ITK}/v2/projects/{self.project}/config?updateMask=mfa", json={"mfa": mfa}, headers=OWNER, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()

    # -- flows --
    def sign_up(self, email, password="secret123"):
        return self.ok("v1/accounts:signUp", {"email": email, "password": password, "returnSecureToken": True})

    def verify_email(self, id_token):
        """The JS SDK's sendEmailVerification + applyActionCode, with the code read from the emulator."""
        self.ok("v1/accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": id_token})
        code = self.oob_codes()[-1]["oobCode"]
        self.ok("v1/accounts:update", {"oobCode": code})

    def verified_user(self, email=None, password="secret123"):
        """Signs up, verifies the email, signs in again: an MFA-eligible session (password first factor)."""
        email = email or f"u-{uuid.uuid4().hex[:8]}@example.com"
        first = self.sign_up(email, password)
        self.verify_email(first["idToken"])
        s = self.ok("v1/accounts:signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
        s["email"] = email
        s["password"] = password
        return s

    def enroll_phone(self, id_token, phone, name="my phone"):
        """JS: verifyPhoneNumber({phoneNumber, session}) then multiFactor(user).enroll(assertion, name)."""
        started = self.ok("v2/accounts/mfaEnrollment:start", {"idToken": id_token, "phoneEnrollmentInfo": {"phoneNumber": phone, "recaptchaToken": "fake"}})
        session = started["phoneSessionInfo"]["sessionInfo"]
        code = self.code_for(session)["code"]
        done = self.ok("v2/accounts/mfaEnrollment:finalize", {"idToken": id_token, "displayName": name,
                                                             "phoneVerificationInfo": {"sessionInfo": session, "code": code}})
        done["mfaEnrollmentId"] = claims(done["idToken"])["firebase"]["second_factor_identifier"]
        return done

    def password_sign_in(self, user):
        return self.post("v1/accounts:signInWithPassword", {"email": user["email"], "password": user["password"], "returnSecureToken": True,
                                                            "clientType": "CLIENT_TYPE_WEB"})
