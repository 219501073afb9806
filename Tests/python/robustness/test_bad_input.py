"""Bad-input catalogue: hostile bodies, paths and numbers against every public route.

Every answer must come within a timeout, never be a 5xx, and (when it is an error) be JSON with a
message. After the whole catalogue the process is still up and a canary document in another
project is byte-for-byte unchanged. The routes and inputs live in `catalogue.py`.
"""
import http.client
import json
import os
import socket
import urllib.parse

import pytest
import requests

from robustness.catalogue import (ACTION_PAGE_ROUTES, API_KEY, BAD_DATABASE_IDS, BAD_ID_ROUTES, BAD_PROJECT_IDS,
                                  BAD_QUERY_ROUTES, BODY_ROUTES, CANARY, DOT_NAMES,
                                  GLOBAL_RESET_ROUTES, HOSTILE, MALFORMED, OTHER_ROUTES, STREAM_ROUTES, TARGET, TENANT_BODY, TRAVERSAL_DOC_PATHS,
                                  TRAVERSAL_FS_PATHS, TRAVERSAL_NAMES, UNIMPLEMENTED_ROUTES,
                                  STORAGE_ROUTES, WEBCHANNEL_ROUTES)

TIMEOUT = 10
OWNER = {"Authorization": "Bearer owner"}
JSON_CT = {"Content-Type": "application/json"}
CANARY_DOC = f"/v1/projects/{CANARY}/databases/(default)/documents/canary/doc"


@pytest.fixture(scope="module")
def setup(emulator):
    """Registers the target project and writes the canary; yields a session and the canary's JSON."""
    s = requests.Session()
    s.headers.update(OWNER)
    r = s.post(emulator.url + "/emulator/v1/projects", json={"projectId": TARGET, "apiKey": API_KEY}, timeout=TIMEOUT)
    assert r.status_code in (200, 409), r.text
    r = s.post(emulator.url + f"/identitytoolkit.googleapis.com/v2/projects/{TARGET}/tenants", json=TENANT_BODY, timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    TENANT_ID[0] = r.json()["name"].rsplit("/", 1)[1]
    r = s.patch(emulator.url + CANARY_DOC, json={"fields": {"v": {"stringValue": "canary"}, "n": {"integerValue": "7"}}},
                timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    canary = r.json()
    yield s, canary
    # The target project's leftovers must not leak into other suites.
    s.post(emulator.url + f"/emulator/v1/projects/{TARGET}:reset", timeout=TIMEOUT)
    s.delete(emulator.url + f"/emulator/v1/projects/{TARGET}/faults", timeout=TIMEOUT)


@pytest.fixture(scope="module", autouse=True)
def stalled(emulator):
    """A connection that sends half a request head when the module starts; the server's 10 s request
    timeout runs while the other tests do, and the last tests read the verdict."""
    c = socket.create_connection((emulator.host, emulator.port), timeout=20)
    c.sendall(b"GET /emulator/v1/status HTTP/1.1\r\nHost: x\r\n")
    yield c
    c.close()


TENANT_ID = ["no-tenant-yet"]  # the `{t}` of the catalogue, created by `setup`


def concrete(path):
    return path.replace("{p}", TARGET).replace("{t}", TENANT_ID[0])


def url(emulator, path):
    return emulator.url + concrete(path)


def check(r, *, must_fail, label=""):
    """Asserts the answer is no 5xx, is a 4xx when `must_fail`, and that errors are JSON with a message."""
    where = f"{label} {r.request.method} {r.request.url} -> {r.status_code}: {r.text[:200]}"
    assert r.status_code < 500, where
    if must_fail:
        assert 400 <= r.status_code < 500, where
    if r.status_code >= 400:
        body = r.json()
        assert isinstance(body.get("error"), dict), where
        assert isinstance(body["error"].get("message"), str) and body["error"]["message"], where


def check_all(answers, *, must_fail):
    """Checks every (label, response) and reports all the offenders at once, not just the first."""
    problems = []
    for label, r in answers:
        try:
            check(r, must_fail=must_fail, label=label)
        except (AssertionError, ValueError) as e:
            problems.append(str(e).splitlines()[0])
    assert not problems, "\n".join(problems)


def send(s, emulator, method, path, body=None, headers=None):
    return s.request(method, url(emulator, path), data=body, headers={**JSON_CT, **(headers or {})}, timeout=TIMEOUT)


def route_id(route):
    return route[0] + " " + route[1].split("?")[0]


class RawResponse:
    """The few attributes of a `requests` response that `check` reads, for http.client answers."""

    def __init__(self, method, path, resp):
        self.status_code = resp.status
        self.text = resp.read().decode("utf-8", "replace")
        self.request = type("Req", (), {"method": method, "url": path})()

    def json(self):
        return json.loads(self.text)


def send_raw(emulator, method, path, body=None):
    """Sends the path byte-for-byte (`requests` would fold `..` segments before the server sees them)."""
    c = http.client.HTTPConnection(emulator.host, emulator.port, timeout=TIMEOUT)
    try:
        c.request(method, concrete(path), body=body, headers={**OWNER, **JSON_CT})
        return RawResponse(method, path, c.getresponse())
    finally:
        c.close()


@pytest.mark.parametrize("route", BODY_ROUTES, ids=route_id)
def test_malformed_bodies_are_4xx(emulator, setup, route):
    s, _ = setup
    check_all([(name, send(s, emulator, *route, body=body)) for name, body in MALFORMED.items()], must_fail=True)


@pytest.mark.parametrize("route", BODY_ROUTES, ids=route_id)
def test_hostile_json_is_never_5xx(emulator, setup, route):
    s, _ = setup
    check_all([(name, send(s, emulator, *route, body=body)) for name, body in HOSTILE.items()], must_fail=False)


@pytest.mark.parametrize("route", OTHER_ROUTES, ids=route_id)
def test_bodyless_routes_survive_hostile_bodies(emulator, setup, route):
    s, _ = setup
    for body in (MALFORMED["deep-array"], MALFORMED["invalid-utf8"], MALFORMED["truncated"]):
        check(send(s, emulator, *route, body=body), must_fail=False)


@pytest.mark.parametrize("route", STORAGE_ROUTES + WEBCHANNEL_ROUTES, ids=route_id)
def test_byte_routes_survive_hostile_bodies(emulator, setup, route):
    """Storage takes any bytes and WebChannel its own framing: never a 5xx but a named 501, and
    an error always says what went wrong (JSON, or XML on Storage's XML paths, or text)."""
    s, _ = setup
    problems = []
    for name, body in {**MALFORMED, **HOSTILE}.items():
        r = send(s, emulator, *route, body=body)
        if (r.status_code >= 500 and r.status_code != 501) or (r.status_code >= 400 and not r.text.strip()):
            problems.append(f"{name} {route[0]} {r.request.url} -> {r.status_code}: {r.text[:200]}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("route", STREAM_ROUTES, ids=route_id)
def test_streaming_routes_open_at_once_and_refuse_unknown_projects(emulator, setup, route):
    method, path = route
    for body in (None, MALFORMED["deep-array"], MALFORMED["invalid-utf8"]):
        c = http.client.HTTPConnection(emulator.host, emulator.port, timeout=TIMEOUT)
        try:
            c.request(method, concrete(path), body=body, headers={**OWNER, **JSON_CT})
            r = c.getresponse()
            assert r.status == 200 and r.getheader("Content-Type", "").startswith("text/event-stream")
            assert r.fp.readline() != b""  # the first event-stream line arrives without waiting
        finally:
            c.close()
    c = http.client.HTTPConnection(emulator.host, emulator.port, timeout=TIMEOUT)
    try:
        c.request(method, path.replace("{p}", "no-such-project"), headers=OWNER)
        r = c.getresponse()
        assert r.status == 404 and b"no-such-project" in r.read()
    finally:
        c.close()


@pytest.mark.parametrize("route", WEBCHANNEL_ROUTES, ids=route_id)
def test_webchannel_routes_survive_hostile_bodies_and_refuse_unknown_sessions(emulator, setup, route):
    method, path = route
    database = "database=projects/" + TARGET + "/databases/(default)"
    for query in ("", "?VER=8&" + database + "&RID=1&CVER=22&zx=a&t=1", "?VER=8&SID=bogus&RID=2&AID=0&CI=1&TYPE=xmlhttp&zx=a&t=1"):
        for body in (None, MALFORMED["truncated"], MALFORMED["invalid-utf8"], MALFORMED["nul-bytes"]) if method == "POST" else (None,):
            c = http.client.HTTPConnection(emulator.host, emulator.port, timeout=TIMEOUT)
            try:
                c.request(method, path + query, body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
                r = c.getresponse()
                text = r.read(4096)
                assert r.status < 500, (method, query, body, r.status, text)
                if "SID=bogus" in query:
                    assert r.status == 400, (method, query, r.status, text)
                    # A malformed form body is named first; a well-formed request names the session.
                    assert body is not None or b"Unknown SID" in text, (method, query, text)
            finally:
                c.close()


@pytest.mark.parametrize("route", BAD_QUERY_ROUTES, ids=route_id)
def test_absurd_numbers_in_queries_are_4xx(emulator, setup, route):
    s, _ = setup
    check(send(s, emulator, *route), must_fail=True)


def error_message(r):
    """The message of a JSON error answer, whichever documented shape it has."""
    body = r.json()
    if isinstance(body.get("authEmulator"), dict):  # the Firebase Auth emulator's action page
        return body["authEmulator"].get("error")
    return body["error"].get("message") if isinstance(body.get("error"), dict) else None


@pytest.mark.parametrize("route", UNIMPLEMENTED_ROUTES, ids=route_id)
def test_unimplemented_operations_are_501_whatever_the_body(emulator, setup, route):
    """Documented as not implemented (docs/auth.md, docs/store.md): 501 naming the operation, for any body."""
    s, _ = setup
    problems = []
    for name, body in {**MALFORMED, **HOSTILE}.items():
        r = send(s, emulator, *route, body=body)
        message = error_message(r) if r.headers.get("Content-Type", "").startswith("application/json") else None
        if r.status_code != 501 or not message:
            problems.append(f"{name} {route[0]} {r.request.url} -> {r.status_code}: {r.text[:200]}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("route", ACTION_PAGE_ROUTES, ids=lambda r: r[1][:60])
def test_action_page_refuses_bad_links_with_a_message(emulator, setup, route):
    s, _ = setup
    for body in (None, MALFORMED["deep-array"], MALFORMED["invalid-utf8"]):
        r = send(s, emulator, *route, body=body)
        assert 400 <= r.status_code < 500 and error_message(r), f"{route} -> {r.status_code}: {r.text[:200]}"


def test_global_resets_survive_hostile_bodies(emulator_factory):
    """The resets clear every project (the canary's too), so they get an emulator of their own."""
    own = emulator_factory(project="robust-global")
    s = requests.Session()
    s.headers.update(OWNER)
    answers = [(name, send(s, own, *route, body=body))
               for route in GLOBAL_RESET_ROUTES for name, body in {**MALFORMED, **HOSTILE}.items()]
    check_all(answers, must_fail=False)
    assert own.proc.poll() is None and s.get(own.url + "/emulator/v1/status", timeout=TIMEOUT).status_code == 200


def raw_request(emulator, head: bytes, body: bytes = b"", timeout=TIMEOUT):
    """Sends raw bytes on a fresh connection; returns (status, response bytes)."""
    with socket.create_connection((emulator.host, emulator.port), timeout=timeout) as c:
        c.sendall(head + body)
        data = b""
        try:
            while b"\r\n\r\n" not in data or len(data) < 64:
                chunk = c.recv(65536)
                if not chunk:
                    break
                data += chunk
        except ConnectionResetError:
            pass
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else None
    return status, data


@pytest.mark.parametrize("path", ["/emulator/v1/projects", "/v1/projects/{p}/databases/(default)/documents:commit",
                                  "/v1/projects/{p}/databases/(default)/documents/tasks",
                                  "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=" + API_KEY])
def test_declared_body_over_32_mib_is_413(emulator, setup, path):
    head = (f"POST {path.replace('{p}', TARGET)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {32 * 1024 * 1024 + 1}\r\n\r\n").encode()
    status, data = raw_request(emulator, head)
    assert status == 413, data[:300]


def test_sent_body_over_32_mib_is_413(emulator, setup):
    """A body that is actually sent (chunked, so no length is declared up front) is cut off at the limit."""
    chunk = b"x" * (1024 * 1024)
    head = (f"POST /v1/projects/{TARGET}/databases/(default)/documents:commit HTTP/1.1\r\nHost: x\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    body = b"".join(b"%x\r\n" % len(chunk) + chunk + b"\r\n" for _ in range(33)) + b"0\r\n\r\n"
    try:
        status, data = raw_request(emulator, head, body)
    except (BrokenPipeError, ConnectionResetError):
        status, data = 413, b"connection closed after the limit"  # the server may answer and close mid-send
    assert status == 413, data[:300]


def test_oversized_headers_are_431(emulator, setup):
    head = b"GET /emulator/v1/status HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (128 * 1024) + b"\r\n\r\n"
    try:
        status, data = raw_request(emulator, head)
    except (BrokenPipeError, ConnectionResetError):
        pytest.fail("connection reset instead of a 431")
    assert status == 431, data[:300]


@pytest.mark.parametrize("line", [b"GARBAGE\r\n\r\n", b"GET\r\n\r\n",                                   b"GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                                  b"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                                  b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                                  b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n"])
def test_malformed_http_is_4xx(emulator, setup, line):
    status, data = raw_request(emulator, line)
    assert status is not None and 400 <= status < 500, data[:300]


def test_unknown_http_version_is_505(emulator, setup):
    status, data = raw_request(emulator, b"GET / HTTP/9.9\r\n\r\n")
    assert status == 505 and b'"message"' in data, data[:300]


@pytest.mark.parametrize("doc_path", TRAVERSAL_DOC_PATHS)
def test_traversal_in_document_paths(emulator, setup, doc_path):
    s, _ = setup
    base = f"/v1/projects/{{p}}/databases/(default)/documents/{doc_path}"
    check(send_raw(emulator, "GET", base), must_fail=False)
    check(send_raw(emulator, "PATCH", base, json.dumps({"fields": {"x": {"stringValue": "evil"}}}).encode()), must_fail=False)
    check(send_raw(emulator, "DELETE", base), must_fail=False)
    commit = {"writes": [{"update": {"name": f"projects/{TARGET}/databases/(default)/documents/{urllib.parse.unquote(doc_path)}",
                                     "fields": {"x": {"stringValue": "evil"}}}}]}
    check(send(s, emulator, "POST", "/v1/projects/{p}/databases/(default)/documents:commit", json.dumps(commit).encode()),
          must_fail=False)


def test_commit_naming_another_project_is_refused(emulator, setup):
    """A write whose document name points into the canary's project must not land there."""
    s, _ = setup
    commit = {"writes": [{"update": {"name": f"projects/{CANARY}/databases/(default)/documents/canary/doc",
                                     "fields": {"v": {"stringValue": "overwritten"}}}}]}
    r = send(s, emulator, "POST", "/v1/projects/{p}/databases/(default)/documents:commit", json.dumps(commit).encode())
    check(r, must_fail=True)


@pytest.mark.parametrize("name", TRAVERSAL_NAMES)
def test_traversal_in_snapshot_names(emulator, setup, name):
    s, _ = setup
    check(send(s, emulator, "POST", "/emulator/v1/projects/{p}/snapshots", json.dumps({"name": urllib.parse.unquote(name)}).encode()),
          must_fail=True)
    check(send_raw(emulator, "POST", f"/emulator/v1/projects/{{p}}/snapshots/{name}:restore"), must_fail=True)
    check(send_raw(emulator, "DELETE", f"/emulator/v1/projects/{{p}}/snapshots/{name}"), must_fail=True)


@pytest.mark.parametrize("name", DOT_NAMES)
def test_dot_snapshot_names_are_refused(emulator, setup, name):
    """"." and ".." are dot segments no URL path can address (the request path is normalized once
    and dot segments are refused), so they are refused as snapshot names too."""
    s, _ = setup
    check(send(s, emulator, "POST", "/emulator/v1/projects/{p}/snapshots", json.dumps({"name": name}).encode()), must_fail=True)
    check(send_raw(emulator, "DELETE", f"/emulator/v1/projects/{{p}}/snapshots/{name}"), must_fail=True)


@pytest.mark.parametrize("path", TRAVERSAL_FS_PATHS)
def test_traversal_in_export_and_import_paths(emulator, setup, path, tmp_path):
    s, _ = setup
    before = export_traces()
    for verb in ("export", "import"):
        check(send(s, emulator, "POST", f"/emulator/v1/projects/{{p}}:{verb}", json.dumps({"path": path}).encode()),
              must_fail=True)
    assert export_traces() == before


def export_traces():
    """What a refused export could have left where the traversal paths point (the emulator runs in
    this working directory): the traversal's `escape` and the names an export writes. Only those
    names are compared, because other processes on a shared machine create files in /tmp and the
    checkout's parent while the test runs (a whole-listing comparison failed on that)."""
    def ours(name):
        return name in ("escape", "firebase-export-metadata.json") or name.endswith("_export")
    return {d: sorted(n for n in os.listdir(d) if ours(n)) for d in ("..", ".", "/", "/tmp", "/etc")}


@pytest.mark.parametrize("bad", BAD_PROJECT_IDS, ids=lambda b: b[:20])
def test_bad_project_ids_are_refused_at_every_entry(emulator, setup, bad):
    s, _ = setup
    answers = [(bad, send_raw(emulator, method, path.replace("{bad}", bad), body)) for method, path, body in BAD_ID_ROUTES]
    answers.append((bad, send(s, emulator, "POST", "/emulator/v1/projects", json.dumps({"projectId": urllib.parse.unquote(bad)}).encode())))
    check_all(answers, must_fail=True)
    listed = [p["projectId"] for p in s.get(emulator.url + "/emulator/v1/projects", timeout=TIMEOUT).json()["projects"]]
    assert urllib.parse.unquote(bad) not in listed
    assert not os.path.exists("never-written")


@pytest.mark.parametrize("bad", BAD_DATABASE_IDS, ids=lambda b: b[:20])
def test_bad_database_ids_are_refused(emulator, setup, bad):
    check_all([(bad, send_raw(emulator, method, f"/v1/projects/{{p}}/databases/{bad}/documents/tasks/t1", body))
               for method, body in (("PATCH", b'{"fields": {}}'), ("GET", None))], must_fail=True)


@pytest.mark.parametrize("query", ["pageSize=99999999999999999999", "pageSize=-1", "pageSize=abc", "pageToken=%FF%FE",
                                   "orderBy=%00", "mask.fieldPaths=a..b", "readTime=99999-01-01T00:00:00Z",
                                   "transaction=%%%", "showMissing=maybe", "updateMask.fieldPaths=`"])
def test_absurd_query_parameters(emulator, setup, query):
    s, _ = setup
    for method, path in [("GET", "/v1/projects/{p}/databases/(default)/documents/tasks"),
                         ("GET", "/v1/projects/{p}/databases/(default)/documents/tasks/t1"),
                         ("PATCH", "/v1/projects/{p}/databases/(default)/documents/tasks/t1")]:
        body = b'{"fields": {}}' if method == "PATCH" else None
        check(send(s, emulator, method, path + "?" + query, body), must_fail=False)


def test_slow_partial_request_times_out_with_408(stalled):
    """A client that never finishes its request head gets 408 and a closed connection, not a held slot."""
    data = b""
    while chunk := stalled.recv(65536):
        data += chunk
    assert data.startswith(b"HTTP/1.1 408 ") and b'"message"' in data, data[:300]


def test_process_up_and_canary_unchanged(emulator, setup):
    """Runs last in this module (pytest keeps file order): nothing above crashed the server or touched the canary."""
    s, canary = setup
    assert emulator.proc.poll() is None, "the emulator process exited"
    assert s.get(emulator.url + "/emulator/v1/status", timeout=TIMEOUT).status_code == 200
    r = s.get(emulator.url + CANARY_DOC, timeout=TIMEOUT)
    assert r.status_code == 200 and r.json() == canary
    listed = s.get(emulator.url + f"/v1/projects/{CANARY}/databases/(default)/documents/canary", timeout=TIMEOUT).json()
    assert [d["name"] for d in listed["documents"]] == [canary["name"]]

