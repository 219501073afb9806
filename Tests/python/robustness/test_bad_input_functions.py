"""Bad-input catalogue against the functions routes (`/{project}/{region}/{name}[/...]`).

An emulator of its own runs `Tests/python/functions/worker_py.py` as a codebase (project `{fp}`).
The callable `pyHello` must refuse every malformed body with 400 `INVALID_ARGUMENT` in the callable
error shape (docs/functions.md); the HTTP function `pyHttp` gets the request as sent and its answer
comes back as is, so the host never adds a 5xx of its own to a request the function answered;
unknown functions and projects are a 404 with a message. Afterwards the process and the worker are
up and the canary documents (in another project and in `{fp}` itself) are unchanged.
"""
import json
import pathlib
import sys

import pytest
import requests

from conftest import RunningEmulator
from robustness.catalogue import (BAD_CALLABLE_DATA, CALLABLE_ROUTES, CANARY, FUNCTIONS_PROJECT, HOSTILE,
                                  HTTP_FUNCTION_ROUTES, MALFORMED, UNKNOWN_FUNCTION_ROUTES, UNREAD_BODY)

TIMEOUT = 30
OWNER = {"Authorization": "Bearer owner"}
WORKER = pathlib.Path(__file__).resolve().parents[1] / "functions" / "worker_py.py"
CANARIES = [f"/v1/projects/{project}/databases/(default)/documents/canary/doc" for project in (CANARY, FUNCTIONS_PROJECT)]


@pytest.fixture(scope="module")
def functions_emulator(tmp_path_factory):
    """An emulator whose project runs the Python worker; yields it and the canaries' JSON."""
    config = tmp_path_factory.mktemp("robust-functions") / "emulator.json"
    config.write_text(json.dumps({"project": FUNCTIONS_PROJECT, "functions": {"codebases": [
        {"name": "py", "command": [sys.executable, str(WORKER)]}]}}))
    emu = RunningEmulator(["--config", str(config)], project=None)
    try:
        canaries = []
        for path in CANARIES:
            r = requests.patch(emu.url + path, json={"fields": {"v": {"stringValue": "canary"}}}, headers=OWNER, timeout=TIMEOUT)
            assert r.status_code == 200, r.text
            canaries.append(r.json())
        yield emu, canaries
    finally:
        emu.stop()


def send(emu, method, path, body=None, content_type="application/json"):
    headers = {"Content-Type": content_type} if content_type else {}
    return requests.request(method, emu.url + path.replace("{fp}", FUNCTIONS_PROJECT), data=body, headers=headers,
                            timeout=TIMEOUT)


def route_id(route):
    return route[0] + " " + route[1]


def callable_error(r):
    """The callable error `{"error": {"status", "message", "details"?}}`, or None when the answer is not one."""
    try:
        error = r.json().get("error")
    except ValueError:
        return None
    ok = (isinstance(error, dict) and set(error) <= {"status", "message", "details"}
          and isinstance(error.get("status"), str) and isinstance(error.get("message"), str) and error["message"])
    return error if ok else None


@pytest.mark.parametrize("route", CALLABLE_ROUTES, ids=route_id)
def test_callable_refuses_malformed_bodies(functions_emulator, route):
    emu, _ = functions_emulator
    problems = []
    for name, body in {**MALFORMED, **HOSTILE, **BAD_CALLABLE_DATA}.items():
        r = send(emu, *route, body=body)
        error = callable_error(r)
        if r.status_code != 400 or not error or error["status"] != "INVALID_ARGUMENT":
            problems.append(f"{name}: {r.status_code} {r.text[:200]}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded", "application/jsonx"])
def test_callable_refuses_other_content_types(functions_emulator, content_type):
    emu, _ = functions_emulator
    r = send(emu, "POST", "/{fp}/us-central1/pyHello", body=b'{"data": 1}', content_type=content_type)
    assert r.status_code == 400 and (callable_error(r) or {}).get("status") == "INVALID_ARGUMENT", r.text[:200]


def test_callable_with_hostile_data_is_never_5xx(functions_emulator):
    """Well-formed `{"data": <hostile JSON>}` reaches the function; answers are results or callable errors."""
    emu, _ = functions_emulator
    problems = []
    for name, hostile in HOSTILE.items():
        if name == "empty":
            continue
        r = send(emu, "POST", "/{fp}/us-central1/pyHello", body=b'{"data": ' + hostile + b"}")
        if r.status_code >= 500 or (r.status_code != 200 and not callable_error(r)):
            problems.append(f"{name}: {r.status_code} {r.text[:200]}")
        elif r.status_code == 200 and "result" not in r.json():
            problems.append(f"{name}: 200 without a result")
    assert not problems, "\n".join(problems)


def worker_answers(method, body):
    """Whether worker_py.py answers this request itself: GET always (the body is never read); POST when the
    body parses as JSON (an unknown name is its own 404), otherwise its handler raises and drops the
    connection; other methods get http.server's own 501."""
    if method != "POST":
        return True
    try:
        json.loads(body or b"{}")
        return True
    except (ValueError, RecursionError):
        return False


@pytest.mark.parametrize("route", HTTP_FUNCTION_ROUTES, ids=route_id)
def test_http_function_gets_the_request_and_its_answer_comes_back(functions_emulator, route):
    emu, _ = functions_emulator
    method, path = route
    below = path.split("/pyHttp", 1)[1] or "/"
    bodies = {**MALFORMED, **HOSTILE, **({"unread-24-MiB": UNREAD_BODY} if method == "GET" else {})}
    problems = []
    for name, body in bodies.items():
        r = send(emu, method, path, body=body)
        from_worker = r.headers.get("Server", "").startswith("BaseHTTP/")  # http.server's header, passed through
        where = f"{name}: {method} {path} -> {r.status_code} {r.text[:160]!r}"
        if method == "GET":
            if not (from_worker and r.status_code == 200 and r.text == f"hello from python at {below}"):
                problems.append(where)
        elif worker_answers(method, body):
            if not from_worker:
                problems.append(where + " (the worker answered; the host must pass that answer on)")
        elif not (r.status_code == 500 and "worker 'py'" in r.text):
            # The function failed without answering: the host's documented 500 with a message.
            problems.append(where)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("route", UNKNOWN_FUNCTION_ROUTES, ids=route_id)
def test_unknown_functions_and_projects_are_404(functions_emulator, route):
    emu, _ = functions_emulator
    problems = []
    for name, body in {**MALFORMED, **HOSTILE}.items():
        r = send(emu, *route, body=body)
        try:
            message = r.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = None
        if r.status_code != 404 or not message:
            problems.append(f"{name}: {r.status_code} {r.text[:200]}")
    assert not problems, "\n".join(problems)


def test_process_worker_and_canaries_unchanged(functions_emulator):
    """Runs last in this module: the process and its worker are up, no canary document changed."""
    emu, canaries = functions_emulator
    assert emu.proc.poll() is None, "the emulator process exited"
    r = send(emu, "POST", "/{fp}/us-central1/pyHello", body=b'{"data": "still here"}')
    assert r.status_code == 200 and r.json()["result"]["hello"] == "still here", r.text
    for path, canary in zip(CANARIES, canaries):
        assert requests.get(emu.url + path, headers=OWNER, timeout=TIMEOUT).json() == canary
        listed = requests.get(emu.url + path.rsplit("/", 1)[0], headers=OWNER, timeout=TIMEOUT).json()
        assert [d["name"] for d in listed["documents"]] == [canary["name"]]
