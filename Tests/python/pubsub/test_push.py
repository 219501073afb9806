"""Push subscriptions: messages are POSTed to an http:// endpoint in production's wrapped JSON form,
a 2xx answer acknowledges, a failure is pushed again after the ack deadline on the project clock,
and clearing the push config turns the subscription back into a pull one."""
import base64
import http.server
import json
import threading
import time

import pytest
import requests

from pubsub.conftest import admin


class Endpoint:
    """A local HTTP server recording pushed bodies; answers `statuses` in turn, then 200."""

    def __init__(self):
        self.bodies = []
        self.statuses = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                outer.bodies.append((self.path, self.headers.get("Content-Type"), json.loads(body)))
                status = outer.statuses.pop(0) if outer.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/push?token=abc"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, n, timeout=10):
        end = time.monotonic() + timeout
        while len(self.bodies) < n and time.monotonic() < end:
            time.sleep(0.02)
        return self.bodies


@pytest.fixture
def endpoint():
    e = Endpoint()
    yield e
    e.server.shutdown()


def publish(emu, topic, *payloads, **attrs):
    msgs = [{"data": base64.b64encode(p).decode(), "attributes": attrs} if attrs else {"data": base64.b64encode(p).decode()} for p in payloads]
    r = requests.post(f"{emu.url}/v1/{topic}:publish", json={"messages": msgs}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["messageIds"]


def test_push_posts_production_bodies_and_acknowledges(pubsub, names, endpoint):
    emu = pubsub[0]
    topic, sub = names
    assert requests.put(f"{emu.url}/v1/{topic}", json={}, timeout=10).status_code == 200
    r = requests.put(f"{emu.url}/v1/{sub}", json={"topic": topic, "pushConfig": {"pushEndpoint": endpoint.url}}, timeout=10)
    assert r.status_code == 200 and r.json()["pushConfig"]["pushEndpoint"] == endpoint.url
    ids = publish(emu, topic, b"one", b"two", kind="created")
    got = endpoint.wait(2)
    assert len(got) == 2
    path, ctype, body = got[0]
    assert path == "/push?token=abc" and ctype == "application/json"
    assert set(body) == {"message", "subscription"} and body["subscription"] == sub
    m = body["message"]
    assert m["messageId"] == m["message_id"] and m["publishTime"] == m["publish_time"]
    assert m["attributes"] == {"kind": "created"}
    assert sorted(b["message"]["messageId"] for _, _, b in got) == sorted(ids)
    assert sorted(base64.b64decode(b["message"]["data"]) for _, _, b in got) == [b"one", b"two"]
    time.sleep(0.3)
    assert len(endpoint.bodies) == 2  # acknowledged: not pushed again
    pulled = requests.post(f"{emu.url}/v1/{sub}:pull", json={"maxMessages": 10, "returnImmediately": True}, timeout=10).json()
    assert pulled.get("receivedMessages", []) == []


def test_a_failed_push_is_pushed_again_after_the_ack_deadline(pubsub, names, endpoint):
    emu = pubsub[0]
    topic, sub = names
    project = emu.project
    requests.put(f"{emu.url}/v1/{topic}", json={}, timeout=10).raise_for_status()
    requests.put(f"{emu.url}/v1/{sub}", json={"topic": topic, "ackDeadlineSeconds": 10, "pushConfig": {"pushEndpoint": endpoint.url}},
                 timeout=10).raise_for_status()
    endpoint.statuses = [503]
    publish(emu, topic, b"retry me")
    assert len(endpoint.wait(1)) == 1
    time.sleep(0.3)
    assert len(endpoint.bodies) == 1  # not before the deadline
    assert admin(emu, "POST", "/clock:advance", json={"seconds": 11}).status_code == 200
    try:
        got = endpoint.wait(2)
        assert len(got) == 2 and got[0][2]["message"]["messageId"] == got[1][2]["message"]["messageId"]
    finally:
        requests.put(f"{emu.url}/emulator/v1/projects/{project}/clock", json={"mode": "system"}, headers={"Authorization": "Bearer owner"}, timeout=10)


def test_clearing_the_push_config_makes_a_pull_subscription(pubsub, names, endpoint):
    emu = pubsub[0]
    topic, sub = names
    requests.put(f"{emu.url}/v1/{topic}", json={}, timeout=10).raise_for_status()
    requests.put(f"{emu.url}/v1/{sub}", json={"topic": topic, "pushConfig": {"pushEndpoint": "https://example.invalid/push"}},
                 timeout=10).raise_for_status()
    publish(emu, topic, b"kept for pull")  # https endpoints are not pushed to: the message stays
    time.sleep(0.2)
    assert requests.post(f"{emu.url}/v1/{sub}:modifyPushConfig", json={"pushConfig": {}}, timeout=10).status_code == 200
    pulled = requests.post(f"{emu.url}/v1/{sub}:pull", json={"maxMessages": 10}, timeout=10).json()["receivedMessages"]
    assert [base64.b64decode(m["message"]["data"]) for m in pulled] == [b"kept for pull"]
    assert endpoint.bodies == []
