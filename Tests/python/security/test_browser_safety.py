"""Browser safety (SECURITY.md, "Browsers"): what a web page the developer happens to visit can and
cannot do to an emulator on their machine.

- DNS rebinding: a request whose Host is not a loopback name or address, an IP literal, the
  configured host or an allowed host is refused, whatever the route.
- The control plane (`/emulator/*`, `POST /reset`) refuses cross-origin browser requests, simple
  ones (text/plain, forms) included, before any handler runs; preflights from other origins fail.
- Client APIs keep working from local development servers on any port; `Bearer owner` from a
  cross-origin page is refused unless the origin is allowed.
- The UI is same-origin and sends `X-Emulator-UI`; the admin token guards what the UI reads.
"""
import os
import subprocess

import requests

from conftest import ROOT

OWNER = {"Authorization": "Bearer owner"}
EVIL = "http://evil.example"
DEV = "http://localhost:3000"
PROJECT = "browser-safety"


def docs(emu, project=PROJECT):
    return f"{emu.url}/v1/projects/{project}/databases/(default)/documents"


def seed(emu, project=PROJECT):
    r = requests.patch(docs(emu, project) + "/things/keep", headers=OWNER, json={"fields": {"v": {"stringValue": "kept"}}}, timeout=10)
    assert r.status_code == 200, r.text


def still_there(emu, project=PROJECT):
    r = requests.get(docs(emu, project) + "/things/keep", headers=OWNER, timeout=10)
    return r.status_code == 200 and r.json()["fields"]["v"]["stringValue"] == "kept"


def refused(r, words, readable=False):
    """A 403 naming the problem; only a local page refused for its credential may read why."""
    assert r.status_code == 403, f"{r.status_code}: {r.text}"
    assert ("Access-Control-Allow-Origin" in r.headers) == readable
    message = r.json()["error"]["message"]
    assert words in message, message
    return message


# ---- DNS rebinding ----

def test_foreign_host_is_refused_on_every_kind_of_route(emulator):
    for method, path in [("GET", "/emulator/v1/status"), ("GET", "/ui/"), ("GET", f"/v1/projects/{PROJECT}/databases/(default)/documents/things/keep"),
                         ("POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"), ("GET", "/")]:
        r = requests.request(method, emulator.url + path, headers={"Host": "evil.example", **OWNER}, json={}, timeout=10)
        message = refused(r, "DNS rebinding")
        assert "--allowed-host evil.example" in message
    r = requests.get(emulator.url + "/emulator/v1/status", headers={"Host": "evil.example:4400"}, timeout=10)
    refused(r, "Host 'evil.example:4400' is not allowed")


def test_loopback_names_and_ip_literals_are_answered(emulator):
    for host in [f"127.0.0.1:{emulator.port}", f"localhost:{emulator.port}", "LOCALHOST", f"app.localhost:{emulator.port}",
                 "[::1]:8080", "10.0.2.2:9099", "192.168.1.20", "localhost."]:
        r = requests.get(emulator.url + "/emulator/v1/status", headers={"Host": host}, timeout=10)
        assert r.status_code == 200, (host, r.text)


def test_allowed_hosts_are_answered(emulator_factory):
    emu = emulator_factory("--allowed-host", "devbox.test,.example.test")
    for host, status in [("devbox.test:8080", 200), ("example.test", 200), ("api.example.test", 200),
                         ("other.test", 403), ("devbox.test.evil", 403), ("badexample.test", 403)]:
        r = requests.get(emu.url + "/emulator/v1/status", headers={"Host": host}, timeout=10)
        assert r.status_code == status, (host, r.text)


# ---- the control plane ----

def test_cross_origin_simple_requests_cannot_reset(emulator):
    seed(emulator)
    # No preflight is needed for these: the browser sends them and only hides the answer.
    for origin in (EVIL, DEV, "null"):
        for path in ("/emulator/v1/reset", f"/emulator/v1/projects/{PROJECT}:reset", "/reset"):
            r = requests.post(emulator.url + path, data="{}", timeout=10,
                              headers={"Origin": origin, "Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"})
            refused(r, "refuses browser requests")
        r = requests.post(emulator.url + f"/emulator/v1/projects/{PROJECT}/faults", timeout=10,
                          headers={"Origin": origin, "Content-Type": "application/x-www-form-urlencoded"}, data="match=1")
        refused(r, "refuses browser requests")
    # A form or image without Origin still says where it comes from.
    r = requests.get(emulator.url + "/emulator/v1/projects", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}, timeout=10)
    refused(r, "Sec-Fetch-Site: cross-site")
    assert still_there(emulator)


def test_cross_origin_reads_of_the_control_plane_are_refused(emulator):
    seed(emulator)
    for path in ("/emulator/v1/projects", f"/emulator/v1/projects/{PROJECT}/oobCodes", f"/emulator/v1/projects/{PROJECT}/users"):
        r = requests.get(emulator.url + path, headers={"Origin": DEV, "X-Emulator-UI": "1"}, timeout=10)
        refused(r, "local page of another origin")


def test_preflights_to_the_control_plane_fail_for_other_origins(emulator):
    for origin in (EVIL, DEV, f"http://127.0.0.1:{emulator.port + 1}"):
        r = requests.options(emulator.url + "/emulator/v1/reset", timeout=10, headers={
            "Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-emulator-ui",
            "Access-Control-Request-Private-Network": "true"})
        refused(r, "not allowed")
        assert "Access-Control-Allow-Private-Network" not in r.headers


def test_the_ui_is_same_origin_and_sends_its_header(emulator):
    seed(emulator)
    same = f"http://127.0.0.1:{emulator.port}"
    ui = {"Origin": same, "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}
    # Without the header even a same-origin fetch is refused (an <img> or a script of another page
    # served here cannot be the UI by accident).
    r = requests.post(emulator.url + f"/emulator/v1/projects/{PROJECT}/snapshots", json={"name": "ui"}, headers=ui, timeout=10)
    refused(r, "X-Emulator-UI", readable=True)
    r = requests.post(emulator.url + f"/emulator/v1/projects/{PROJECT}/snapshots", json={"name": "ui"}, headers={**ui, "X-Emulator-UI": "1"}, timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["Access-Control-Allow-Origin"] == same
    # A same-origin preflight (the browser does not send one, but a proxy might) is answered.
    r = requests.options(emulator.url + "/emulator/v1/status", headers={"Origin": same, "Access-Control-Request-Method": "GET"}, timeout=10)
    assert r.status_code == 204
    # Typing a control-plane URL in the address bar is a navigation the user made.
    r = requests.get(emulator.url + "/emulator/v1/openapi.json", headers={"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"}, timeout=10)
    assert r.status_code == 200
    # Tools (SDKs, curl, test harnesses) send no browser headers and are unaffected.
    assert requests.get(emulator.url + "/emulator/v1/status", timeout=10).status_code == 200


def test_the_ui_shell_is_served_with_a_strict_policy(emulator):
    for path in ("/ui/", "/ui", "/ui/firestore/users/alice?project=p", "/ui/requests?project=p&id=3"):
        r = requests.get(emulator.url + path, timeout=10)
        assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
        assert r.headers["X-Frame-Options"] == "DENY"
        assert '<main id="main"' in r.text
    browser = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    assert "<!doctype html>" in requests.get(emulator.url + "/", headers=browser, timeout=10).text
    assert requests.get(emulator.url + "/", timeout=10).json()["ui"] == "/ui/"  # curl and SDKs keep JSON
    css = requests.get(emulator.url + "/ui/assets/app.css", timeout=10)
    assert css.headers["Content-Type"].startswith("text/css")
    again = requests.get(emulator.url + "/ui/assets/app.css", headers={"If-None-Match": css.headers["ETag"]}, timeout=10)
    assert again.status_code == 304 and not again.content
    assert requests.get(emulator.url + "/ui/assets/nope.js", timeout=10).status_code == 404


# ---- client APIs ----

def test_local_development_origins_on_any_port_use_the_client_apis(emulator):
    seed(emulator, emulator.project)  # the project the ID tokens below are for
    for origin in (DEV, "http://127.0.0.1:5173", "http://[::1]:8081", "http://app.localhost:4200", "capacitor://localhost"):
        r = requests.options(docs(emulator, emulator.project) + "/things/keep", timeout=10, headers={
            "Origin": origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization,content-type",
            "Access-Control-Request-Private-Network": "true"})
        assert r.status_code == 204, (origin, r.text)
        assert r.headers["Access-Control-Allow-Origin"] == origin
        assert r.headers["Access-Control-Allow-Private-Network"] == "true"
        r = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", json={"returnSecureToken": True},
                          headers={"Origin": origin}, timeout=10)
        assert r.status_code == 200, (origin, r.text)
        assert r.headers["Access-Control-Allow-Origin"] == origin
        assert r.headers["Access-Control-Allow-Credentials"] == "true"
        token = r.json()["idToken"]
        r = requests.get(docs(emulator, emulator.project) + "/things/keep", headers={"Origin": origin, "Authorization": f"Bearer {token}"}, timeout=10)
        assert r.status_code == 200, r.text  # no rules: the open development default


def test_other_sites_cannot_use_the_client_apis(emulator):
    seed(emulator)
    for origin in (EVIL, "null", "https://attacker.test:3000"):
        r = requests.post(docs(emulator) + ":commit", headers={"Origin": origin, "Content-Type": "text/plain"}, timeout=10,
                          data='{"writes": [{"delete": "projects/%s/databases/(default)/documents/things/keep"}]}' % PROJECT)
        refused(r, "may not call this emulator")
        r = requests.options(docs(emulator) + "/things/keep", headers={"Origin": origin, "Access-Control-Request-Method": "GET"}, timeout=10)
        refused(r, "not allowed")
    assert still_there(emulator)


def test_bearer_owner_from_a_cross_origin_page_is_refused(emulator):
    seed(emulator)
    for path, method, body in [(docs(emulator) + "/things/keep", "GET", None),
                               (f"{emulator.url}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:query", "POST", {}),
                               (docs(emulator) + "/things/keep", "DELETE", None)]:
        for token in ("owner", "Owner", "ya29.fake"):
            r = requests.request(method, path, json=body, headers={"Origin": DEV, "Authorization": f"Bearer {token}"}, timeout=10)
            refused(r, "Bearer owner", readable=True)
    assert still_there(emulator)
    # The same call without a browser (an Admin SDK) or from the UI's own origin works.
    assert requests.get(docs(emulator) + "/things/keep", headers=OWNER, timeout=10).status_code == 200
    same = {"Origin": f"http://127.0.0.1:{emulator.port}", **OWNER}
    assert requests.get(docs(emulator) + "/things/keep", headers=same, timeout=10).status_code == 200


def test_allowed_origins_are_trusted_like_the_ui(emulator_factory):
    emu = emulator_factory("--allowed-origin", "http://devbox.test:3000,http://localhost:9876")
    seed(emu)
    for origin in ("http://devbox.test:3000", "http://localhost:9876", "http://DEVBOX.test:3000"):
        r = requests.get(docs(emu) + "/things/keep", headers={"Origin": origin, **OWNER}, timeout=10)
        assert r.status_code == 200, r.text
        assert r.headers["Access-Control-Allow-Origin"] == origin
        r = requests.options(emu.url + f"/emulator/v1/projects/{PROJECT}/oobCodes", timeout=10,
                             headers={"Origin": origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-emulator-ui"})
        assert r.status_code == 204 and r.headers["Access-Control-Allow-Origin"] == origin
        r = requests.get(emu.url + f"/emulator/v1/projects/{PROJECT}/oobCodes", headers={"Origin": origin, "X-Emulator-UI": "1", "Sec-Fetch-Site": "cross-site"}, timeout=10)
        assert r.status_code == 200, r.text
    # Other origins are still refused.
    r = requests.get(docs(emu) + "/things/keep", headers={"Origin": "http://localhost:3000", **OWNER}, timeout=10)
    refused(r, "Bearer owner", readable=True)


def test_bad_allowed_values_are_refused_at_start():
    binary = os.environ.get("EMULATOR_BIN", str(ROOT / ".build" / "debug" / "emulator"))
    for flag, value, words in [("--allowed-origin", "devbox.test", "not an origin"), ("--allowed-origin", "http://a.test/path", "not an origin"),
                               ("--allowed-host", "a b", "not a host name")]:
        p = subprocess.run([binary, "start", "--port", "0", flag, value], capture_output=True, text=True, timeout=30)
        assert p.returncode == 2, p.stderr
        assert words in p.stderr


# ---- the admin token guards the UI ----

def test_admin_token_guards_what_the_ui_reads(emulator_factory):
    emu = emulator_factory("--admin-token", "s3cret")
    same = {"Origin": f"http://127.0.0.1:{emu.port}", "X-Emulator-UI": "1", "Sec-Fetch-Site": "same-origin"}
    # The shell is static and holds no data; everything it shows comes from guarded routes.
    assert requests.get(emu.url + "/ui/", timeout=10).status_code == 200
    for path in ("/emulator/v1/status", "/emulator/v1/projects", f"/emulator/v1/projects/{emu.project}/summary",
                 f"/emulator/v1/projects/{emu.project}/users", f"/emulator/v1/projects/{emu.project}/rulesEvaluations",
                 f"/emulator/v1/projects/{emu.project}/databases/(default)/documents"):
        r = requests.get(emu.url + path, headers=same, timeout=10)
        assert r.status_code == 401, (path, r.text)
        r = requests.get(emu.url + path, headers={**same, "Authorization": "Bearer s3cret"}, timeout=10)
        assert r.status_code == 200, (path, r.text)
