"""With signed ID tokens (`auth.signIdTokens`, set in emulator.json: firebase.json has no such
setting), a Python codebase refuses forged tokens twice over: the emulator refuses them before the
SDK sees a callable, and firebase_admin.auth.verify_id_token inside a function asks the emulator
(in its own emulator mode the SDK would accept an unsigned copy)."""
import base64
import json

import pytest

from conftest import RunningEmulator
from functions_python.sdk import call, claims, make_project, sign_up


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    folder = make_project(tmp_path_factory.mktemp("signed"), "demo-signed")
    (folder / "emulator.json").write_text(json.dumps({"project": "demo-signed", "auth": {"signIdTokens": True},
                                                      "functions": {"codebases": [{"source": "functions"}]}}))
    e = RunningEmulator(["--config", str(folder / "emulator.json")], project=None)
    yield e
    e.stop()


def b64(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def test_forged_tokens_are_refused_before_the_function_runs(emu):
    user = sign_up(emu, "victim@example.com").json()
    head, payload, sig = user["idToken"].split(".")
    assert json.loads(base64.urlsafe_b64decode(head + "=="))["alg"] == "RS256"
    forged = claims(user["idToken"])
    forged["sub"] = forged["user_id"] = "someone-else"
    for bad in [f"{head}.{b64(forged)}.{sig}", f"{b64({'alg': 'none', 'typ': 'JWT'})}.{payload}."]:
        r = call(emu, "whoami", None, token=bad)
        assert r.status_code == 401 and r.json()["error"]["status"] == "UNAUTHENTICATED", (bad, r.text)
    assert call(emu, "whoami", None, token=user["idToken"]).json()["result"]["uid"] == user["localId"]


def test_firebase_admin_inside_a_function_refuses_an_unsigned_copy(emu):
    user = sign_up(emu, "verified@example.com").json()
    assert call(emu, "verify_token", user["idToken"]).json()["result"] == user["localId"]
    unsigned = f"{b64({'alg': 'none', 'typ': 'JWT'})}.{user['idToken'].split('.')[1]}."
    r = call(emu, "verify_token", unsigned)
    assert r.status_code == 401 and r.json()["error"]["message"].startswith("invalid: The Firebase ID token is not valid"), r.text
