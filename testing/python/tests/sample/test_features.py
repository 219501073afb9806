"""The fixtures a user suite reaches for, one test each, and one test that fails on purpose."""
import asyncio
import os
import pathlib

import pytest
from google.api_core import exceptions

RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{db}/documents {
    match /tasks/{id} {
      allow read, write: if request.auth != null && request.auth.uid == request.resource.data.userId;
    }
  }
}
"""


def test_reports_host(firebase_emulator, firebase_project):
    out = pathlib.Path(os.environ["RENDEZVOUS_DIR"]) / f"host-{os.getpid()}"
    out.write_text(firebase_emulator.host + "\n" + os.environ.get("FIREBASE_EMULATOR_HUB", ""))
    assert firebase_project.project_id.startswith("t-test-reports-host-")


def test_users_and_admin_auth(firebase_project, firebase_auth):
    uid, token = firebase_project.create_user(claims={"admin": True})
    assert firebase_auth.get_user(uid).custom_claims == {"admin": True}
    assert firebase_auth.verify_id_token(token)["admin"] is True
    assert firebase_project.create_user(anonymous=True).token_claims["provider_id"] == "anonymous"
    assert firebase_project.create_user(provider="apple.com").provider == "apple.com"
    mfa = firebase_project.create_user(mfa_phone="+15555550100")
    assert mfa.token_claims["firebase"]["sign_in_second_factor"] == "phone"


def test_clock_and_wait_idle(firebase_clock, firebase_project):
    t = firebase_clock.freeze("2030-01-01T00:00:00Z")
    assert firebase_clock.advance(90) == t.replace(minute=1, second=30)
    firebase_project.wait_idle()


def test_faults(firebase_project, firebase_faults):
    firebase_faults.add("firestore", method="commit", status="UNAVAILABLE", times=1)
    doc = firebase_project.firestore.document("tasks/t1")
    with pytest.raises(exceptions.ServiceUnavailable):
        doc.set({"n": 1}, retry=None)
    assert not doc.get().exists
    doc.set({"n": 1}, retry=None)
    assert firebase_faults.list()[0]["fired"] == 1


def test_rules_for_one_test(firebase_project, firebase_rules):
    firebase_rules.set(RULES)
    user = firebase_project.create_user()
    import requests
    url = f"{firebase_project.url}/v1/projects/{firebase_project.project_id}/databases/(default)/documents/tasks/t1"
    body = {"fields": {"userId": {"stringValue": "someone-else"}}}
    assert requests.patch(url, json=body, headers=user.headers, timeout=10).status_code == 403
    assert firebase_rules.denials()[0]["path"] == "tasks/t1"


@pytest.mark.firebase(seed=42, clock="2031-05-01T00:00:00Z")
def test_marker_configures_the_project(firebase_project):
    assert firebase_project.clock.now().year == 2031
    assert firebase_project.firestore.collection("tasks").add({"n": 1})[1].id


def seed_tasks(project):
    project.firestore.document("tasks/seeded").set({"title": "from seed"})


@pytest.mark.parametrize("n", range(3))
def test_snapshot_restored_per_test(firebase_snapshot, n):
    project = firebase_snapshot(seed_tasks)
    docs = sorted(d.id for d in project.firestore.collection("tasks").stream())
    assert docs == ["seeded"]
    project.firestore.document(f"tasks/extra{n}").set({"n": n})


@pytest.mark.firebase(shared=True)
def test_shared_project_is_reset(firebase_project, firebase_emulator):
    assert firebase_project.project_id == firebase_emulator.project_id
    assert not firebase_project.firestore.document("left/over").get().exists
    firebase_project.firestore.document("left/over").set({"x": 1})


def test_async_client(firebase_project):
    async def run():
        db = firebase_project.async_firestore
        await db.document("tasks/a").set({"n": 1})
        return (await db.document("tasks/a").get()).to_dict()
    assert asyncio.run(run()) == {"n": 1}


def test_fails_on_purpose(firebase_project):
    firebase_project.firestore.document("tasks/t1").set({"n": 1})
    assert firebase_project.firestore.document("tasks/t1").get().to_dict() == {"n": 2}, "fails on purpose"
