"""Multi-factor auth over REST, as the JS and iOS SDKs call it step by step, in a project's own
pool and in a tenant (every test runs for both). Codes are read from
`/emulator/v1/projects/{p}[/tenants/{t}]/verificationCodes` (matched on `sessionInfo`), TOTP codes
are computed here with hmac/hashlib (`sdk.totp`), and the error strings are production's (see the
MFA reference notes; docs/auth.md)."""
import random
import uuid

import pytest
import requests

from auth_mfa.sdk import ITK, OWNER, Pool, apple_post_body, b64, claims, totp


@pytest.fixture(params=["project", "tenant"])
def pool(request, emulator):
    return Pool(emulator, tenant=request.param == "tenant")


def phone():
    return "+1555" + str(random.randrange(1_000_000, 10_000_000))


def unsigned(payload):
    """An unsigned JWT, as Admin SDKs mint custom tokens in emulator mode."""
    return b64({"alg": "none", "typ": "JWT"}) + "." + b64(payload) + "."


def masked(number):
    digits = sum(c.isdigit() for c in number)
    seen = 0
    out = ""
    for c in number:
        if c.isdigit():
            seen += 1
            out += "*" if seen <= digits - 4 else c
        else:
            out += c
    return out


def test_python_totp_matches_rfc6238_vectors():
    """The test-side TOTP itself, against RFC 6238 Appendix B (SHA-1, last six digits)."""
    secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # base32 of "12345678901234567890"
    vectors = {59: "287082", 1111111109: "081804", 1111111111: "050471", 1234567890: "005924", 2000000000: "279037", 20000000000: "353130"}
    assert {t: totp(secret, t) for t in vectors} == vectors


def test_js_phone_enrolment_then_password_sign_in_resolved_by_mfa_sign_in(pool):
    user = pool.verified_user()
    number = phone()
    pool.advance(1)  # enrolment revokes sessions issued before it (validSince has one-second resolution)
    enrolled = pool.enroll_phone(user["idToken"], number, name="Work phone")
    assert set(enrolled) >= {"idToken", "refreshToken"}
    c = claims(enrolled["idToken"])
    assert c["firebase"]["sign_in_second_factor"] == "phone" and c["firebase"]["sign_in_provider"] == "password"
    assert c["firebase"].get("tenant") == pool.tenant
    # The other sessions are revoked; the finalize tokens work.
    status, out = pool.refresh(user["refreshToken"])
    assert status == 400 and out["error"]["message"] == "TOKEN_EXPIRED"
    # JS reload(): accounts:lookup with the new token shows the factor with the full number.
    me = pool.ok("v1/accounts:lookup", {"idToken": enrolled["idToken"]})["users"][0]
    factor = me["mfaInfo"][0]
    assert factor["phoneInfo"] == number and factor["unobfuscatedPhoneInfo"] == number and factor["displayName"] == "Work phone"
    assert len(factor["enrolledAt"]) == len("2026-11-22T10:11:12.345Z") and factor["enrolledAt"].endswith("Z")
    assert factor["mfaEnrollmentId"] == enrolled["mfaEnrollmentId"] and len(factor["mfaEnrollmentId"]) == 28

    # Sign-in: the first factor answers with a challenge, never tokens.
    status, first = pool.password_sign_in(user)
    assert status == 200
    assert {"idToken", "refreshToken", "expiresIn"}.isdisjoint(first)
    assert first["mfaInfo"] == [{"mfaEnrollmentId": factor["mfaEnrollmentId"], "displayName": "Work phone",
                                 "enrolledAt": factor["enrolledAt"], "phoneInfo": masked(number)}]
    # getMultiFactorResolver + verifyPhoneNumber({multiFactorHint, session}).
    started = pool.ok("v2/accounts/mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                      "mfaEnrollmentId": factor["mfaEnrollmentId"], "phoneSignInInfo": {"recaptchaToken": "fake"}})
    session = started["phoneResponseInfo"]["sessionInfo"]
    sms = pool.code_for(session)
    assert sms["phoneNumber"] == number
    pool.advance(7)
    before = pool.now()
    done = pool.ok("v2/accounts/mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                      "phoneVerificationInfo": {"sessionInfo": session, "code": sms["code"]}})
    after = pool.now()
    assert set(done) == {"idToken", "refreshToken"}
    c = claims(done["idToken"])
    assert c["sub"] == user["localId"] and c["firebase"]["second_factor_identifier"] == factor["mfaEnrollmentId"]
    assert c["firebase"]["sign_in_second_factor"] == "phone" and c["firebase"].get("tenant") == pool.tenant
    # The finalize time, in whole seconds (the project clock runs on: no fixed distance holds).
    assert int(before) <= c["auth_time"] <= after
    # Refreshed tokens keep the second factor; the code was used up.
    status, refreshed = pool.refresh(done["refreshToken"])
    assert status == 200 and claims(refreshed["id_token"])["firebase"]["sign_in_second_factor"] == "phone"
    assert all(c["sessionInfo"] != session for c in pool.codes())


def test_ios_apple_sign_in_challenge_resolved_with_masked_hint_number(pool):
    """iOS >= 12.18 in emulator mode: mfaSignIn:start with the masked hint number, then finalize
    with no enrolment id and no number (the enrolment is found through the code's session)."""
    sub = "apple-" + uuid.uuid4().hex[:8]
    body = {"requestUri": "http://localhost", "postBody": apple_post_body(sub, f"{sub}@privaterelay.appleid.com"),
            "returnSecureToken": True, "returnIdpCredential": True}
    first = pool.ok("v1/accounts:signInWithIdp", body)
    assert first["emailVerified"] is True and "mfaPendingCredential" not in first
    number = phone()
    enrolled = pool.enroll_phone(first["idToken"], number)
    assert claims(enrolled["idToken"])["firebase"]["sign_in_provider"] == "apple.com"
    challenged = pool.ok("v1/accounts:signInWithIdp", body)
    assert "idToken" not in challenged and challenged["localId"] == first["localId"] and challenged["providerId"] == "apple.com"
    hint = challenged["mfaInfo"][0]
    assert hint["phoneInfo"] == masked(number) and "unobfuscatedPhoneInfo" not in hint
    started = pool.ok("v2/accounts/mfaSignIn:start", {"mfaPendingCredential": challenged["mfaPendingCredential"],
                                                      "mfaEnrollmentId": hint["mfaEnrollmentId"], "phoneSignInInfo": {"phoneNumber": hint["phoneInfo"]}})
    session = started["phoneResponseInfo"]["sessionInfo"]
    assert pool.code_for(session)["phoneNumber"] == number  # the stored number, not the masked one sent
    done = pool.ok("v2/accounts/mfaSignIn:finalize", {"mfaPendingCredential": challenged["mfaPendingCredential"],
                                                      "phoneVerificationInfo": {"sessionInfo": session, "code": pool.code_for(session)["code"]}})
    c = claims(done["idToken"])
    assert c["sub"] == first["localId"] and c["firebase"]["sign_in_provider"] == "apple.com"
    assert c["firebase"]["second_factor_identifier"] == hint["mfaEnrollmentId"]


def test_older_ios_sdks_use_send_verification_code(pool):
    """iOS < 12.18 in emulator mode: enrolment and sign-in both go through v1
    accounts:sendVerificationCode (sign-in with the masked hint number)."""
    user = pool.verified_user()
    number = phone()
    sent = pool.ok("v1/accounts:sendVerificationCode", {"phoneNumber": number})
    enrolled = pool.ok("v2/accounts/mfaEnrollment:finalize", {"idToken": user["idToken"], "phoneVerificationInfo": {
        "sessionInfo": sent["sessionInfo"], "code": pool.code_for(sent["sessionInfo"])["code"]}})
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    status, first = pool.password_sign_in(user)
    hint = first["mfaInfo"][0]
    sent = pool.ok("v1/accounts:sendVerificationCode", {"phoneNumber": hint["phoneInfo"]})
    listed = pool.code_for(sent["sessionInfo"])
    assert listed["phoneNumber"] == masked(number)
    # That code proves the factor, not a phone first factor.
    assert pool.err("v1/accounts:signInWithPhoneNumber", {"sessionInfo": sent["sessionInfo"], "code": listed["code"]}) == "INVALID_SESSION_INFO"
    done = pool.ok("v2/accounts/mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                      "phoneVerificationInfo": {"sessionInfo": sent["sessionInfo"], "code": listed["code"]}})
    assert claims(done["idToken"])["firebase"]["second_factor_identifier"] == enrollment_id

    # Two factors ending in the same four digits cannot be told apart by a masked number.
    twin = number[:-7] + str((int(number[-7:-4]) + 1) % 1000).zfill(3) + number[-4:]
    assert masked(twin) == masked(number) and twin != number
    pool.enroll_phone(done["idToken"], twin)
    status, again = pool.password_sign_in(user)
    sent = pool.ok("v1/accounts:sendVerificationCode", {"phoneNumber": masked(number)})
    message = pool.err("v2/accounts/mfaSignIn:finalize", {"mfaPendingCredential": again["mfaPendingCredential"], "phoneVerificationInfo": {
        "sessionInfo": sent["sessionInfo"], "code": pool.code_for(sent["sessionInfo"])["code"]}})
    assert message.startswith("MFA_ENROLLMENT_NOT_FOUND") and "more than one second factor" in message


def test_merge_flow_ends_with_a_second_factor(pool):
    """The seed's merge flow: the tablet's link fails (already linked), the app signs in with Apple
    instead, the sign-in asks for the second factor, and the phone code resolves it to the first
    device's uid."""
    sub = "apple-" + uuid.uuid4().hex[:8]
    email = f"{sub}@privaterelay.appleid.com"
    link = {"requestUri": "http://localhost", "postBody": apple_post_body(sub, email), "returnSecureToken": True, "returnIdpCredential": True}
    # Phone: anonymous, then Apple linked (uid stays), then a phone second factor.
    phone_anon = pool.ok("v1/accounts:signUp", {"returnSecureToken": True})
    linked = pool.ok("v1/accounts:signInWithIdp", {**link, "idToken": phone_anon["idToken"]})
    assert linked["localId"] == phone_anon["localId"] and "mfaPendingCredential" not in linked
    number = phone()
    pool.enroll_phone(linked["idToken"], number)
    # Tablet: anonymous, linking the same Apple credential fails.
    tablet = pool.ok("v1/accounts:signUp", {"returnSecureToken": True})
    refused = pool.ok("v1/accounts:signInWithIdp", {**link, "idToken": tablet["idToken"]})
    assert refused["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED" and "idToken" not in refused
    # The app signs in with the credential instead: second factor required.
    challenged = pool.ok("v1/accounts:signInWithIdp", link)
    assert "idToken" not in challenged and challenged["localId"] == phone_anon["localId"]
    hint = challenged["mfaInfo"][0]
    started = pool.ok("v2/accounts/mfaSignIn:start", {"mfaPendingCredential": challenged["mfaPendingCredential"], "mfaEnrollmentId": hint["mfaEnrollmentId"]})
    session = started["phoneResponseInfo"]["sessionInfo"]
    done = pool.ok("v2/accounts/mfaSignIn:finalize", {"mfaPendingCredential": challenged["mfaPendingCredential"],
                                                      "phoneVerificationInfo": {"sessionInfo": session, "code": pool.code_for(session)["code"]}})
    assert claims(done["idToken"])["sub"] == phone_anon["localId"]
    # The tablet's anonymous account is untouched and still the tablet's (the app migrates its data next).
    assert pool.ok("v1/accounts:lookup", {"idToken": tablet["idToken"]})["users"][0]["localId"] == tablet["localId"]


def test_totp_enrolment_and_sign_in_with_codes_computed_here(pool):
    pool.freeze("2030-01-01T00:00:10Z")
    user = pool.verified_user()
    started = pool.ok("v2/accounts/mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}})
    info = started["totpSessionInfo"]
    assert info["verificationCodeLength"] == 6 and info["hashingAlgorithm"] == "SHA1" and info["periodSec"] == 30
    assert info["finalizeEnrollmentTime"] == "2030-01-01T00:10:10.000Z"
    secret = info["sharedSecretKey"]
    assert len(secret) == 32  # 160 bits, base32
    now = pool.now()
    done = pool.ok("v2/accounts/mfaEnrollment:finalize", {"idToken": user["idToken"], "displayName": "Authenticator",
                                                          "totpVerificationInfo": {"sessionInfo": info["sessionInfo"], "verificationCode": totp(secret, now)}})
    assert done["totpAuthInfo"] == {} and claims(done["idToken"])["firebase"]["sign_in_second_factor"] == "totp"
    factor = pool.ok("v1/accounts:lookup", {"idToken": done["idToken"]})["users"][0]["mfaInfo"][0]
    assert factor["totpInfo"] == {} and "phoneInfo" not in factor and factor["displayName"] == "Authenticator"

    def finalize(pending, code):
        return pool.post("v2/accounts/mfaSignIn:finalize", {"mfaPendingCredential": pending, "mfaEnrollmentId": factor["mfaEnrollmentId"],
                                                            "totpVerificationInfo": {"verificationCode": code}})

    status, first = pool.password_sign_in(user)
    assert first["mfaInfo"][0]["totpInfo"] == {} and "phoneInfo" not in first["mfaInfo"][0]
    # The enrolment code was used once already: refused (RFC 6238 §5.2). clock:advance steps codes.
    status, out = finalize(first["mfaPendingCredential"], totp(secret, now))
    assert status == 400 and out["error"]["message"] == "INVALID_CODE"
    pool.advance(30)
    status, out = finalize(first["mfaPendingCredential"], totp(secret, pool.now()))
    assert status == 200, out
    assert claims(out["idToken"])["firebase"]["second_factor_identifier"] == factor["mfaEnrollmentId"]
    # A replay of that code is refused, even with a new first factor.
    used = totp(secret, pool.now())
    status, second = pool.password_sign_in(user)
    status, out = finalize(second["mfaPendingCredential"], used)
    assert status == 400 and out["error"]["message"] == "INVALID_CODE"
    # adjacentIntervals: the tenant allows ±1 step, the project's default ±5.
    window = 1 if pool.tenant else 5
    status, out = finalize(second["mfaPendingCredential"], totp(secret, pool.now() + 30 * (window + 1)))
    assert status == 400 and out["error"]["message"] == "INVALID_CODE"
    status, out = finalize(second["mfaPendingCredential"], totp(secret, pool.now() + 30 * window))
    assert status == 200, out
    # TOTP has no mfaSignIn:start; a TOTP finalize needs the enrolment id.
    status, third = pool.password_sign_in(user)
    assert pool.err("v2/accounts/mfaSignIn:start", {"mfaPendingCredential": third["mfaPendingCredential"],
                                                    "mfaEnrollmentId": factor["mfaEnrollmentId"]}) == "INVALID_ARGUMENT : MFA provider not supported!"
    assert pool.err("v2/accounts/mfaSignIn:finalize", {"mfaPendingCredential": third["mfaPendingCredential"],
                                                       "totpVerificationInfo": {"verificationCode": "123456"}}) == \
        "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided."


def test_withdraw(pool):
    user = pool.verified_user()
    enrolled = pool.enroll_phone(user["idToken"], phone())
    assert pool.err("v2/accounts/mfaEnrollment:withdraw", {"idToken": enrolled["idToken"], "mfaEnrollmentId": "nope"}) == "MFA_ENROLLMENT_NOT_FOUND"
    out = pool.ok("v2/accounts/mfaEnrollment:withdraw", {"idToken": enrolled["idToken"], "mfaEnrollmentId": enrolled["mfaEnrollmentId"]})
    assert set(out) == {"idToken", "refreshToken"} and "sign_in_second_factor" not in claims(out["idToken"])["firebase"]
    assert "mfaInfo" not in pool.ok("v1/accounts:lookup", {"idToken": out["idToken"]})["users"][0]
    status, signed_in = pool.password_sign_in(user)
    assert status == 200 and "idToken" in signed_in and "mfaPendingCredential" not in signed_in
    assert pool.err("v2/accounts/mfaEnrollment:withdraw", {"idToken": out["idToken"], "mfaEnrollmentId": enrolled["mfaEnrollmentId"]}) == "MFA_ENROLLMENT_NOT_FOUND"


def test_enrolment_error_strings(pool):
    start = "v2/accounts/mfaEnrollment:start"
    number = phone()
    assert pool.err(start, {}) == "MISSING_ID_TOKEN"
    assert pool.err(start, {"idToken": "garbage"}) == "INVALID_ID_TOKEN"
    anon = pool.ok("v1/accounts:signUp", {"returnSecureToken": True})
    assert pool.err(start, {"idToken": anon["idToken"]}) == "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor."
    fresh = pool.sign_up(f"u-{uuid.uuid4().hex[:8]}@example.com")
    assert pool.err(start, {"idToken": fresh["idToken"]}) == "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors."
    user = pool.verified_user()
    assert pool.err(start, {"idToken": user["idToken"]}) == "INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.))"
    assert pool.err(start, {"idToken": user["idToken"], "phoneEnrollmentInfo": {}}) == "INVALID_PHONE_NUMBER : Invalid format."
    assert pool.err(start, {"idToken": user["idToken"], "phoneEnrollmentInfo": {"phoneNumber": "5555550100"}}) == "INVALID_PHONE_NUMBER : Invalid format."
    enrolled = pool.enroll_phone(user["idToken"], number)
    assert pool.err(start, {"idToken": enrolled["idToken"], "phoneEnrollmentInfo": {"phoneNumber": number}}) == \
        "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account."
    # Custom-token and phone first factors are not MFA-eligible either.
    aud = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    custom = {"aud": aud, "uid": "custom-" + uuid.uuid4().hex[:6]}
    if pool.tenant:
        custom["tenant_id"] = pool.tenant
    ct = pool.ok("v1/accounts:signInWithCustomToken", {"token": unsigned(custom), "returnSecureToken": True})
    assert pool.err(start, {"idToken": ct["idToken"]}) == "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor."
    # Finalize.
    fin = "v2/accounts/mfaEnrollment:finalize"
    other = pool.verified_user()
    s = pool.ok(start, {"idToken": other["idToken"], "phoneEnrollmentInfo": {"phoneNumber": phone()}})["phoneSessionInfo"]["sessionInfo"]
    code = pool.code_for(s)["code"]
    assert pool.err(fin, {"idToken": other["idToken"]}) == "INVALID_ARGUMENT : ((Missing phoneVerificationInfo.))"
    assert pool.err(fin, {"idToken": other["idToken"], "phoneVerificationInfo": {"sessionInfo": s}}) == "MISSING_CODE"
    assert pool.err(fin, {"idToken": other["idToken"], "phoneVerificationInfo": {"code": code}}) == "MISSING_SESSION_INFO"
    assert pool.err(fin, {"idToken": other["idToken"], "phoneVerificationInfo": {"sessionInfo": "nope", "code": code}}) == "INVALID_SESSION_INFO"
    wrong = "000000" if code != "000000" else "111111"
    assert pool.err(fin, {"idToken": other["idToken"], "phoneVerificationInfo": {"sessionInfo": s, "code": wrong}}) == "INVALID_CODE"
    # Someone else's enrolment session is not yours.
    assert pool.err(fin, {"idToken": enrolled["idToken"], "phoneVerificationInfo": {"sessionInfo": s, "code": code}}) == "INVALID_SESSION_INFO"
    status, out = pool.post(fin, {"idToken": other["idToken"], "phoneVerificationInfo": {"androidVerificationProof": "x", "phoneNumber": phone()}})
    assert status == 501 and "androidVerificationProof" in out["error"]["message"]
    # Nothing of that changed anything: the code still works once.
    pool.ok(fin, {"idToken": other["idToken"], "phoneVerificationInfo": {"sessionInfo": s, "code": code}})
    # Token errors: disabled, deleted, expired (the project clock), another tenant's.
    disabled = pool.verified_user()
    pool.admin_ok("update", {"localId": disabled["localId"], "disableUser": True})
    assert pool.err(start, {"idToken": disabled["idToken"]}) == "USER_DISABLED"
    gone = pool.verified_user()
    pool.admin_ok("delete", {"localId": gone["localId"]})
    assert pool.err(start, {"idToken": gone["idToken"]}) == "USER_NOT_FOUND"
    # Production-only: five factors at most; a recent sign-in (5 minutes) to enrol.
    many = pool.verified_user()
    pool.admin_ok("update", {"localId": many["localId"], "mfa": {"enrollments": [
        {"mfaEnrollmentId": f"f{i}", "phoneInfo": phone()} for i in range(5)]}})
    assert pool.err(start, {"idToken": many["idToken"], "phoneEnrollmentInfo": {"phoneNumber": phone()}}) == "SECOND_FACTOR_LIMIT_EXCEEDED"
    assert pool.err(start, {"idToken": many["idToken"], "totpEnrollmentInfo": {}}) == "SECOND_FACTOR_LIMIT_EXCEEDED"
    stale = pool.verified_user()
    pool.advance(301)
    status, refreshed = pool.refresh(stale["refreshToken"])
    assert pool.err(start, {"idToken": refreshed["id_token"], "phoneEnrollmentInfo": {"phoneNumber": phone()}}) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    assert pool.err("v2/accounts/mfaEnrollment:withdraw", {"idToken": refreshed["id_token"]}) == "MFA_ENROLLMENT_NOT_FOUND"
    pool.advance(3600)
    assert pool.err(start, {"idToken": refreshed["id_token"]}) == "TOKEN_EXPIRED"
    # A token of one pool sent to another: TENANT_ID_MISMATCH.
    fresh_user = pool.verified_user()
    if pool.tenant:
        r = requests.post(f"{pool.emu.url}{ITK}/v2/accounts/mfaEnrollment:start?key={pool.key}",
                          json={"idToken": fresh_user["idToken"], "tenantId": pool.tenant + "-other"}, timeout=10)
    else:
        other_tenant = requests.post(f"{pool.emu.url}{ITK}/v2/projects/{pool.project}/tenants", json={"displayName": "Other", "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}},
                                     headers=OWNER, timeout=10).json()["name"].rsplit("/", 1)[1]
        r = requests.post(f"{pool.emu.url}{ITK}/v2/accounts/mfaEnrollment:start?key={pool.key}",
                          json={"idToken": fresh_user["idToken"], "tenantId": other_tenant}, timeout=10)
    assert r.status_code == 400 and r.json()["error"]["message"] == "TENANT_ID_MISMATCH"


def test_sign_in_error_strings_and_validation_before_side_effects(pool):
    user = pool.verified_user()
    enrolled = pool.enroll_phone(user["idToken"], phone())
    status, first = pool.password_sign_in(user)
    pending = first["mfaPendingCredential"]
    start, fin = "v2/accounts/mfaSignIn:start", "v2/accounts/mfaSignIn:finalize"
    assert pool.err(start, {}) == "MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential."
    assert pool.err(start, {"mfaPendingCredential": pending}) == "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided."
    assert pool.err(start, {"mfaPendingCredential": "forged", "mfaEnrollmentId": enrolled["mfaEnrollmentId"]}) == "INVALID_MFA_PENDING_CREDENTIAL"
    assert pool.err(start, {"mfaPendingCredential": pending, "mfaEnrollmentId": "nope"}) == "MFA_ENROLLMENT_NOT_FOUND"
    assert pool.err(fin, {}) == "MISSING_CREDENTIAL : Please set MFA Pending Credential."
    assert pool.err(fin, {"mfaPendingCredential": pending}) == "INVALID_ARGUMENT : MFA provider not supported!"
    session = pool.ok(start, {"mfaPendingCredential": pending, "mfaEnrollmentId": enrolled["mfaEnrollmentId"]})["phoneResponseInfo"]["sessionInfo"]
    code = pool.code_for(session)["code"]
    wrong = "000000" if code != "000000" else "111111"
    assert pool.err(fin, {"mfaPendingCredential": pending, "phoneVerificationInfo": {"sessionInfo": session}}) == "MISSING_CODE"
    assert pool.err(fin, {"mfaPendingCredential": pending, "phoneVerificationInfo": {"code": code}}) == "MISSING_SESSION_INFO"
    assert pool.err(fin, {"mfaPendingCredential": pending, "phoneVerificationInfo": {"sessionInfo": "nope", "code": code}}) == "INVALID_SESSION_INFO"
    assert pool.err(fin, {"mfaPendingCredential": pending, "phoneVerificationInfo": {"sessionInfo": session, "code": wrong}}) == "INVALID_CODE"
    # The factor withdrawn meanwhile: MFA_ENROLLMENT_NOT_FOUND, and nothing consumed or signed in.
    last_login = pool.user(user["localId"]).get("lastLoginAt")
    pool.admin_ok("update", {"localId": user["localId"], "mfa": {"enrollments": [{"mfaEnrollmentId": "other", "phoneInfo": phone()}]}})
    assert pool.err(fin, {"mfaPendingCredential": pending, "phoneVerificationInfo": {"sessionInfo": session, "code": code}}) == "MFA_ENROLLMENT_NOT_FOUND"
    assert pool.code_for(session)["code"] == code and pool.user(user["localId"]).get("lastLoginAt") == last_login
    # A disabled user: USER_DISABLED, again before anything changes.
    pool.admin_ok("update", {"localId": user["localId"], "disableUser": True})
    assert pool.err(start, {"mfaPendingCredential": pending, "mfaEnrollmentId": "other"}) == "USER_DISABLED"
    # Phone first factor for a number an MFA user owns.
    pool.admin_ok("update", {"localId": user["localId"], "disableUser": False, "phoneNumber": "+15550009999"})
    assert pool.err("v1/accounts:sendVerificationCode", {"phoneNumber": "+15550009999"}) == \
        "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user."


def test_codes_and_pending_credentials_expire_after_ten_minutes(pool):
    """SMS codes, pending credentials and TOTP enrolment sessions live ten minutes (project clock)."""
    user = pool.verified_user()
    # An enrolment code older than ten minutes: SESSION_EXPIRED (after a fresh sign-in, since
    # enrolment also wants a sign-in from the last five minutes).
    started = pool.ok("v2/accounts/mfaEnrollment:start", {"idToken": user["idToken"], "phoneEnrollmentInfo": {"phoneNumber": phone()}})
    session = started["phoneSessionInfo"]["sessionInfo"]
    code = pool.code_for(session)["code"]
    totp_session = pool.ok("v2/accounts/mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}})["totpSessionInfo"]
    first_factor = pool.ok("v1/accounts:sendVerificationCode", {"phoneNumber": phone()})
    pool.advance(601)
    status, again = pool.password_sign_in(user)
    assert pool.err("v2/accounts/mfaEnrollment:finalize", {"idToken": again["idToken"], "phoneVerificationInfo": {"sessionInfo": session, "code": code}}) == \
        "SESSION_EXPIRED"
    assert pool.err("v2/accounts/mfaEnrollment:finalize", {"idToken": again["idToken"], "totpVerificationInfo": {
        "sessionInfo": totp_session["sessionInfo"], "verificationCode": totp(totp_session["sharedSecretKey"], pool.now())}}) == "SESSION_EXPIRED"
    # Phone first-factor codes expire too (and an expired code is gone).
    assert pool.err("v1/accounts:signInWithPhoneNumber", {"sessionInfo": first_factor["sessionInfo"],
                                                          "code": pool.code_for(first_factor["sessionInfo"])["code"]}) == "SESSION_EXPIRED"
    assert all(c["sessionInfo"] != first_factor["sessionInfo"] for c in pool.codes())
    # A pending credential older than ten minutes.
    enrolled = pool.enroll_phone(again["idToken"], phone())
    status, first = pool.password_sign_in(user)
    session = pool.ok("v2/accounts/mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                      "mfaEnrollmentId": enrolled["mfaEnrollmentId"]})["phoneResponseInfo"]["sessionInfo"]
    code = pool.code_for(session)["code"]
    pool.advance(601)
    assert pool.err("v2/accounts/mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                       "phoneVerificationInfo": {"sessionInfo": session, "code": code}}).startswith("INVALID_MFA_PENDING_CREDENTIAL")


def test_which_first_factors_are_challenged(pool):
    user = pool.verified_user()
    pool.enroll_phone(user["idToken"], phone())
    # Email link: challenged.
    pool.ok("v1/accounts:sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": user["email"], "continueUrl": "https://example.com/done"})
    code = pool.oob_codes()[-1]["oobCode"]
    link = pool.ok("v1/accounts:signInWithEmailLink", {"email": user["email"], "oobCode": code})
    assert "idToken" not in link and link["mfaPendingCredential"] and link["mfaInfo"]
    # Custom tokens: never (clients do not look for MFA fields there); the key is absent, not null.
    aud = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    custom = {"aud": aud, "uid": user["localId"]}
    if pool.tenant:
        custom["tenant_id"] = pool.tenant
    ct = pool.ok("v1/accounts:signInWithCustomToken", {"token": unsigned(custom), "returnSecureToken": True})
    assert "idToken" in ct and "mfaPendingCredential" not in ct and "mfaInfo" not in ct
    # With MFA off for the pool, no challenge even with factors.
    pool.set_mfa({"state": "DISABLED"})
    status, plain = pool.password_sign_in(user)
    assert status == 200 and "idToken" in plain and "mfaPendingCredential" not in plain
    assert pool.err("v2/accounts/mfaEnrollment:start", {"idToken": plain["idToken"], "phoneEnrollmentInfo": {"phoneNumber": phone()}}) == \
        "OPERATION_NOT_ALLOWED : SMS based MFA not enabled."
    assert pool.err("v2/accounts/mfaEnrollment:start", {"idToken": plain["idToken"], "totpEnrollmentInfo": {}}) == \
        "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled."
    # SMS on, TOTP off.
    pool.set_mfa({"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "providerConfigs": []})
    assert pool.err("v2/accounts/mfaEnrollment:start", {"idToken": plain["idToken"], "totpEnrollmentInfo": {}}) == \
        "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled."


def test_pending_credentials_are_bound_to_their_pool(pool, emulator):
    user = pool.verified_user()
    enrolled = pool.enroll_phone(user["idToken"], phone())
    status, first = pool.password_sign_in(user)
    other = Pool(emulator)
    assert other.err("v2/accounts/mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                     "mfaEnrollmentId": enrolled["mfaEnrollmentId"]}) == "INVALID_MFA_PENDING_CREDENTIAL"
    if pool.tenant:
        # Without its tenantId the credential is looked up in the project's own pool.
        assert pool.err("v2/accounts/mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                        "mfaEnrollmentId": enrolled["mfaEnrollmentId"]}, tenant=False) == "INVALID_MFA_PENDING_CREDENTIAL"


def test_user_records_and_admin_calls_carry_factors(pool):
    number = phone()
    email = f"adm-{uuid.uuid4().hex[:6]}@example.com"
    r = requests.post(f"{pool.admin_base}/accounts", json={"email": email, "emailVerified": True, "password": "secret123",
                                                           "mfaInfo": [{"phoneInfo": number, "displayName": "desk"}, {"phoneInfo": number}]},
                      headers=OWNER, timeout=10)
    assert r.status_code == 200, r.text
    uid = r.json()["localId"]
    looked = pool.user(uid)["mfaInfo"]
    assert len(looked) == 1 and looked[0]["phoneInfo"] == number and looked[0]["displayName"] == "desk" and len(looked[0]["mfaEnrollmentId"]) == 28
    queried = pool.admin_ok("query", {"returnUserInfo": True})
    assert next(u for u in queried["userInfo"] if u["localId"] == uid)["mfaInfo"] == looked
    listed = requests.get(f"{pool.admin_base}/accounts:batchGet?maxResults=100", headers=OWNER, timeout=10).json()["users"]
    assert next(u for u in listed if u["localId"] == uid)["mfaInfo"] == looked
    # The created factor challenges sign-in.
    status, first = pool.post("v1/accounts:signInWithPassword", {"email": email, "password": "secret123", "returnSecureToken": True})
    assert first["mfaInfo"][0]["phoneInfo"] == masked(number)
    # Update: replace, keep (no mfa key), clear (mfa {}); production's errors.
    def update(mfa):
        return pool.admin("update", {"localId": uid, "mfa": mfa})
    assert update({"enrollments": [{"phoneInfo": number}]})[1]["error"]["message"] == "INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined."
    assert update({"enrollments": [{"mfaEnrollmentId": "a", "phoneInfo": number}, {"mfaEnrollmentId": "a", "phoneInfo": phone()}]})[1]["error"]["message"] == \
        "DUPLICATE_MFA_ENROLLMENT_ID"
    assert update({"enrollments": [{"mfaEnrollmentId": "a", "phoneInfo": "12345"}]})[1]["error"]["message"] == "INVALID_MFA_PHONE_NUMBER : Invalid format."
    status, out = update({"enrollments": [{"mfaEnrollmentId": "kept", "phoneInfo": number, "enrolledAt": "2031-02-03T04:05:06.789Z"}]})
    assert status == 200, out
    assert [(f["mfaEnrollmentId"], f["enrolledAt"]) for f in pool.user(uid)["mfaInfo"]] == [("kept", "2031-02-03T04:05:06.789Z")]
    pool.admin_ok("update", {"localId": uid, "displayName": "no mfa key"})
    assert len(pool.user(uid)["mfaInfo"]) == 1
    assert update({})[0] == 200 and "mfaInfo" not in pool.user(uid)
    # Import (accounts:batchCreate) with factors, and the per-row errors.
    uids = [f"imp-{uuid.uuid4().hex[:6]}-{i}" for i in range(4)]
    out = pool.admin_ok("batchCreate", {"users": [
        {"localId": uids[0], "email": f"{uids[0]}@example.com", "emailVerified": True, "mfaInfo": [{"phoneInfo": phone(), "displayName": "imported"}]},
        {"localId": uids[1], "mfaInfo": [{"phoneInfo": phone()}]},
        {"localId": uids[2], "email": f"{uids[2]}@example.com", "mfaInfo": [{"phoneInfo": phone()}]},
        {"localId": uids[3], "email": f"{uids[3]}@example.com", "emailVerified": True, "mfaInfo": [{"totpInfo": {}}]},
    ]})
    assert [e["message"] for e in out["error"]] == ["Second factor account requires email to be presented.",
                                                    "Second factor account requires email to be verified.", "Second factor not supported."]
    imported = pool.user(uids[0])["mfaInfo"][0]
    assert imported["displayName"] == "imported" and len(imported["mfaEnrollmentId"]) == 28 and imported["enrolledAt"]
    # End users cannot set factors through accounts:update.
    user = pool.verified_user()
    assert pool.err("v1/accounts:update", {"idToken": user["idToken"], "mfa": {}}) == "INSUFFICIENT_PERMISSION"


def test_mfa_config_is_stored_and_returned(pool, emulator):
    if pool.tenant:
        got = requests.get(f"{emulator.url}{ITK}/v2/projects/{pool.project}/tenants/{pool.tenant}", headers=OWNER, timeout=10).json()
        assert got["mfaConfig"] == {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                                    "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}
    else:
        got = requests.get(f"{emulator.url}{ITK}/v2/projects/{pool.project}/config", headers=OWNER, timeout=10).json()
        # The documented development default: SMS and TOTP on.
        assert got["mfa"] == {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                              "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}
    out = pool.set_mfa({"state": "MANDATORY", "enabledProviders": [], "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 0}}]})
    mfa = out["mfaConfig" if pool.tenant else "mfa"]
    assert mfa["state"] == "MANDATORY" and mfa["enabledProviders"] == [] and mfa["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 0
    bad = requests.patch(f"{emulator.url}/emulator/v1/projects/{pool.project}/config", json={"mfa": {"state": "SOMETIMES"}}, timeout=10)
    assert bad.status_code == 400 and "mfa.state" in bad.json()["error"]["message"]
    bad = requests.patch(f"{emulator.url}/emulator/v1/projects/{pool.project}/config",
                         json={"mfa": {"providerConfigs": [{"totpProviderConfig": {"adjacentIntervals": 11}}]}}, timeout=10)
    assert bad.status_code == 400 and "adjacentIntervals" in bad.json()["error"]["message"]
