"""Composite-index enforcement and suggestions with google-cloud-firestore, as a developer meets
them: a strict emulator (firebase.json `emulators.firestore.strictIndexes`) refuses a query the way
production does, with the console link; the suggested firestore.indexes.json, written to the file
firebase.json names, lets the same query through (re-read without a restart, and after one).
"""
import base64
import json
import re
import urllib.parse

import pytest
import requests
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_admin_v1.types import Index
from google.cloud.firestore_v1 import FieldFilter

from conftest import RunningEmulator

LINK = re.compile(r"https://console\.firebase\.google\.com/v1/r/project/([^/]+)/firestore/indexes\?(create_composite|create_exemption)=([A-Za-z0-9_-]+)")


def decode_link(message):
    """(project, kind, admin.v1 Index) of the console link in a refusal."""
    m = LINK.search(message)
    assert m, message
    blob = m.group(3)
    return m.group(1), m.group(2), Index.deserialize(base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4)))


def fields_of(index):
    out = []
    for f in index.fields:
        if f.array_config:
            out.append((f.field_path, "CONTAINS"))
        else:
            out.append((f.field_path, Index.IndexField.Order(f.order).name))
    return out


@pytest.fixture
def project_dir(tmp_path):
    (tmp_path / "firebase.json").write_text(json.dumps({
        "emulators": {"firestore": {"port": 8080, "strictIndexes": True}},
        "firestore": {"indexes": "firestore.indexes.json"},
    }))
    (tmp_path / "firestore.indexes.json").write_text(json.dumps({"indexes": [], "fieldOverrides": []}))
    return tmp_path


@pytest.fixture
def strict(project_dir, monkeypatch):
    emu = RunningEmulator(["--config", str(project_dir / "firebase.json")], project="demo-indexes")
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", f"{emu.host}:{emu.port}")
    yield emu
    emu.stop()


def seed(db):
    tasks = db.collection("tasks")
    for i, (owner, due) in enumerate([("ann", 3), ("ann", 1), ("bob", 2), ("ann", 2)]):
        tasks.document(f"t{i}").set({"owner": owner, "due": due})
    db.collection("users").document("u1").collection("tasks").document("x").set({"owner": "ann", "due": 9})


def query(db):
    return db.collection("tasks").where(filter=FieldFilter("owner", "==", "ann")).order_by("due", direction=firestore.Query.DESCENDING)


def suggested(emu, **params):
    r = requests.get(f"{emu.url}/emulator/v1/projects/{emu.project}/databases/(default)/indexes:suggested", params=params, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def test_refused_with_link_then_served_once_the_index_is_in_the_file(strict, project_dir, monkeypatch):
    db = firestore.Client(project=strict.project)
    seed(db)
    # Equality filters alone are served by merging single-field indexes.
    assert len(list(db.collection("tasks").where(filter=FieldFilter("owner", "==", "ann")).stream())) == 3

    with pytest.raises(exceptions.FailedPrecondition) as err:
        list(query(db).stream())
    message = err.value.message
    assert message.startswith("The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/demo-indexes/firestore/indexes?create_composite=")
    project, kind, index = decode_link(message)
    assert (project, kind) == ("demo-indexes", "create_composite")
    assert index.name == "projects/demo-indexes/databases/(default)/collectionGroups/tasks/indexes/_"
    assert index.query_scope == Index.QueryScope.COLLECTION
    assert fields_of(index) == [("owner", "ASCENDING"), ("due", "DESCENDING"), ("__name__", "DESCENDING")]

    # The same refusal over REST (the transport-neutral API answers both).
    r = requests.post(f"{strict.url}/v1/projects/demo-indexes/databases/(default)/documents:runQuery",
                      headers={"Authorization": "Bearer owner"}, timeout=10,
                      json={"structuredQuery": {"from": [{"collectionId": "tasks"}],
                                                "where": {"fieldFilter": {"field": {"fieldPath": "owner"}, "op": "EQUAL", "value": {"stringValue": "ann"}}},
                                                "orderBy": [{"field": {"fieldPath": "due"}, "direction": "DESCENDING"}]}})
    assert r.status_code == 400
    body = r.json()
    error = (body[0] if isinstance(body, list) else body)["error"]
    assert error["status"] == "FAILED_PRECONDITION" and error["message"] == message

    # The collection-group form needs a collection-group single-field index (an exemption link).
    with pytest.raises(exceptions.FailedPrecondition) as group_err:
        list(db.collection_group("tasks").where(filter=FieldFilter("owner", "==", "ann")).stream())
    assert group_err.value.message.startswith("The query requires a COLLECTION_GROUP_ASC index for collection tasks and field owner. You can create it here: ")
    _, kind, exemption = decode_link(group_err.value.message)
    assert kind == "create_exemption"
    assert exemption.name == "projects/demo-indexes/databases/(default)/collectionGroups/tasks/fields/owner"
    assert exemption.query_scope == Index.QueryScope.COLLECTION_GROUP

    # The suggested file holds exactly what was refused; written where firebase.json points, it
    # takes effect without a restart.
    file = suggested(strict)
    assert file["indexes"] == [{"collectionGroup": "tasks", "queryScope": "COLLECTION", "fields": [
        {"fieldPath": "owner", "order": "ASCENDING"}, {"fieldPath": "due", "order": "DESCENDING"}, {"fieldPath": "__name__", "order": "DESCENDING"}]}]
    assert file["fieldOverrides"][0]["collectionGroup"] == "tasks" and file["fieldOverrides"][0]["fieldPath"] == "owner"
    assert {"order": "ASCENDING", "queryScope": "COLLECTION_GROUP"} in file["fieldOverrides"][0]["indexes"]
    (project_dir / "firestore.indexes.json").write_text(json.dumps(file, indent=2))

    assert [d.id for d in query(db).stream()] == ["t0", "t3", "t1"]
    assert len(list(db.collection_group("tasks").where(filter=FieldFilter("owner", "==", "ann")).stream())) == 4
    assert suggested(strict, missingOnly="true") == {"indexes": [], "fieldOverrides": []}

    # A fresh start reads the same file.
    strict.stop()
    again = RunningEmulator(["--config", str(project_dir / "firebase.json")], project="demo-indexes")
    try:
        monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", f"{again.host}:{again.port}")
        db2 = firestore.Client(project="demo-indexes")
        seed(db2)
        assert [d.id for d in query(db2).stream()] == ["t0", "t3", "t1"]
    finally:
        again.stop()


def test_suggestions_are_on_without_strict_and_logged_once(emulator):
    db = firestore.Client(project=emulator.project)
    col = db.collection("suggest_tasks")
    col.document("a").set({"tags": ["x"], "rank": 2})
    q = col.where(filter=FieldFilter("tags", "array_contains", "x")).order_by("rank")
    for _ in range(3):
        assert [d.id for d in q.stream()] == ["a"]
    file = suggested(emulator)
    assert {"collectionGroup": "suggest_tasks", "queryScope": "COLLECTION", "fields": [
        {"fieldPath": "tags", "arrayConfig": "CONTAINS"}, {"fieldPath": "rank", "order": "ASCENDING"},
        {"fieldPath": "__name__", "order": "ASCENDING"}]} in file["indexes"]
    lines = [l for l in emulator.log if "needs an index" in l and "suggest_tasks" in l]
    assert len(lines) == 1, lines
    assert "indexes:suggested" in lines[0]
