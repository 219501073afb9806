"""google-cloud-firestore's high-level Client as users write it, over its default gRPC transport
(FIRESTORE_EMULATOR_HOST) and over REST: one suite, both transports, so they must agree."""
import asyncio
import datetime
import math
import threading
import time
import uuid

import pytest
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1 import FieldFilter, Or
from google.cloud.firestore_v1.vector import Vector

from firestore.test_firestore_rest import RestClient


@pytest.fixture(params=["grpc", "rest"])
def transport(request):
    return request.param


@pytest.fixture
def db(emulator, transport):
    if transport == "grpc":
        return firestore.Client(project=emulator.project)  # FIRESTORE_EMULATOR_HOST is set by the fixture
    return RestClient(emulator)


@pytest.fixture
def col(db):
    return db.collection("c-" + uuid.uuid4().hex[:10])


def test_grpc_is_the_default_transport(emulator):
    db = firestore.Client(project=emulator.project)
    assert "Grpc" in type(db._firestore_api._transport).__name__


def test_every_value_type_round_trips(db, col):
    when = datetime.datetime(2024, 2, 29, 12, 30, 15, 123456, tzinfo=datetime.timezone.utc)
    other = col.document("other")
    data = {
        "null": None, "t": True, "f": False, "int": 2**62, "neg": -5, "zero": 0, "dbl": 1.5, "negzero": -0.0,
        "inf": math.inf, "ninf": -math.inf, "str": "héllo 😀", "empty": "", "bytes": bytes(range(256)), "ts": when,
        "geo": firestore.GeoPoint(52.52, 13.405), "ref": other, "arr": [1, "a", None, {"m": [True]}], "map": {"a": {"b": {"c": 1}}},
        "emptymap": {}, "emptyarr": [], "vec": Vector([1.0, 2.5, -3.0]),
    }
    col.document("all").set(data)
    got = col.document("all").get().to_dict()
    assert got["ref"].path == other.path
    got.pop("ref"), data.pop("ref")
    assert got["negzero"] == 0.0 and math.copysign(1, got["negzero"]) == -1
    assert got == data
    col.document("nan").set({"x": math.nan})
    assert math.isnan(col.document("nan").get().to_dict()["x"])


def test_crud_and_update_semantics(db, col):
    ref = col.document("a")
    ref.set({"name": "A", "n": 1, "nested": {"x": 1, "y": 2}})
    ref.update({"n": 2, "nested.x": 10})
    assert ref.get().to_dict() == {"name": "A", "n": 2, "nested": {"x": 10, "y": 2}}
    ref.set({"extra": True}, merge=True)
    assert ref.get().to_dict()["extra"] is True
    ref.update({"name": firestore.DELETE_FIELD})
    assert "name" not in ref.get().to_dict()
    snap = ref.get(field_paths=["nested.y"])
    assert snap.to_dict() == {"nested": {"y": 2}}
    ref.delete()
    assert not ref.get().exists


def test_transforms(db, col):
    ref = col.document("t")
    ref.set({"n": 1, "tags": ["a"], "hi": 5, "lo": 5})
    ref.update({"at": firestore.SERVER_TIMESTAMP, "n": firestore.Increment(2), "tags": firestore.ArrayUnion(["b", "a"]),
                "hi": firestore.Maximum(9), "lo": firestore.Minimum(1)})
    d = ref.get().to_dict()
    assert d["n"] == 3 and d["tags"] == ["a", "b"] and d["hi"] == 9 and d["lo"] == 1
    assert isinstance(d["at"], datetime.datetime)
    ref.update({"tags": firestore.ArrayRemove(["a"])})
    assert ref.get().to_dict()["tags"] == ["b"]


@pytest.fixture
def people(col):
    rows = [("ann", 31, "de", ["x"]), ("bob", 25, "fr", ["y", "z"]), ("cat", 40, "de", []), ("dan", 25, "us", ["z"]), ("eve", 35, "fr", ["x", "z"])]
    for name, age, country, tags in rows:
        col.document(name).set({"name": name, "age": age, "country": country, "tags": tags})
    return col


def names(q):
    return [d.id for d in q.stream()]


def test_queries(people):
    c = people
    assert names(c.where(filter=FieldFilter("age", "==", 25)).order_by("name")) == ["bob", "dan"]
    assert names(c.where(filter=FieldFilter("age", ">", 30)).order_by("age")) == ["ann", "eve", "cat"]
    assert names(c.where(filter=FieldFilter("age", "<=", 25))) == ["bob", "dan"]
    assert names(c.where(filter=FieldFilter("country", "!=", "de")).order_by("country").order_by("name")) == ["bob", "eve", "dan"]
    assert names(c.where(filter=FieldFilter("country", "in", ["us", "fr"])).order_by("name")) == ["bob", "dan", "eve"]
    assert names(c.where(filter=FieldFilter("country", "not-in", ["de", "fr"]))) == ["dan"]
    assert names(c.where(filter=FieldFilter("tags", "array_contains", "z")).order_by("name")) == ["bob", "dan", "eve"]
    assert names(c.where(filter=FieldFilter("tags", "array_contains_any", ["x", "y"])).order_by("name")) == ["ann", "bob", "eve"]
    assert names(c.where(filter=Or([FieldFilter("age", "==", 40), FieldFilter("name", "==", "bob")])).order_by("name")) == ["bob", "cat"]
    assert names(c.order_by("age", direction=firestore.Query.DESCENDING).limit(2)) == ["cat", "eve"]
    assert [d.id for d in c.order_by("age").limit_to_last(2).get()] == ["eve", "cat"]
    assert names(c.order_by("name").offset(3)) == ["dan", "eve"]
    assert names(c.order_by("age").order_by("name").start_after({"age": 25, "name": "bob"}).end_at({"age": 35, "name": "eve"})) == ["dan", "ann", "eve"]
    snap = c.document("bob").get()
    assert names(c.order_by("name").start_at(snap).end_before({"name": "eve"})) == ["bob", "cat", "dan"]
    assert [d.to_dict() for d in c.select(["name"]).where(filter=FieldFilter("name", "==", "ann")).stream()] == [{"name": "ann"}]


def test_aggregations(people):
    res = people.where(filter=FieldFilter("country", "==", "fr")).count(alias="n").get()
    assert res[0][0].value == 2
    from google.cloud.firestore_v1 import aggregation
    q = aggregation.AggregationQuery(people._query())
    q.count(alias="c").sum("age", alias="s").avg("age", alias="a")
    values = {r.alias: r.value for r in q.get()[0]}
    assert values == {"c": 5, "s": 156, "a": 31.2}


def test_collection_group(db):
    group = "g" + uuid.uuid4().hex[:8]
    db.collection("rooms").document("r1").collection(group).document("m1").set({"n": 1})
    db.collection("rooms").document("r2").collection(group).document("m2").set({"n": 2})
    db.collection(group).document("m3").set({"n": 3})
    got = sorted(d.reference.path for d in db.collection_group(group).where(filter=FieldFilter("n", ">=", 2)).stream())
    assert got == [f"{group}/m3", f"rooms/r2/{group}/m2"]


def test_get_all_with_missing_and_field_paths(db, col):
    col.document("x").set({"a": 1, "b": 2})
    refs = [col.document("x"), col.document("missing")]
    snaps = {s.id: s for s in db.get_all(refs, field_paths=["a"])}
    assert snaps["x"].to_dict() == {"a": 1}
    assert not snaps["missing"].exists


def test_list_collections_and_documents(db, col):
    col.document("p").set({})
    col.document("p").collection("kids").document("k").set({})
    col.document("q").collection("more").document("m").set({})  # q itself is missing
    assert sorted(c.id for c in col.document("p").collections()) == ["kids"]
    assert col.id in [c.id for c in db.collections()]
    listed = sorted(d.id for d in col.list_documents())
    assert listed == ["p", "q"], "list_documents shows missing parents"
    assert sorted(d.id for d in col.list_documents(page_size=1)) == ["p", "q"]


def test_batch_and_bulk_writer(db, col):
    batch = db.batch()
    batch.set(col.document("b1"), {"n": 1})
    batch.set(col.document("b2"), {"n": 2})
    batch.update(col.document("b1"), {"n": 11})
    results = batch.commit()
    assert len(results) == 3
    assert col.document("b1").get().to_dict() == {"n": 11}
    bw = db.bulk_writer()
    for i in range(60):
        bw.create(col.document(f"bulk{i}"), {"i": i})
    bw.close()
    assert col.where(filter=FieldFilter("i", ">=", 0)).count().get()[0][0].value == 60
    db.recursive_delete(col)
    assert list(col.stream()) == []


def test_transaction_reads_then_writes(db, col):
    col.document("acct").set({"balance": 10})

    @firestore.transactional
    def move(tx, amount):
        snap = col.document("acct").get(transaction=tx)
        tx.update(col.document("acct"), {"balance": snap.get("balance") - amount})
        tx.set(col.document("log"), {"moved": amount})

    move(db.transaction(), 3)
    assert col.document("acct").get().to_dict() == {"balance": 7}
    assert col.document("log").get().to_dict() == {"moved": 3}


def test_transactions_under_contention_retry_and_lose_nothing(emulator, transport):
    if transport == "rest":
        pytest.skip("over REST, google-api-core maps ABORTED (409) to Conflict, which @transactional does not retry (docs/store.md)")
    db = firestore.Client(project=emulator.project)
    ref = db.collection("contention").document(uuid.uuid4().hex)
    ref.set({"n": 0})
    errors = []

    def worker():
        client = firestore.Client(project=emulator.project)

        @firestore.transactional
        def bump(tx):
            n = client.document(ref.path).get(transaction=tx).get("n")
            tx.update(client.document(ref.path), {"n": n + 1})

        try:
            for _ in range(5):
                bump(client.transaction(max_attempts=50))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert ref.get().to_dict() == {"n": 30}


def quick(fn, exc):
    started = time.time()
    with pytest.raises(exc) as info:
        fn()
    assert time.time() - started < 3, "errors must come back at once, not after retries"
    return info.value


def test_errors_map_to_the_right_exceptions_quickly(db, col, transport):
    ref = col.document("e")
    e = quick(lambda: ref.update({"x": 1}), exceptions.NotFound)
    assert "No document to update: " in str(e) and ref.id in str(e)
    ref.set({"x": 1})
    e = quick(lambda: col.document("e").create({"x": 2}), exceptions.Conflict)  # ALREADY_EXISTS is a Conflict
    assert "Document already exists: " in str(e)
    stale = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
    # FAILED_PRECONDITION: gRPC gives FailedPrecondition; REST's HTTP 400 gives its base class BadRequest.
    quick(lambda: ref.delete(option=db.write_option(last_update_time=stale)), exceptions.BadRequest)
    quick(lambda: list(db.collection("x").where(filter=FieldFilter("n", "in", [])).stream()), exceptions.BadRequest)


def test_named_database(emulator, transport):
    if transport == "grpc":
        named = firestore.Client(project=emulator.project, database="other-db")
        default = firestore.Client(project=emulator.project)
    else:
        pytest.skip("RestClient targets (default); named databases over REST are covered by Tests/python/firestore")
    doc = "named/" + uuid.uuid4().hex
    named.document(doc).set({"where": "named"})
    assert named.document(doc).get().to_dict() == {"where": "named"}
    assert not default.document(doc).get().exists


def test_read_time_reads_see_the_past(db, col, transport):
    ref = col.document("r")
    first = ref.set({"v": 1}).update_time
    ref.set({"v": 2})
    col.document("later").set({"v": 3})
    assert ref.get(read_time=first).to_dict() == {"v": 1}
    assert ref.get().to_dict() == {"v": 2}
    assert [d.id for d in col.stream(read_time=first)] == ["r"]
    assert sorted(d.id for d in col.list_documents(read_time=first)) == ["r"]
    assert col.count().get(read_time=first)[0][0].value == 1
    snaps = list(db.get_all([ref, col.document("later")], read_time=first))
    assert {s.id: s.exists for s in snaps} == {"r": True, "later": False}


def test_async_client(emulator):
    asyncio.run(async_client_flow(emulator))


async def async_client_flow(emulator):
    db = firestore.AsyncClient(project=emulator.project)
    col = db.collection("async-" + uuid.uuid4().hex[:8])
    await col.document("a").set({"n": 1})
    await col.document("b").set({"n": 2})
    assert (await col.document("a").get()).to_dict() == {"n": 1}
    assert [d.id async for d in col.where(filter=FieldFilter("n", ">", 1)).stream()] == ["b"]
    assert (await col.count().get())[0][0].value == 2

    @firestore.async_transactional
    async def bump(tx):
        snap = await col.document("a").get(transaction=tx)
        tx.update(col.document("a"), {"n": snap.get("n") + 1})

    await bump(db.transaction())
    assert (await col.document("a").get()).to_dict() == {"n": 2}
    batch = db.batch()
    batch.delete(col.document("a"))
    await batch.commit()
    assert not (await col.document("a").get()).exists
    refs = [r async for r in col.list_documents()]
    assert [r.id for r in refs] == ["b"]


def test_production_messages_and_codes_client_suites_check(db, col):
    """Strings and codes google-cloud-firestore's own system tests assert (found by running them)."""
    from google.cloud.firestore_v1 import aggregation
    col.document("m").set({"n": 1})
    q = aggregation.AggregationQuery(col._query())
    q.count(alias="total").count(alias="total")
    e = quick(lambda: q.get(), exceptions.BadRequest)
    assert "Aggregation aliases contain duplicate alias" in str(e)
    e = quick(lambda: aggregation.AggregationQuery(col._query()).get(), exceptions.BadRequest)
    assert "Aggregations can not be empty" in str(e)
    snap = col.document("m").get()
    future = snap.update_time + datetime.timedelta(hours=1)
    quick(lambda: col.document("m").delete(option=db.write_option(last_update_time=future)), exceptions.BadRequest)
    assert col.document("m").get().exists


def test_limited_sum_and_avg_read_in_the_field_order(col):
    """A limited sum/avg takes the first documents in the summed field's order (its index), as
    production does: the 12 smallest products of a 5x5 table sum to 5."""
    for a in range(5):
        for b in range(5):
            col.add({"stats": {"product": a * b}})
    assert col.sum("stats.product", alias="t").get()[0][0].value == 100
    assert col.limit(12).sum("stats.product", alias="t").get()[0][0].value == 5
    assert col.limit(12).avg("stats.product", alias="t").get()[0][0].value == 5 / 12
    assert col.limit(12).count(alias="t").get()[0][0].value == 12
