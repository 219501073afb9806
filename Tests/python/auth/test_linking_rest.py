"""The MakeItSo story over the wire, as client SDKs send it (REST with an API key)."""
import json
import urllib.parse
import uuid

import requests


def itk(emulator, verb, body):
    r = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:{verb}?key=fake-api-key", json=body, timeout=10)
    return r.status_code, r.json()


def idp_body(provider, sub, email, id_token=None):
    claims = json.dumps({"sub": sub, "email": email, "email_verified": True})
    body = {"requestUri": "http://localhost", "returnSecureToken": True, "returnIdpCredential": True,
            "postBody": f"providerId={provider}&id_token={urllib.parse.quote(claims)}"}
    if id_token:
        body["idToken"] = id_token
    return body


def test_anonymous_upgrade_then_already_linked_on_second_device(emulator):
    sub = f"apple-{uuid.uuid4().hex[:8]}"
    email = f"{sub}@privaterelay.appleid.com"
    _, phone = itk(emulator, "signUp", {"returnSecureToken": True})
    status, linked = itk(emulator, "signInWithIdp", idp_body("apple.com", sub, email, phone["idToken"]))
    assert status == 200 and linked["localId"] == phone["localId"]
    _, tablet = itk(emulator, "signUp", {"returnSecureToken": True})
    status, err = itk(emulator, "signInWithIdp", idp_body("apple.com", sub, email, tablet["idToken"]))
    # returnIdpCredential turns the 400 into a 200 with errorMessage, as production does.
    assert status == 200 and err["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED"
    status, again = itk(emulator, "signInWithIdp", idp_body("apple.com", sub, email))
    assert status == 200 and again["localId"] == phone["localId"]


def test_untrusted_then_untrusted_needs_confirmation(emulator):
    email = f"u-{uuid.uuid4().hex[:8]}@example.com"
    _, first = itk(emulator, "signInWithIdp", idp_body("facebook.com", uuid.uuid4().hex, email))
    status, second = itk(emulator, "signInWithIdp", idp_body("github.com", uuid.uuid4().hex, email))
    assert status == 200 and second.get("needConfirmation") is True and "idToken" not in second
    assert second["localId"] == first["localId"]


def test_disabled_sign_up_is_admin_only(emulator):
    config = f"{emulator.url}/emulator/v1/projects/{emulator.project}/config"
    assert requests.patch(config, json={"client": {"permissions": {"disabledUserSignup": True}}}, timeout=10).status_code == 200
    try:
        status, err = itk(emulator, "signUp", {"returnSecureToken": True})
        assert status == 400 and err["error"]["message"] == "ADMIN_ONLY_OPERATION"
        r = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/projects/{emulator.project}/accounts",
                          json={"email": f"admin-{uuid.uuid4().hex[:6]}@example.com"}, headers={"Authorization": "Bearer owner"}, timeout=10)
        assert r.status_code == 200 and r.json()["localId"]
    finally:
        requests.patch(config, json={"client": {"permissions": {"disabledUserSignup": False}}}, timeout=10)
