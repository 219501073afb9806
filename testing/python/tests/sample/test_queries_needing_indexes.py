"""Queries production serves only with composite indexes, in tests of their own projects (on two
xdist workers when run with -n 2): the session's --firebase-suggested-indexes report must list both."""
from google.cloud.firestore_v1.base_query import FieldFilter


def test_equality_and_order(firebase_project):
    tasks = firebase_project.firestore.collection("tasks")
    tasks.document("t1").set({"owner": "ada", "due": 2})
    q = tasks.where(filter=FieldFilter("owner", "==", "ada")).order_by("due")
    assert [d.id for d in q.stream()] == ["t1"]


def test_array_contains_and_range(firebase_project):
    notes = firebase_project.firestore.collection("notes")
    notes.document("n1").set({"tags": ["x"], "size": 3})
    q = notes.where(filter=FieldFilter("tags", "array_contains", "x")).where(filter=FieldFilter("size", ">", 1))
    assert [d.id for d in q.stream()] == ["n1"]
