"""Shapes found in Firebase's own Python samples, as fixtures of our own (issue 26):

- several blocking functions for one event: refused at discovery, naming both (production
  refuses the deploy), never an arbitrary one;
- the blocking JWT carries the IdP credential as firebase-tools sends it: `raw_user_info`,
  `sign_in_attributes` (SAML attribute statements), `locale`, and the OAuth tokens only for a
  function that asks for them (`id_token=True`, ...);
- an HTTP function that crashes (the framework's 500 page) is recorded as an error;
- the status route reports each codebase and can wait for them;
- a launcher that cannot start is named by its command, not by its 40 KB script.
"""
import json
import pathlib
import shutil

import requests

from functions_python.sdk import CODEBASE, KEY, call, claims, listing, logs, make_project, start

CREDENTIALS = '''
import json
from firebase_functions import https_fn, identity_fn
from firebase_admin import initialize_app

initialize_app()


def seen(event):
    c = event.credential
    profile = event.additional_user_info.profile if event.additional_user_info else None
    return {
        "locale": event.locale,
        "idToken": bool(c and c.id_token), "accessToken": (c.access_token if c else None), "refreshToken": (c.refresh_token if c else None),
        "attributes": json.dumps(c.claims) if c and c.claims else None,
        "profileSub": (profile or {}).get("sub") or (profile or {}).get("nameId"),
    }


@identity_fn.before_user_created()
def created(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeCreateResponse | None:
    s = seen(event)
    return identity_fn.BeforeCreateResponse(custom_claims={"created": {"locale": s["locale"], "idToken": s["idToken"],
                                                                      "accessToken": s["accessToken"], "profileSub": s["profileSub"],
                                                                      "attributes": s["attributes"]}})


@identity_fn.before_user_signed_in(id_token=True, access_token=True, refresh_token=True)
def signed_in(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeSignInResponse | None:
    return identity_fn.BeforeSignInResponse(session_claims={"signedIn": seen(event)})


@https_fn.on_request()
def crash(req: https_fn.Request) -> https_fn.Response:
    raise RuntimeError("boom in crash")
'''

TWO_BLOCKING = '''
from firebase_functions import identity_fn


@identity_fn.before_user_created()
def first_gate(event):
    return None


@identity_fn.before_user_created()
def second_gate(event):
    return None
'''


def codebase_from(tmp_path, name, source):
    src = tmp_path / f"{name}-src"
    src.mkdir()
    (src / "requirements.txt").write_text((CODEBASE / "requirements.txt").read_text())
    (src / "main.py").write_text(source)
    return make_project(tmp_path / name, f"demo-{name}", codebases={"default": (src, "functions")})


def idp(emu, post_body):
    return requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key={KEY}",
                         json={"postBody": post_body, "requestUri": "http://localhost", "returnSecureToken": True}, timeout=30)


def test_the_blocking_jwt_carries_the_idp_credential(tmp_path):
    emu = start(codebase_from(tmp_path, "credentials", CREDENTIALS))
    try:
        id_token = json.dumps({"sub": "g-123", "email": "al@gmail.com", "email_verified": True})
        r = idp(emu, f"providerId=google.com&id_token={id_token}&access_token=at-1&refresh_token=rt-1")
        assert r.status_code == 200, r.text
        c = claims(r.json()["idToken"])
        # beforeCreate asked for no tokens: profile and locale only.
        assert c["created"] == {"locale": "en", "idToken": False, "accessToken": None, "profileSub": "g-123", "attributes": None}, c
        # beforeSignIn asked for all three.
        assert c["signedIn"]["idToken"] is True and c["signedIn"]["accessToken"] == "at-1" and c["signedIn"]["refreshToken"] == "rt-1", c
        assert c["signedIn"]["profileSub"] == "g-123" and c["signedIn"]["locale"] == "en"

        saml = json.dumps({"assertion": {"subject": {"nameId": "al@corp.test"}, "attributeStatements": {"department": ["eng"]}}})
        r = idp(emu, f"providerId=saml.corp&SAMLResponse={requests.utils.quote(saml)}")
        assert r.status_code == 200, r.text
        c = claims(r.json()["idToken"])
        assert json.loads(c["created"]["attributes"]) == {"department": ["eng"]}, c
        assert json.loads(c["signedIn"]["attributes"]) == {"department": ["eng"]}
    finally:
        emu.stop()


def test_a_crashing_http_function_is_recorded_as_an_error(tmp_path):
    emu = start(codebase_from(tmp_path, "crash", CREDENTIALS))
    try:
        r = requests.get(f"{emu.url}/{emu.project}/us-central1/crash", timeout=30)
        assert r.status_code == 500
        [record] = logs(emu, "crash")
        assert record["outcome"] == "error" and record["error"].startswith("HTTP 500"), record
    finally:
        emu.stop()


def test_several_blocking_functions_for_one_event_are_refused_naming_them(tmp_path):
    emu = start(codebase_from(tmp_path, "twogates", TWO_BLOCKING))
    try:
        [codebase] = listing(emu)["codebases"]
        assert codebase["state"] == "failed", codebase
        assert "beforeCreate" in codebase["error"] and "'first_gate'" in codebase["error"] and "'second_gate'" in codebase["error"], codebase
        # Nothing of it is served: sign-ups go through unblocked rather than through an arbitrary one.
        status = requests.get(f"{emu.url}/emulator/v1/status", timeout=10).json()
        assert status["functions"]["codebases"][0]["state"] == "failed"
    finally:
        emu.stop()


def test_status_reports_codebases_and_waits_for_them(tmp_path):
    emu = start(make_project(tmp_path / "ready", "demo-ready"))
    try:
        status = requests.get(f"{emu.url}/emulator/v1/status?wait=functions&timeoutMs=5000", timeout=10)
        assert status.status_code == 200
        body = status.json()["functions"]
        assert body["ready"] is True and body["codebases"] == [{"project": "demo-ready", "name": "default", "state": "ready"}], body
        assert requests.get(f"{emu.url}/emulator/v1/status?wait=nothing", timeout=10).status_code == 400
    finally:
        emu.stop()


def test_a_launcher_that_cannot_start_is_named_by_its_command(tmp_path):
    folder = make_project(tmp_path / "broken-venv", "demo-brokenvenv", link_venv=False)
    venv = folder / "functions" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("\x7fELF not really\n")   # executable, but no program: exec fails
    (venv / "bin" / "python").chmod(0o755)
    (venv / "pyvenv.cfg").write_text("home = /nowhere\n")
    emu = start(folder, "--functions-install", "never")
    try:
        [codebase] = listing(emu)["codebases"]
        assert codebase["state"] == "failed", codebase
        assert len(codebase["error"]) < 2000, f"{len(codebase['error'])} bytes of error"
        assert "import sys" not in codebase["error"] and "-byte script>" in codebase["error"], codebase["error"]
    finally:
        emu.stop()
