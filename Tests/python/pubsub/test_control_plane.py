"""Pub/Sub as a ControlPlane participant: a project's reset and removal clear its topics,
subscriptions and backlog and no other project's; export/import and --data-dir carry topics,
subscriptions, snapshots and unacknowledged messages across a restart."""
import base64
import uuid

import requests

from conftest import RunningEmulator

OWNER = {"Authorization": "Bearer owner"}


def v1(emu, project, path):
    return f"{emu.url}/v1/projects/{project}{path}"


def control(emu, method, project, path="", **kw):
    r = requests.request(method, f"{emu.url}/emulator/v1/projects/{project}{path}", headers=OWNER, timeout=10, **kw)
    assert r.status_code == 200, r.text
    return r.json()


def register(emu, project):
    requests.post(f"{emu.url}/emulator/v1/projects", json={"projectId": project}, timeout=5).raise_for_status()


def seed(emu, project, payloads):
    """A topic `tpc`, a subscription `sub` on it and `payloads` published (left unacknowledged)."""
    assert requests.put(v1(emu, project, "/topics/tpc"), json={}, timeout=5).status_code == 200
    assert requests.put(v1(emu, project, "/subscriptions/sub"), json={"topic": f"projects/{project}/topics/tpc"}, timeout=5).status_code == 200
    msgs = [{"data": base64.b64encode(p).decode(), "attributes": {"i": str(i)}} for i, p in enumerate(payloads)]
    r = requests.post(v1(emu, project, "/topics/tpc:publish"), json={"messages": msgs}, timeout=5)
    assert r.status_code == 200, r.text


def pulled(emu, project):
    r = requests.post(v1(emu, project, "/subscriptions/sub:pull"), json={"maxMessages": 10, "returnImmediately": True}, timeout=10)
    assert r.status_code == 200, r.text
    return sorted(base64.b64decode(m["message"]["data"]) for m in r.json().get("receivedMessages", []))


def topics(emu, project):
    r = requests.get(v1(emu, project, "/topics"), timeout=5)
    assert r.status_code == 200, r.text
    return [t["name"] for t in r.json().get("topics", [])]


def test_reset_and_removal_are_per_project(emulator):
    a, b = "ps-a-" + uuid.uuid4().hex[:6], "ps-b-" + uuid.uuid4().hex[:6]
    register(emulator, a)
    register(emulator, b)
    seed(emulator, a, [b"a1"])
    seed(emulator, b, [b"b1"])
    control(emulator, "POST", a, ":reset")
    assert topics(emulator, a) == []
    assert requests.get(v1(emulator, a, "/subscriptions/sub"), timeout=5).status_code == 404
    assert topics(emulator, b) == [f"projects/{b}/topics/tpc"] and pulled(emulator, b) == [b"b1"]
    control(emulator, "DELETE", b)
    register(emulator, b)
    assert topics(emulator, b) == []


def test_export_then_import_into_a_fresh_emulator(tmp_path):
    project = "demo-pubsub-export"
    first = RunningEmulator(project=project)
    try:
        seed(first, project, [b"one", b"two"])
        assert requests.put(v1(first, project, "/snapshots/snap"), json={"subscription": f"projects/{project}/subscriptions/sub"}, timeout=5).status_code == 200
        control(first, "POST", project, ":export", json={"path": str(tmp_path / "out")})
    finally:
        first.stop()
    second = RunningEmulator(["--import", str(tmp_path / "out")], project=project)
    try:
        assert topics(second, project) == [f"projects/{project}/topics/tpc"]
        assert requests.get(v1(second, project, "/snapshots/snap"), timeout=5).status_code == 200
        assert pulled(second, project) == [b"one", b"two"]
    finally:
        second.stop()


def test_data_dir_keeps_topics_subscriptions_and_the_backlog(tmp_path):
    project = "demo-pubsub-durable"
    data = tmp_path / "data"
    first = RunningEmulator(["--data-dir", str(data)], project=project)
    try:
        seed(first, project, [b"kept-1", b"kept-2", b"acked"])
        r = requests.post(v1(first, project, "/subscriptions/sub:pull"), json={"maxMessages": 10}, timeout=10).json()["receivedMessages"]
        acked = [m["ackId"] for m in r if base64.b64decode(m["message"]["data"]) == b"acked"]
        assert requests.post(v1(first, project, "/subscriptions/sub:acknowledge"), json={"ackIds": acked}, timeout=5).status_code == 200
        nacks = [m["ackId"] for m in r if m["ackId"] not in acked]
        assert requests.post(v1(first, project, "/subscriptions/sub:modifyAckDeadline"), json={"ackIds": nacks, "ackDeadlineSeconds": 0}, timeout=5).status_code == 200
    finally:
        first.stop()
    second = RunningEmulator(["--data-dir", str(data)], project=project)
    try:
        assert topics(second, project) == [f"projects/{project}/topics/tpc"]
        assert pulled(second, project) == [b"kept-1", b"kept-2"]
    finally:
        second.stop()
