"""Custom tokens in the strict token mode (issue 22, item 10; docs/auth.md "Custom tokens").

With `auth.signIdTokens: true` and `auth.acceptUnsignedTokens: false`, an `alg: none` custom
token, a JSON one, or one signed with a key the emulator does not know used to be exchanged for a
properly signed ID token for any uid. Now only RS256 tokens signed by a known key are: a
service-account key file named in `auth.serviceAccounts` (here relative to the config file), the
generated functions service account, or the emulator's own key through
`POST /emulator/v1/projects/{p}/customTokens`. The default mode keeps accepting the unsigned
tokens Admin SDKs mint in emulator mode.
"""
import json
import time

import google.auth.crypt
import google.auth.jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from conftest import RunningEmulator

AUD = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
EMAIL = "svc@demo-strict.iam.gserviceaccount.com"
PROJECT = "demo-strict"


def service_account(key_id):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    return {"type": "service_account", "project_id": PROJECT, "private_key_id": key_id, "private_key": pem, "client_email": EMAIL}


def custom_token(info, uid, iss=EMAIL):
    signer = google.auth.crypt.RSASigner.from_service_account_info(info)
    now = int(time.time())
    payload = {"iss": iss, "sub": iss, "aud": AUD, "uid": uid, "iat": now, "exp": now + 3600}
    return google.auth.jwt.encode(signer, payload).decode()


def unsigned(uid):
    return google.auth.jwt._helpers.unpadded_urlsafe_b64encode(json.dumps({"alg": "none", "typ": "JWT"}).encode()).decode() + "." + \
        google.auth.jwt._helpers.unpadded_urlsafe_b64encode(json.dumps({"aud": AUD, "uid": uid}).encode()).decode() + "."


@pytest.fixture(scope="module")
def keys():
    return {"trusted": service_account("trusted-key-1"), "foreign": service_account("foreign-key-1")}


@pytest.fixture(scope="module")
def strict(tmp_path_factory, keys):
    folder = tmp_path_factory.mktemp("strict")
    (folder / "keys").mkdir()
    (folder / "keys" / "sa.json").write_text(json.dumps(keys["trusted"]))
    (folder / "emulator.json").write_text(json.dumps({"project": PROJECT, "auth": {
        "signIdTokens": True, "acceptUnsignedTokens": False, "serviceAccounts": ["keys/sa.json"]}}))
    emu = RunningEmulator(["--config", str(folder / "emulator.json")], project=None)
    yield emu
    emu.stop()


def exchange(emu, token):
    return requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=k",
                         json={"token": token, "returnSecureToken": True}, timeout=10)


def refused(r):
    assert r.status_code == 400, r.text
    assert r.json()["error"]["message"].startswith("INVALID_CUSTOM_TOKEN"), r.text


def test_strict_mode_refuses_unsigned_json_and_foreign_custom_tokens(strict, keys):
    refused(exchange(strict, unsigned("victim")))
    refused(exchange(strict, json.dumps({"uid": "victim"})))
    refused(exchange(strict, custom_token(keys["foreign"], "victim")))
    # The trusted key signing for another service account is refused too.
    refused(exchange(strict, custom_token(keys["trusted"], "victim", iss="mallory@example.test")))


def test_strict_mode_accepts_a_configured_service_account(strict, keys):
    r = exchange(strict, custom_token(keys["trusted"], "alice"))
    assert r.status_code == 200, r.text
    header = json.loads(google.auth.jwt._helpers.padded_urlsafe_b64decode(r.json()["idToken"].split(".")[0]))
    assert header["alg"] == "RS256"


def test_strict_mode_accepts_tokens_minted_by_the_control_plane(strict):
    minted = requests.post(f"{strict.url}/emulator/v1/projects/{PROJECT}/customTokens", json={"uid": "bob", "claims": {"role": "admin"}}, timeout=10)
    assert minted.status_code == 200, minted.text
    r = exchange(strict, minted.json()["token"])
    assert r.status_code == 200, r.text
    claims = google.auth.jwt.decode(r.json()["idToken"], verify=False)
    assert claims["user_id"] == "bob" and claims["role"] == "admin"
    assert requests.post(f"{strict.url}/emulator/v1/projects/{PROJECT}/customTokens", json={}, timeout=10).status_code == 400


def test_default_mode_keeps_accepting_admin_sdk_emulator_tokens(emulator, keys):
    assert exchange(emulator, unsigned("u-default")).status_code == 200
    assert exchange(emulator, custom_token(keys["foreign"], "u-foreign")).status_code == 200


def test_an_unreadable_service_account_file_stops_start_up(tmp_path):
    (tmp_path / "emulator.json").write_text(json.dumps({"auth": {"signIdTokens": True, "serviceAccounts": ["missing.json"]}}))
    import subprocess
    from conftest import ROOT
    import os
    binary = os.environ.get("EMULATOR_BIN", str(ROOT / ".build" / "debug" / "emulator"))
    p = subprocess.run([binary, "start", "--port", "0", "--config", str(tmp_path / "emulator.json")], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "missing.json" in p.stderr, p.stderr
