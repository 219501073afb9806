"""google-cloud-firestore (PyPI) against the emulator over REST: the generated low-level client
and the high-level Client with its API swapped for the REST transport (see clients.md B.2)."""
import threading
import uuid

import google.auth.credentials
import pytest
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1.services.firestore import FirestoreClient
from google.cloud.firestore_v1.types import document as document_pb
from google.cloud.firestore_v1.types import query as query_pb


class OwnerCredentials(google.auth.credentials.Credentials):
    """Sends `Authorization: Bearer owner`, as the Admin SDKs do against emulators."""

    def __init__(self):
        super().__init__()
        self.token = "owner"

    def refresh(self, request):
        self.token = "owner"

    @property
    def expired(self):
        return False

    @property
    def valid(self):
        return True


def rest_api(emulator):
    return FirestoreClient(transport="rest", client_options={"api_endpoint": emulator.url}, credentials=OwnerCredentials())


class RestClient(firestore.Client):
    """The high-level client, talking REST to the emulator."""

    def __init__(self, emulator):
        super().__init__(project=emulator.project, credentials=OwnerCredentials())
        self._rest = rest_api(emulator)

    @property
    def _firestore_api(self):
        return self._rest


@pytest.fixture
def db(emulator):
    return RestClient(emulator)


@pytest.fixture
def col(db):
    return db.collection("py-" + uuid.uuid4().hex[:8])


def test_low_level_crud(emulator):
    api = rest_api(emulator)
    parent = f"projects/{emulator.project}/databases/(default)/documents/rooms/r1"
    created = api.create_document(request={"parent": parent, "collection_id": "msgs", "document_id": "m1",
                                           "document": {"fields": {"text": {"string_value": "hi"}, "n": {"integer_value": 7}}}})
    assert created.name.endswith("/rooms/r1/msgs/m1")
    got = api.get_document(request={"name": created.name})
    assert got.fields["text"].string_value == "hi"
    assert got.fields["n"].integer_value == 7
    with pytest.raises(exceptions.Conflict):
        api.create_document(request={"parent": parent, "collection_id": "msgs", "document_id": "m1", "document": {}})
    api.delete_document(request={"name": created.name})
    with pytest.raises(exceptions.NotFound):
        api.get_document(request={"name": created.name})


def test_set_get_update_delete(col):
    ref = col.document("alice")
    ref.set({"name": "Alice", "age": 30, "tags": ["a"], "nested": {"x": 1}})
    snap = ref.get()
    assert snap.exists and snap.to_dict() == {"name": "Alice", "age": 30, "tags": ["a"], "nested": {"x": 1}}
    ref.update({"age": 31, "nested.y": 2})
    assert ref.get().to_dict()["nested"] == {"x": 1, "y": 2}
    ref.set({"extra": True}, merge=True)
    assert ref.get().to_dict()["extra"] is True
    ref.delete()
    assert not ref.get().exists


def test_add_and_server_timestamp_and_transforms(col):
    _, ref = col.add({"title": "t", "at": firestore.SERVER_TIMESTAMP, "n": 1})
    assert len(ref.id) == 20
    data = ref.get().to_dict()
    assert data["at"] is not None
    ref.update({"n": firestore.Increment(2), "list": firestore.ArrayUnion([1, 2]), "at": firestore.DELETE_FIELD})
    data = ref.get().to_dict()
    assert data["n"] == 3 and data["list"] == [1, 2] and "at" not in data
    ref.update({"list": firestore.ArrayRemove([1])})
    assert ref.get().to_dict()["list"] == [2]


def test_queries(col):
    for i in range(10):
        col.document(f"d{i}").set({"i": i, "even": i % 2 == 0, "tags": ["all", f"t{i % 3}"]})
    q = col.where(filter=firestore.FieldFilter("i", ">=", 3)).where(filter=firestore.FieldFilter("even", "==", True)).order_by("i").limit(2)
    assert [d.id for d in q.stream()] == ["d4", "d6"]
    assert [d.get("i") for d in col.order_by("i", direction=firestore.Query.DESCENDING).limit(3).stream()] == [9, 8, 7]
    assert sorted(d.id for d in col.where(filter=firestore.FieldFilter("tags", "array_contains", "t1")).stream()) == ["d1", "d4", "d7"]
    assert sorted(d.id for d in col.where(filter=firestore.FieldFilter("i", "in", [1, 5, 42])).stream()) == ["d1", "d5"]
    assert [d.id for d in col.order_by("i").start_after({"i": 7}).stream()] == ["d8", "d9"]
    assert [d.id for d in col.order_by("i").limit_to_last(2).get()] == ["d8", "d9"]
    either = firestore.Or([firestore.FieldFilter("i", "==", 0), firestore.FieldFilter("i", "==", 9)])
    assert sorted(d.id for d in col.where(filter=either).stream()) == ["d0", "d9"]


def test_aggregations(col):
    for i in range(5):
        col.add({"v": i})
    assert col.count().get()[0][0].value == 5
    assert col.sum("v").get()[0][0].value == 10
    assert col.avg("v").get()[0][0].value == 2.0


def test_collection_group(db):
    tag = uuid.uuid4().hex[:8]
    db.collection("groups").document("a").collection(f"cg{tag}").document("x").set({"k": 1})
    db.collection("groups").document("b").collection(f"cg{tag}").document("y").set({"k": 2})
    assert sorted(d.id for d in db.collection_group(f"cg{tag}").stream()) == ["x", "y"]


def test_batch_and_get_all(db, col):
    batch = db.batch()
    for i in range(3):
        batch.set(col.document(f"b{i}"), {"i": i})
    batch.commit()
    snaps = list(db.get_all([col.document("b0"), col.document("b2"), col.document("missing")]))
    assert {s.id: s.exists for s in snaps} == {"b0": True, "b2": True, "missing": False}


def test_transaction_reads_then_writes(db, col):
    ref = col.document("counter")
    ref.set({"n": 0})

    @firestore.transactional
    def bump(tx):
        n = ref.get(transaction=tx).get("n")
        tx.update(ref, {"n": n + 1})
        return n + 1

    assert bump(db.transaction()) == 1
    assert ref.get().get("n") == 1


def test_transactions_under_contention_lose_no_update(emulator, col):
    ref = col.document("contended")
    ref.set({"n": 0})
    errors = []

    def worker():
        client = RestClient(emulator)
        r = client.collection(col.id).document("contended")

        @firestore.transactional
        def bump(tx):
            n = r.get(transaction=tx).get("n")
            tx.update(r, {"n": n + 1})

        # Over REST, google-api-core maps HTTP 409 to Conflict (the parent of Aborted), so the
        # client's own retry (which catches Aborted) does not fire: retry here, as apps on REST do.
        try:
            for _ in range(5):
                for _attempt in range(100):
                    try:
                        bump(client.transaction())
                        break
                    except exceptions.Conflict as e:
                        assert "Too much contention" in str(e)
                else:
                    raise AssertionError("no commit after 100 attempts")
        except Exception as e:  # noqa: BLE001 - surfaced below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert ref.get().get("n") == 20


def test_bad_requests_get_invalid_argument(emulator):
    api = rest_api(emulator)
    parent = f"projects/{emulator.project}/databases/(default)/documents"
    with pytest.raises(exceptions.BadRequest):
        list(api.run_query(request={"parent": parent, "structured_query": query_pb.StructuredQuery(
            from_=[query_pb.StructuredQuery.CollectionSelector(collection_id="c")], limit={"value": -1})}))
    with pytest.raises(exceptions.BadRequest):
        api.create_document(request={"parent": parent + "/rooms/r1", "collection_id": "c", "document_id": "x",
                                     "document": document_pb.Document(fields={"__bad__": {"string_value": "x"}})})
