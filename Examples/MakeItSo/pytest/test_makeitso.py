"""The MakeItSo backend under pytest with pytest-firebase-emulator (docs/testing.md).

Rules tests get a fresh project each (fresh projects use the emulator's rules file). The functions
live in the example's own project (demo-makeitso), so the tests that call them share it:
``@pytest.mark.firebase(shared=True)`` resets it afterwards and runs them one at a time, also
across xdist workers.

    swift build && pip install ./testing/python
    pytest Examples/MakeItSo/pytest -n 2
"""
import pytest
import requests


def task(title, owner, completed=False):
    return {"fields": {"title": {"stringValue": title}, "completed": {"booleanValue": completed}, "userId": {"stringValue": owner}}}


def add_task(project, user, title, owner=None):
    """What the app does: a client write with the user's ID token, judged by the rules."""
    return requests.post(f"{project.documents_url}/tasks", json=task(title, owner or user.uid), headers=user.headers, timeout=10)


def my_tasks(project, user):
    """Rules are not filters: the app's query must name the caller's uid."""
    query = {"structuredQuery": {"from": [{"collectionId": "tasks"}], "where": {"fieldFilter": {
        "field": {"fieldPath": "userId"}, "op": "EQUAL", "value": {"stringValue": user.uid}}}}}
    r = requests.post(f"{project.documents_url}:runQuery", json=query, headers=user.headers, timeout=10)
    r.raise_for_status()
    return sorted(e["document"]["fields"]["title"]["stringValue"] for e in r.json() if "document" in e)


def test_tasks_are_private(firebase_project):
    alice = firebase_project.create_user(anonymous=True)
    bob = firebase_project.create_user(anonymous=True)
    assert add_task(firebase_project, alice, "buy milk").status_code == 200
    assert my_tasks(firebase_project, alice) == ["buy milk"]
    assert my_tasks(firebase_project, bob) == []
    # Bob cannot write a task in Alice's name, and the rules log says which condition decided.
    assert add_task(firebase_project, bob, "spoof", owner=alice.uid).status_code == 403
    denial = firebase_project.rules.denials()[0]
    assert denial["method"] == "create" and "request.resource.data.userId == request.auth.uid" in denial["explanation"]


@pytest.mark.parametrize("title", ["", "x" * 501])
def test_invalid_titles_are_refused(firebase_project, title):
    user = firebase_project.create_user()
    assert add_task(firebase_project, user, title).status_code == 403


def test_the_backend_sees_every_task(firebase_project):
    alice, bob = firebase_project.create_user(), firebase_project.create_user()
    add_task(firebase_project, alice, "a")
    add_task(firebase_project, bob, "b")
    # firebase_project.firestore is the admin client: no rules.
    docs = firebase_project.firestore.collection("tasks").stream()
    assert sorted(d.to_dict()["title"] for d in docs) == ["a", "b"]


@pytest.mark.firebase(shared=True)
def test_the_tablet_migrates_its_anonymous_tasks(firebase_project):
    phone = firebase_project.create_user(anonymous=True)
    add_task(firebase_project, phone, "buy milk")
    alice = firebase_project.users.idp("apple.com", sub="apple-alice", email="alice@privaterelay.appleid.com", id_token=phone.id_token)
    assert alice.uid == phone.uid  # linking keeps the uid
    tablet = firebase_project.create_user(anonymous=True)
    add_task(firebase_project, tablet, "water plants")

    signed_in = firebase_project.users.idp("apple.com", sub="apple-alice")
    result = firebase_project.call("migrateTasks", {"idToken": tablet.id_token}, user=signed_in)
    assert result == {"updatedDocCount": 1, "anonymousUserId": tablet.uid, "permanentUserId": alice.uid}

    firebase_project.wait_idle()  # the trigger keeping users/{uid}.taskCount has run
    assert my_tasks(firebase_project, signed_in) == ["buy milk", "water plants"]
    assert firebase_project.firestore.document(f"users/{alice.uid}").get().to_dict()["taskCount"] == 2
    assert any(i["function"] == "migrateTasks" and i["outcome"] == "ok" for i in firebase_project.invocations())


@pytest.mark.firebase(shared=True)
def test_a_stale_sign_in_cannot_migrate(firebase_project):
    tablet = firebase_project.create_user(anonymous=True)
    alice = firebase_project.create_user(provider="apple.com")
    firebase_project.clock.advance(6 * 60)  # the function wants a sign-in at most 5 minutes old
    alice.refresh()
    with pytest.raises(Exception, match="recent sign-in"):
        firebase_project.call("migrateTasks", {"idToken": tablet.id_token}, user=alice)
