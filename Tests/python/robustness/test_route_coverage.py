"""The bad-input catalogue reaches every registered route.

`GET /emulator/v1/routes` lists the live route table; each catalogue row is resolved against it the
way the router does (most specific template wins, literal > `{x}` > `{x=**}`, then a `:verb`;
ties go to the earlier registration; a more specific template for another method means 405), and
every (method, template) must be reached by at least one row. A new route without a row fails here.
"""
import urllib.parse

import requests

from robustness.catalogue import FUNCTIONS_PROJECT, ROUTE_TABLES, TARGET

OWNER = {"Authorization": "Bearer owner"}


def parse_template(text):
    """`/a/{b}/{c=**}:verb` -> ([("lit", "a"), ("param", "b"), ("wild", "c")], "verb")."""
    body = text[1:] if text.startswith("/") else text
    verb = None
    colon = body.rfind(":")
    if colon >= 0 and "}" not in body[colon:] and "/" not in body[colon:]:
        body, verb = body[:colon], body[colon + 1:]
    segments = []
    for seg in (body.split("/") if body else []):
        if seg.startswith("{") and seg.endswith("}"):
            inner = seg[1:-1]
            segments.append(("wild" if inner.endswith("=**") else "param", inner.split("=")[0]))
        else:
            segments.append(("lit", seg))
    return segments, verb


def matches(template, path):
    """Whether the concrete `path` (query ignored) fits the parsed template."""
    segments, verb = template
    raw = path.split("?", 1)[0].lstrip("/")
    parts = raw.split("/") if raw else []
    if verb is not None:
        if not parts or len(parts[-1]) <= len(verb) + 1 or not parts[-1].endswith(":" + verb):
            return False
        parts = parts[:-1] + [parts[-1][:-len(verb) - 1]]
    i = 0
    for kind, value in segments:
        if i >= len(parts):
            return False
        if kind == "lit":
            if urllib.parse.unquote(parts[i]) != value:
                return False
            i += 1
        elif kind == "param":
            if not parts[i] or ":" in parts[i]:
                return False
            i += 1
        else:
            if any(not p for p in parts[i:]):
                return False
            i = len(parts)
    return i == len(parts)


def specificity(template):
    segments, verb = template
    return [{"lit": 3, "param": 2, "wild": 1}[kind] for kind, _ in segments] + [0 if verb is None else 1]


def resolve(routes, method, path):
    """The (method, template) the router dispatches `method path` to, or None (404 or 405)."""
    best, best_other = None, None
    for order, (route_method, text, parsed) in enumerate(routes):
        if not matches(parsed, path):
            continue
        score = specificity(parsed)
        if route_method in (method, "*") or (method == "HEAD" and route_method == "GET"):
            if best is None or best[0] < score:
                best = (score, order, (route_method, text))
        elif best_other is None or best_other < score:
            best_other = score
    if best is None or (best_other is not None and best[0] < best_other):
        return None
    return best[2]


def concrete(path):
    return path.replace("{p}", TARGET).replace("{t}", "a-tenant").replace("{fp}", FUNCTIONS_PROJECT)


def live_routes(emulator):
    r = requests.get(emulator.url + "/emulator/v1/routes", headers=OWNER, timeout=10)
    assert r.status_code == 200, r.text
    return [(x["method"], x["path"], parse_template(x["path"])) for x in r.json()["routes"]]


def test_matcher_follows_the_router():
    """The resolver above agrees with the router on the cases that matter for coverage."""
    routes = [(m, t, parse_template(t)) for m, t in [
        ("GET", "/emulator/v1/status"), ("*", "/{project}/{region}/{name}"), ("*", "/{project}/{region}/{name}/{rest=**}"),
        ("GET", "/v1/projects/{project}/databases/{database}/documents/{path=**}"),
        ("POST", "/v1/projects/{project}/databases/{database}/documents/{path=**}:runQuery"),
        ("GET", "/emulator/v1/projects/{project}:ruleCoverage"), ("GET", "/emulator/v1/projects/{project}:ruleCoverage.html")]]
    assert resolve(routes, "GET", "/emulator/v1/status") == ("GET", "/emulator/v1/status")
    assert resolve(routes, "POST", "/emulator/v1/status") is None  # 405, not the functions route
    assert resolve(routes, "POST", "/p/us-central1/f") == ("*", "/{project}/{region}/{name}")
    assert resolve(routes, "GET", "/p/us-central1/f/a/b?x=1") == ("*", "/{project}/{region}/{name}/{rest=**}")
    assert resolve(routes, "POST", "/v1/projects/p/databases/(default)/documents/a/b:runQuery")[1].endswith(":runQuery")
    assert resolve(routes, "GET", "/v1/projects/p/databases/(default)/documents/a%2Fb") is not None
    assert resolve(routes, "GET", "/emulator/v1/projects/p:ruleCoverage.html")[1].endswith(".html")
    # The functions catch-all takes any other path of three or more segments, verbs included.
    assert resolve(routes, "GET", "/emulator/v1/projects/p:other") == ("*", "/{project}/{region}/{name}/{rest=**}")
    assert resolve(routes, "GET", "/emulator/v1") is None


def test_every_catalogue_row_reaches_a_route(emulator):
    """A row that no route serves (a typo) tests nothing."""
    routes = live_routes(emulator)
    lost = [f"{name}: {method} {path}" for name, table in ROUTE_TABLES.items() for method, path in table
            if resolve(routes, method, concrete(path)) is None]
    assert not lost, "catalogue rows that reach no route:\n" + "\n".join(lost)


def test_catalogue_covers_every_route(emulator):
    routes = live_routes(emulator)
    covered = {resolve(routes, method, concrete(path)) for table in ROUTE_TABLES.values() for method, path in table}
    missing = [f"{method} {text}" for method, text, _ in routes if (method, text) not in covered]
    assert not missing, ("routes no catalogue row exercises (add rows to Tests/python/robustness/catalogue.py):\n"
                         + "\n".join(missing))
