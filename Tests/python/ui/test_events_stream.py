"""The store's change feed as Server-Sent Events (GET /emulator/v1/projects/{p}/events), the UI's
live view: commits over REST and gRPC, deletes, and resets arrive as `change` events."""
import json
import queue
import threading
import uuid

import requests
from google.cloud import firestore


def follow(emulator, project):
    """Reads `change` events into a queue on a thread; returns the queue and the response."""
    r = requests.get(f"{emulator.url}/emulator/v1/projects/{project}/events", stream=True, timeout=30)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/event-stream")
    assert r.headers.get("Transfer-Encoding") == "chunked"
    q = queue.Queue()

    def pump():
        try:
            for line in r.iter_lines(decode_unicode=True):
                if line.startswith("data: "):
                    q.put(json.loads(line[6:]))
        except Exception:  # noqa: BLE001 - the test closes the response
            pass

    threading.Thread(target=pump, daemon=True).start()
    return q, r


def test_commits_deletes_and_resets_arrive_as_events(emulator, monkeypatch):
    pid = "events-" + uuid.uuid4().hex[:6]
    requests.post(emulator.url + "/emulator/v1/projects", json={"projectId": pid}, timeout=5).raise_for_status()
    q, r = follow(emulator, pid)
    try:
        requests.patch(f"{emulator.url}/v1/projects/{pid}/databases/(default)/documents/t/a", json={"fields": {}},
                       headers={"Authorization": "Bearer owner"}, timeout=5).raise_for_status()
        e = q.get(timeout=10)
        assert e["paths"] == ["t/a"] and e["database"] == "(default)" and not e["replaced"]
        firestore.Client(project=pid).document("t/b").set({"via": "grpc"})
        assert q.get(timeout=10)["paths"] == ["t/b"]
        requests.post(f"{emulator.url}/emulator/v1/projects/{pid}:reset", timeout=5).raise_for_status()
        assert q.get(timeout=10)["replaced"] is True
    finally:
        r.close()


def test_unknown_project_is_404(emulator):
    r = requests.get(f"{emulator.url}/emulator/v1/projects/nobody-{uuid.uuid4().hex[:6]}/events", timeout=5)
    assert r.status_code == 404
