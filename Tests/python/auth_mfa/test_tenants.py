"""Identity Platform tenants over REST and through firebase-admin-python: CRUD with paging and
updateMask, per-tenant pools and codes, how the tenant travels (path, body, ID-token claim, refresh
token, custom token) and TENANT_ID_MISMATCH, the tenant switches, and the control plane (reset,
snapshots, export/import in our format and in the Firebase layout, --data-dir)."""
import json
import os
import shutil
import signal
import uuid

import firebase_admin
import pytest
import requests
from firebase_admin import _utils, auth, credentials, tenant_mgt

from auth_mfa.sdk import ITK, OWNER, Pool, apple_post_body, b64, claims, totp
from conftest import RunningEmulator

AUD = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"


def tenants_url(pool):
    return f"{pool.emu.url}{ITK}/v2/projects/{pool.project}/tenants"


def create(pool, **fields):
    r = requests.post(tenants_url(pool), json=fields, headers=OWNER, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def tid(resource):
    return resource["name"].rsplit("/", 1)[1]


def error(r):
    return r.json()["error"]["message"]


def custom_token(uid, tenant=None):
    payload = {"aud": AUD, "uid": uid}
    if tenant:
        payload["tenant_id"] = tenant
    return b64({"alg": "none", "typ": "JWT"}) + "." + b64(payload) + "."


def test_tenant_crud_paging_update_mask_and_no_resurrection(emulator):
    pool = Pool(emulator, prefix="tcrud")
    t = create(pool, displayName="Acme-1")
    assert t["name"].startswith(f"projects/{pool.project}/tenants/acme-1-")
    # Production's defaults for a new tenant: every sign-in kind off, MFA disabled.
    assert (t["allowPasswordSignup"], t["enableEmailLinkSignin"], t["enableAnonymousUser"], t["disableAuth"]) == (False, False, False, False)
    assert t["mfaConfig"]["state"] == "DISABLED" and t["client"]["permissions"] == {"disabledUserSignup": False, "disabledUserDeletion": False}
    ids = sorted([tid(t)] + [tid(create(pool, displayName=f"Beta{i}")) for i in range(4)])
    page1 = requests.get(tenants_url(pool) + "?pageSize=2", headers=OWNER, timeout=10).json()
    page2 = requests.get(tenants_url(pool) + f"?pageSize=2&pageToken={page1['nextPageToken']}", headers=OWNER, timeout=10).json()
    page3 = requests.get(tenants_url(pool) + f"?pageSize=2&pageToken={page2['nextPageToken']}", headers=OWNER, timeout=10).json()
    assert [tid(x) for x in page1["tenants"] + page2["tenants"] + page3["tenants"]] == ids and "nextPageToken" not in page3
    # updateMask: only the named fields change (dotted paths reach inside objects).
    url = f"{tenants_url(pool)}/{tid(t)}"
    r = requests.patch(url + "?updateMask=allowPasswordSignup,mfaConfig.state,client.permissions.disabledUserSignup", headers=OWNER, timeout=10,
                       json={"allowPasswordSignup": True, "displayName": "Ignored", "mfaConfig": {"state": "ENABLED"},
                             "client": {"permissions": {"disabledUserSignup": True}}})
    assert r.status_code == 200, r.text
    got = requests.get(url, headers=OWNER, timeout=10).json()
    assert got["allowPasswordSignup"] is True and got["displayName"] == "Acme-1" and got["mfaConfig"]["state"] == "ENABLED"
    assert got["client"]["permissions"] == {"disabledUserSignup": True, "disabledUserDeletion": False}
    r = requests.patch(url + "?updateMask=nonsense", json={}, headers=OWNER, timeout=10)
    assert r.status_code == 400 and "updateMask" in error(r)
    r = requests.post(tenants_url(pool), json={"displayName": "X", "bogus": 1}, headers=OWNER, timeout=10)
    assert r.status_code == 400 and 'Unknown name "bogus"' in error(r)
    # Tenant management needs Bearer owner.
    r = requests.get(tenants_url(pool) + f"?key={pool.key}", timeout=10)
    assert r.status_code == 400 and error(r).startswith("INSUFFICIENT_PERMISSION")
    # Delete: gone for good; nothing re-creates it.
    assert requests.delete(url, headers=OWNER, timeout=10).status_code == 200
    for r in [requests.get(url, headers=OWNER, timeout=10), requests.delete(url, headers=OWNER, timeout=10),
              requests.patch(url, json={"displayName": "Again"}, headers=OWNER, timeout=10),
              requests.post(f"{pool.emu.url}{ITK}/v1/accounts:signUp?key={pool.key}", json={"tenantId": tid(t)}, timeout=10),
              requests.post(f"{pool.emu.url}{ITK}/v1/projects/{pool.project}/tenants/{tid(t)}/accounts:lookup", json={"localId": ["x"]}, headers=OWNER, timeout=10),
              requests.get(f"{pool.emu.url}/emulator/v1/projects/{pool.project}/tenants/{tid(t)}/verificationCodes", timeout=10)]:
        assert r.status_code == 400 and error(r).startswith("TENANT_NOT_FOUND"), r.text
    assert tid(t) not in [tid(x) for x in requests.get(tenants_url(pool), headers=OWNER, timeout=10).json()["tenants"]]


def test_pools_codes_and_the_tenant_travelling(emulator):
    base = Pool(emulator, prefix="tpool")
    one, two = Pool.__new__(Pool), Pool.__new__(Pool)
    for p, name in [(one, "One"), (two, "Two")]:
        p.__dict__.update(base.__dict__)
        p.tenant = tid(create(base, displayName=name, allowPasswordSignup=True, enableEmailLinkSignin=True))
    # One email, three accounts: the project's and each tenant's.
    email = f"same-{uuid.uuid4().hex[:6]}@example.com"
    users = [p.sign_up(email) for p in (base, one, two)]
    assert len({u["localId"] for u in users}) == 3
    assert claims(users[1]["idToken"])["firebase"]["tenant"] == one.tenant and "tenant" not in claims(users[0]["idToken"])["firebase"]
    assert base.user(users[0]["localId"]).get("tenantId") is None and one.user(users[1]["localId"])["tenantId"] == one.tenant
    # OOB codes per tenant; the link names the tenant and the action page applies it there.
    one.ok("v1/accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": users[1]["idToken"]})
    assert base.oob_codes() == [] and two.oob_codes() == []
    link = one.oob_codes()[-1]["oobLink"]
    assert f"tenantId={one.tenant}" in link
    r = requests.get(emulator.url + link[link.index("/emulator/action"):], timeout=10)
    assert r.status_code == 200, r.text
    assert one.user(users[1]["localId"])["emailVerified"] is True and base.user(users[0]["localId"])["emailVerified"] is False
    # SMS codes per tenant.
    sent = two.ok("v1/accounts:sendVerificationCode", {"phoneNumber": "+15555550123"})
    assert [c["sessionInfo"] for c in two.codes()] == [sent["sessionInfo"]] and base.codes() == [] and one.codes() == []
    # The tenant travels; any two places that disagree: TENANT_ID_MISMATCH.
    mismatch = "TENANT_ID_MISMATCH"
    assert one.err("v1/accounts:lookup", {"idToken": users[1]["idToken"], "tenantId": two.tenant}) == mismatch  # body vs claim
    r = requests.post(f"{emulator.url}{ITK}/v1/projects/{base.project}/tenants/{one.tenant}/accounts:lookup",
                      json={"tenantId": two.tenant, "localId": ["x"]}, headers=OWNER, timeout=10)
    assert r.status_code == 400 and error(r) == mismatch  # path vs body
    r = requests.post(f"{emulator.url}{ITK}/v1/projects/{base.project}/tenants/{two.tenant}/accounts:lookup",
                      json={"idToken": users[1]["idToken"]}, headers=OWNER, timeout=10)
    assert r.status_code == 400 and error(r) == mismatch  # path vs claim
    assert base.ok("v1/accounts:lookup", {"idToken": users[1]["idToken"]})["users"][0]["localId"] == users[1]["localId"]  # the claim alone picks the pool
    r = requests.post(f"{emulator.url}/securetoken.googleapis.com/v1/token?key={base.key}",
                      json={"grant_type": "refresh_token", "refresh_token": users[1]["refreshToken"], "tenantId": two.tenant}, timeout=10)
    assert r.status_code == 400 and error(r) == mismatch  # refresh token vs body
    status, refreshed = base.refresh(users[1]["refreshToken"])
    assert status == 200 and claims(refreshed["id_token"])["firebase"]["tenant"] == one.tenant
    assert base.err("v1/accounts:signInWithCustomToken", {"token": custom_token("ct-user", one.tenant)}) == mismatch  # custom token vs request
    assert two.err("v1/accounts:signInWithCustomToken", {"token": custom_token("ct-user", one.tenant)}) == mismatch
    done = one.ok("v1/accounts:signInWithCustomToken", {"token": custom_token("ct-user", one.tenant), "returnSecureToken": True})
    assert claims(done["idToken"])["firebase"]["tenant"] == one.tenant
    # Firestore sees the tenant claim (request.auth.token.firebase.tenant) and verifies against the tenant's pool.
    r = requests.post(f"{emulator.url}/emulator/v1/projects/{base.project}/functions:verifyIdToken", json={"idToken": done["idToken"]}, timeout=10)
    assert r.status_code == 200 and r.json()["token"]["firebase"]["tenant"] == one.tenant
    # DELETE .../tenants/{t}/accounts clears that pool only.
    assert requests.delete(f"{emulator.url}/emulator/v1/projects/{base.project}/tenants/{one.tenant}/accounts", timeout=10).status_code == 200
    assert base.user(users[0]["localId"]) and two.user(users[2]["localId"])
    status, out = one.admin("lookup", {"localId": [users[1]["localId"]]})
    assert status == 200 and "users" not in out


def test_tenant_switches(emulator):
    base = Pool(emulator, prefix="tsw")

    def tenant(**fields):
        p = Pool.__new__(Pool)
        p.__dict__.update(base.__dict__)
        p.tenant = tid(create(base, displayName="Sw", **fields))
        return p

    off = tenant()
    assert off.err("v1/accounts:signUp", {}) == "ADMIN_ONLY_OPERATION"
    assert off.err("v1/accounts:signUp", {"email": "a@example.com", "password": "secret123"}) == "OPERATION_NOT_ALLOWED"
    assert off.err("v1/accounts:signInWithPassword", {"email": "a@example.com", "password": "secret123"}) == "PASSWORD_LOGIN_DISABLED"
    assert off.err("v1/accounts:sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "a@example.com"}) == "OPERATION_NOT_ALLOWED"
    assert off.err("v1/accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "a@example.com"}) == "PASSWORD_LOGIN_DISABLED"
    # User actions off: end users get ADMIN_ONLY_OPERATION, admin calls still work.
    locked = tenant(allowPasswordSignup=True, enableAnonymousUser=True, client={"permissions": {"disabledUserSignup": True, "disabledUserDeletion": True}})
    assert locked.err("v1/accounts:signUp", {}) == "ADMIN_ONLY_OPERATION"
    assert locked.err("v1/accounts:signUp", {"email": "b@example.com", "password": "secret123"}) == "ADMIN_ONLY_OPERATION"
    assert locked.err("v1/accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": apple_post_body("apple-new", "new@example.com")}) == \
        "ADMIN_ONLY_OPERATION"
    r = requests.post(f"{locked.admin_base}/accounts", json={"email": "b@example.com", "password": "secret123"}, headers=OWNER, timeout=10)
    assert r.status_code == 200, r.text
    me = locked.ok("v1/accounts:signInWithPassword", {"email": "b@example.com", "password": "secret123", "returnSecureToken": True})
    assert locked.err("v1/accounts:delete", {"idToken": me["idToken"]}) == "ADMIN_ONLY_OPERATION"
    assert locked.admin_ok("delete", {"localId": me["localId"]}) is not None
    # disableAuth: PROJECT_DISABLED for every account operation, end user and admin alike.
    disabled = tenant(disableAuth=True, allowPasswordSignup=True)
    assert disabled.err("v1/accounts:signUp", {"email": "c@example.com", "password": "secret123"}) == "PROJECT_DISABLED"
    assert disabled.err("v2/accounts/mfaEnrollment:start", {"idToken": "x"}) == "PROJECT_DISABLED"
    assert disabled.admin("query", {})[1]["error"]["message"] == "PROJECT_DISABLED"
    # testPhoneNumbers (firebase-tools #4290): the fixed code, for sign-in and for MFA.
    phones = tenant(allowPasswordSignup=True, testPhoneNumbers={"+15555550777": "424242", "+15555550778": "111222"},
                    mfaConfig={"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]})
    sent = phones.ok("v1/accounts:sendVerificationCode", {"phoneNumber": "+15555550777"})
    signed = phones.ok("v1/accounts:signInWithPhoneNumber", {"sessionInfo": sent["sessionInfo"], "code": "424242"})
    assert claims(signed["idToken"])["phone_number"] == "+15555550777"
    user = phones.verified_user()
    started = phones.ok("v2/accounts/mfaEnrollment:start", {"idToken": user["idToken"], "phoneEnrollmentInfo": {"phoneNumber": "+15555550778"}})
    phones.ok("v2/accounts/mfaEnrollment:finalize", {"idToken": user["idToken"], "phoneVerificationInfo": {
        "sessionInfo": started["phoneSessionInfo"]["sessionInfo"], "code": "111222"}})
    r = requests.post(tenants_url(base), json={"displayName": "Bad", "testPhoneNumbers": {"555": "1"}}, headers=OWNER, timeout=10)
    assert r.status_code == 400 and error(r).startswith("INVALID_TEST_PHONE_NUMBER")
    # autodeleteAnonymousUsers: anonymous users idle longer than 30 days go (judged on the project clock).
    auto, keep = tenant(enableAnonymousUser=True, autodeleteAnonymousUsers=True), tenant(enableAnonymousUser=True)
    old, kept = auto.ok("v1/accounts:signUp", {"returnSecureToken": True}), keep.ok("v1/accounts:signUp", {"returnSecureToken": True})
    base.advance(30 * 86400 + 1)
    auto.ok("v1/accounts:signUp", {"returnSecureToken": True})
    assert "users" not in auto.admin_ok("lookup", {"localId": [old["localId"]]})
    assert keep.user(kept["localId"])["localId"] == kept["localId"]


def test_reset_snapshots_and_exports_include_tenants(emulator, tmp_path):
    base = Pool(emulator, prefix="tctl")
    mfa = {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 2}}]}
    t = create(base, displayName="Ctl", allowPasswordSignup=True, mfaConfig=mfa, testPhoneNumbers={"+15555550901": "909090"})
    tenant = Pool.__new__(Pool)
    tenant.__dict__.update(base.__dict__)
    tenant.tenant = tid(t)
    user = tenant.verified_user()
    phone_done = tenant.enroll_phone(user["idToken"], "+15555550902")
    started = tenant.ok("v2/accounts/mfaEnrollment:start", {"idToken": phone_done["idToken"], "totpEnrollmentInfo": {}})["totpSessionInfo"]
    tenant.ok("v2/accounts/mfaEnrollment:finalize", {"idToken": phone_done["idToken"], "totpVerificationInfo": {
        "sessionInfo": started["sessionInfo"], "verificationCode": totp(started["sharedSecretKey"], tenant.now())}})
    own = base.verified_user()
    admin = f"{emulator.url}/emulator/v1/projects/{base.project}"
    # Snapshot, reset (tenants go), restore (tenants come back).
    assert requests.post(admin + "/snapshots", json={"name": "s1"}, timeout=10).status_code == 200
    assert requests.post(admin + ":reset", timeout=10).status_code == 200
    assert requests.get(tenants_url(base), headers=OWNER, timeout=10).json()["tenants"] == []
    assert requests.post(admin + "/snapshots/s1:restore", timeout=10).status_code == 200
    assert requests.get(f"{tenants_url(base)}/{tenant.tenant}", headers=OWNER, timeout=10).json() == t
    # Export: our format plus the Firebase layout with one accounts file per tenant.
    out = str(tmp_path / "export")
    assert requests.post(admin + ":export", json={"path": out}, timeout=10).status_code == 200
    layout = json.load(open(f"{out}/auth_export/accounts-{tenant.tenant}.json"))
    assert [u["localId"] for u in layout["users"]] == [user["localId"]]
    assert [f.get("phoneInfo") for f in layout["users"][0]["mfaInfo"]] == ["+15555550902", None]
    assert [u["localId"] for u in json.load(open(f"{out}/auth_export/accounts.json"))["users"]] == [own["localId"]]
    assert json.load(open(f"{out}/auth_export/tenants.json"))["tenants"] == [t]
    # Our format round-trips everything, TOTP secrets included.
    requests.post(admin + ":reset", timeout=10).raise_for_status()
    assert requests.post(admin + ":import", json={"path": out}, timeout=10).status_code == 200
    assert requests.get(f"{tenants_url(base)}/{tenant.tenant}", headers=OWNER, timeout=10).json() == t
    status, first = tenant.password_sign_in(user)
    assert [("phoneInfo" in h, "totpInfo" in h) for h in first["mfaInfo"]] == [(True, False), (False, True)]
    tenant.advance(30)
    done = tenant.ok("v2/accounts/mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"], "mfaEnrollmentId": first["mfaInfo"][1]["mfaEnrollmentId"],
                                                        "totpVerificationInfo": {"verificationCode": totp(started["sharedSecretKey"], tenant.now())}})
    assert claims(done["idToken"])["firebase"]["tenant"] == tenant.tenant
    # The Firebase layout alone (as Firebase tooling reads it): tenants from tenants.json, phone
    # factors kept, TOTP factors dropped (no secret in that layout).
    only = str(tmp_path / "firebase-only")
    shutil.copytree(out + "/auth_export", only + "/auth_export")
    shutil.copy(out + "/firebase-export-metadata.json", only)
    other = Pool(emulator, prefix="tfb")
    assert requests.post(f"{emulator.url}/emulator/v1/projects/{other.project}:import", json={"path": only}, timeout=10).status_code == 200
    got = requests.get(f"{emulator.url}{ITK}/v2/projects/{other.project}/tenants/{tenant.tenant}", headers=OWNER, timeout=10).json()
    assert got["mfaConfig"] == t["mfaConfig"] and got["testPhoneNumbers"] == t["testPhoneNumbers"]
    r = requests.post(f"{emulator.url}{ITK}/v1/projects/{other.project}/tenants/{tenant.tenant}/accounts:lookup", json={"localId": [user["localId"]]},
                      headers=OWNER, timeout=10).json()["users"][0]
    assert [f["phoneInfo"] for f in r["mfaInfo"]] == ["+15555550902"]
    # A firebase-tools export: accounts-<tenant>.json and no tenants.json; the tenant is created
    # with everything enabled, as the Firebase emulator does.
    tools = str(tmp_path / "firebase-tools")
    os.makedirs(tools + "/auth_export")
    json.dump({"kind": "identitytoolkit#DownloadAccountResponse", "users": []}, open(tools + "/auth_export/accounts.json", "w"))
    json.dump({"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "tools-user", "email": "tools@example.com",
               "passwordHash": "fakeHash:salt=fakeSaltX:password=secret123", "salt": "fakeSaltX"}]}, open(tools + "/auth_export/accounts-legacy-1.json", "w"))
    third = Pool(emulator, prefix="ttools")
    assert requests.post(f"{emulator.url}/emulator/v1/projects/{third.project}:import", json={"path": tools}, timeout=10).status_code == 200
    legacy = requests.get(f"{emulator.url}{ITK}/v2/projects/{third.project}/tenants/legacy-1", headers=OWNER, timeout=10).json()
    assert legacy["allowPasswordSignup"] is True and legacy["mfaConfig"]["state"] == "ENABLED"
    third.tenant = "legacy-1"
    signed = third.ok("v1/accounts:signInWithPassword", {"email": "tools@example.com", "password": "secret123", "returnSecureToken": True})
    assert claims(signed["idToken"])["firebase"]["tenant"] == "legacy-1"


def test_tenants_and_factors_survive_kill_9_with_data_dir(tmp_path):
    data = str(tmp_path / "data")
    emu = RunningEmulator(["--data-dir", data])
    try:
        pool = Pool(emu, tenant=True, prefix="tdur")
        user = pool.verified_user()
        enrolled = pool.enroll_phone(user["idToken"], "+15555550911")
        emu.proc.send_signal(signal.SIGKILL)
        emu.proc.wait(10)
    finally:
        emu.stop()
    again = RunningEmulator(["--data-dir", data])
    try:
        pool.emu = again
        # API-key mappings are process settings, not data: register the key again.
        requests.post(again.url + "/emulator/v1/projects", json={"projectId": pool.project, "apiKey": pool.key}, timeout=10).raise_for_status()
        status, first = pool.password_sign_in(user)
        assert status == 200 and first["mfaInfo"][0]["mfaEnrollmentId"] == enrolled["mfaEnrollmentId"]
        status, refreshed = pool.refresh(enrolled["refreshToken"])
        assert status == 200 and claims(refreshed["id_token"])["firebase"]["second_factor_identifier"] == enrolled["mfaEnrollmentId"]
    finally:
        again.stop()


class EmulatorCredential(credentials.Base):
    """What firebase-admin-python's tenant management needs to talk to an emulator: it ignores
    FIREBASE_AUTH_EMULATOR_HOST and always asks the app's credential (see the reference notes)."""

    def get_credential(self):
        return _utils.EmulatorAdminCredentials()


@pytest.fixture
def admin_app(emulator, monkeypatch):
    pool = Pool(emulator, prefix="tadm")
    monkeypatch.setattr(tenant_mgt._TenantManagementService, "TENANT_MGT_URL", f"{emulator.url}{ITK}/v2")
    app = firebase_admin.initialize_app(EmulatorCredential(), {"projectId": pool.project}, name=f"tenants-{uuid.uuid4()}")
    yield app, pool
    firebase_admin.delete_app(app)


def test_firebase_admin_tenant_mgt(admin_app):
    app, pool = admin_app
    t = tenant_mgt.create_tenant("Acme-2", allow_password_sign_up=True, enable_email_link_sign_in=False, app=app)
    assert t.display_name == "Acme-2" and t.allow_password_sign_up and not t.enable_email_link_sign_in and t.tenant_id.startswith("acme-2-")
    assert tenant_mgt.get_tenant(t.tenant_id, app=app).display_name == "Acme-2"
    updated = tenant_mgt.update_tenant(t.tenant_id, display_name="Acme-3", enable_email_link_sign_in=True, app=app)
    assert updated.display_name == "Acme-3" and updated.enable_email_link_sign_in and updated.allow_password_sign_up
    others = [tenant_mgt.create_tenant(f"Other{i}", app=app).tenant_id for i in range(3)]
    page = tenant_mgt.list_tenants(max_results=2, app=app)
    assert len(page.tenants) == 2 and page.has_next_page
    assert sorted(x.tenant_id for x in page.iterate_all()) == sorted([t.tenant_id] + others)
    tenant_mgt.delete_tenant(others[0], app=app)
    with pytest.raises(tenant_mgt.TenantNotFoundError):
        tenant_mgt.get_tenant(others[0], app=app)
    # No silent re-creation: the deleted tenant's users cannot be managed either.
    with pytest.raises(tenant_mgt.TenantNotFoundError):
        tenant_mgt.auth_for_tenant(others[0], app=app).create_user(email="ghost@example.com")


def test_firebase_admin_auth_for_tenant_user_management(admin_app, emulator):
    app, pool = admin_app
    t = tenant_mgt.create_tenant("Users", allow_password_sign_up=True, enable_email_link_sign_in=True, app=app)
    client = tenant_mgt.auth_for_tenant(t.tenant_id, app=app)
    email = f"t-{uuid.uuid4().hex[:6]}@example.com"
    user = client.create_user(email=email, password="secret123", display_name="Tenant User")
    assert user.tenant_id == t.tenant_id and client.get_user(user.uid).email == email
    assert client.get_user_by_email(email).uid == user.uid
    # The same email in the project's own pool is another account.
    project_client = auth.Client(app)
    assert project_client.create_user(email=email).uid != user.uid
    with pytest.raises(auth.UserNotFoundError):
        project_client.get_user(user.uid)
    client.update_user(user.uid, display_name="Renamed", email_verified=True)
    client.set_custom_user_claims(user.uid, {"role": "editor"})
    assert client.get_user(user.uid).custom_claims == {"role": "editor"} and client.get_user(user.uid).display_name == "Renamed"
    assert user.uid in {u.uid for u in client.list_users().iterate_all()}
    result = client.import_users([auth.ImportUserRecord(uid=f"imp-{uuid.uuid4().hex[:6]}", email=f"imp-{uuid.uuid4().hex[:6]}@example.com")])
    assert result.success_count == 1
    assert f"tenantId={t.tenant_id}" in client.generate_password_reset_link(email)
    # A custom token from the tenant client carries tenant_id; the client SDK signs in with tenantId.
    token = client.create_custom_token(user.uid).decode()
    r = requests.post(f"{emulator.url}{ITK}/v1/accounts:signInWithCustomToken?key={pool.key}",
                      json={"token": token, "tenantId": t.tenant_id, "returnSecureToken": True}, timeout=10)
    assert r.status_code == 200, r.text
    id_token = r.json()["idToken"]
    decoded = client.verify_id_token(id_token, check_revoked=True)
    assert decoded["uid"] == user.uid and decoded["firebase"]["tenant"] == t.tenant_id and decoded["role"] == "editor"
    other = tenant_mgt.create_tenant("Elsewhere", app=app)
    with pytest.raises(tenant_mgt.TenantIdMismatchError):
        tenant_mgt.auth_for_tenant(other.tenant_id, app=app).verify_id_token(id_token)
    # Password sign-in through the tenant, then revocation.
    r = requests.post(f"{emulator.url}{ITK}/v1/accounts:signInWithPassword?key={pool.key}",
                      json={"email": email, "password": "secret123", "tenantId": t.tenant_id, "returnSecureToken": True}, timeout=10)
    assert r.status_code == 200 and claims(r.json()["idToken"])["firebase"]["tenant"] == t.tenant_id
    import time
    time.sleep(1.1)
    client.revoke_refresh_tokens(user.uid)
    with pytest.raises(auth.RevokedIdTokenError):
        client.verify_id_token(id_token, check_revoked=True)
    client.delete_user(user.uid)
    with pytest.raises(auth.UserNotFoundError):
        client.get_user(user.uid)
