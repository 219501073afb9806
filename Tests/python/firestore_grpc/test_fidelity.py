"""Defects a differential run against Google's Firestore emulator found (issue 27), pinned with
google-cloud-firestore over gRPC and REST: names, keys and strings are UTF-8 byte strings (two
Unicode spellings of one text are two ids, keys and values), and values production refuses are
refused. (A refusal is INVALID_ARGUMENT over gRPC, 400 over REST: both are `BadRequest`.)"""
import math
import uuid

import pytest
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1 import FieldFilter
from google.cloud.firestore_v1.vector import Vector

from firestore.test_firestore_rest import RestClient

COMPOSED = "\u00e9"  # é, one code point
DECOMPOSED = "e\u0301"  # e + combining acute: canonically equivalent, other bytes


@pytest.fixture(params=["grpc", "rest"])
def db(emulator, request):
    if request.param == "grpc":
        return firestore.Client(project=emulator.project)
    return RestClient(emulator)


@pytest.fixture
def col(db):
    return db.collection("fid-" + uuid.uuid4().hex[:10])


def test_unicode_equivalent_document_ids_are_two_documents(col):
    col.document("k" + DECOMPOSED).set({"v": "decomposed"})
    col.document("k" + COMPOSED).set({"v": "composed"})
    assert col.document("k" + DECOMPOSED).get().to_dict() == {"v": "decomposed"}
    assert col.document("k" + COMPOSED).get().to_dict() == {"v": "composed"}
    assert sorted(d.id for d in col.stream()) == sorted(["k" + DECOMPOSED, "k" + COMPOSED])
    # The Angstrom sign and A-ring are canonically equivalent too.
    col.document("\u212b").set({"v": 1})
    col.document("\u00c5").set({"v": 2})
    assert col.document("\u212b").get().to_dict() == {"v": 1}
    assert len(list(col.stream())) == 4


def test_unicode_equivalent_collection_ids_are_two_collections(db, col):
    parent = col.document("p")
    parent.collection("c" + DECOMPOSED).document("a").set({"n": 1})
    parent.collection("c" + COMPOSED).document("b").set({"n": 2})
    ids = sorted(c.id for c in parent.collections())
    assert ids == sorted(["c" + DECOMPOSED, "c" + COMPOSED])
    assert [d.id for d in parent.collection("c" + COMPOSED).stream()] == ["b"]


def test_unicode_equivalent_map_keys_are_two_fields(col):
    ref = col.document("m")
    ref.set({"m": {DECOMPOSED: 1, COMPOSED: 2}, DECOMPOSED: "a", COMPOSED: "b"})
    got = ref.get().to_dict()
    assert got == {"m": {DECOMPOSED: 1, COMPOSED: 2}, DECOMPOSED: "a", COMPOSED: "b"}
    assert len(got["m"]) == 2


def test_string_equality_does_not_match_the_other_normalisation(col):
    col.document("a").set({"s": DECOMPOSED})
    col.document("b").set({"s": COMPOSED})
    got = [d.id for d in col.where(filter=FieldFilter("s", "==", COMPOSED)).stream()]
    assert got == ["b"]
    # Byte order: "e" (0x65) + U+0301 sorts before U+00E9 (0xC3 0xA9).
    assert [d.id for d in col.order_by("s").stream()] == ["a", "b"]


def test_geo_point_nan_is_refused(col):
    with pytest.raises(exceptions.BadRequest):
        col.document("g").set({"g": firestore.GeoPoint(math.nan, 0)})
    assert not col.document("g").get().exists


@pytest.mark.parametrize("vector", [[], [math.nan]], ids=["empty", "nan"])
def test_vectors_production_refuses_are_refused(col, vector):
    with pytest.raises(exceptions.BadRequest):
        col.document("v").set({"v": Vector(vector)})
    assert not col.document("v").get().exists


def test_in_with_array_operands(col):
    col.document("w").set({"regions": ["west_coast"]})
    col.document("e").set({"regions": ["east_coast"]})
    col.document("x").set({"regions": ["west_coast", "east_coast"]})
    got = sorted(d.id for d in col.where(filter=FieldFilter("regions", "in", [["west_coast"], ["east_coast"]])).stream())
    assert got == ["e", "w"]


def test_sum_counts_only_documents_with_every_aggregated_field(col):
    col.document("a").set({"n": 1})
    col.document("b").set({"n": 2})
    col.document("c").set({"other": 1})
    agg = col.count(alias="c").sum("n", alias="s")
    got = {r.alias: r.value for r in agg.get()[0]}
    assert got == {"c": 2, "s": 3}


def test_duplicate_in_values_count_once_towards_the_disjunction_limit(col):
    col.document("a").set({"a": 1, "b": [3]})
    q = col.where(filter=FieldFilter("a", "in", [1, 1])).where(filter=FieldFilter("b", "array_contains_any", list(range(16))))
    assert [d.id for d in q.stream()] == ["a"]


def test_empty_field_mask_returns_no_fields(col):
    ref = col.document("d")
    ref.set({"a": 1, "b": 2})
    snap = ref.get(field_paths=[])
    assert snap.exists and snap.to_dict() == {}


def test_same_field_ordered_twice_is_refused(col):
    col.document("a").set({"a": 1})
    with pytest.raises(exceptions.BadRequest, match="duplicate"):
        list(col.order_by("a").order_by("a", direction=firestore.Query.DESCENDING).stream())


def test_vector_inside_an_array_is_refused(col):
    with pytest.raises(exceptions.BadRequest, match="Cannot convert a vector value in an array value"):
        col.document("va").set({"a": [Vector([1.0])]})


def test_root_collections_include_one_holding_only_missing_documents(db):
    name = "root-" + uuid.uuid4().hex[:8]
    db.collection(name).document("ghost").collection("sub").document("x").set({"a": 1})
    assert name in [c.id for c in db.collections()]


def test_list_documents_puts_missing_documents_in_name_order_across_pages(col):
    for i in ["b", "d"]:
        col.document(i).set({"n": 1})
    for i in ["a", "c", "e"]:
        col.document(i).collection("s").document("z").set({"n": 1})
    # list_documents asks for show_missing; a page size of 2 makes three pages.
    assert [d.id for d in col.list_documents(page_size=2)] == ["a", "b", "c", "d", "e"]


def test_rollback_of_an_unknown_transaction_is_refused(db):
    with pytest.raises(exceptions.BadRequest, match="Invalid transaction"):
        db._firestore_api.rollback(request={"database": db._database_string, "transaction": b"nope"})


def test_sum_over_a_projection_is_refused(col):
    col.document("a").set({"a": 1, "b": 2})
    with pytest.raises(exceptions.BadRequest, match="Cannot apply property masks when aggregation fields are present"):
        col.select(["a"]).sum("a").get()
    assert [[r.value for r in row] for row in col.select(["a"]).count().get()] == [[1]]


def test_timestamps_keep_microseconds_as_production_stores_them(emulator):
    """Production stores timestamps with microsecond precision (extra precision is rounded down;
    cloud.google.com/firestore/docs/manage-data/data-types, "Date and time"), so a value and an
    equality operand that differ only below the microsecond are equal: written over REST with
    nanoseconds, the stored value reads back truncated, and an operand with other nanoseconds
    finds it."""
    import requests
    base = f"{emulator.url}/v1/projects/{emulator.project}/databases/(default)/documents"
    col = "fid-ts-" + uuid.uuid4().hex[:8]
    r = requests.patch(f"{base}/{col}/d", json={"fields": {"t": {"timestampValue": "2024-01-01T00:00:00.123456789Z"}}}, timeout=5)
    assert r.status_code == 200, r.text
    assert r.json()["fields"]["t"]["timestampValue"] == "2024-01-01T00:00:00.123456Z"
    q = {"structuredQuery": {"from": [{"collectionId": col}], "where": {"fieldFilter": {
        "field": {"fieldPath": "t"}, "op": "EQUAL", "value": {"timestampValue": "2024-01-01T00:00:00.123456001Z"}}}}}
    found = [x for x in requests.post(f"{base}:runQuery", json=q, timeout=5).json() if "document" in x]
    assert [x["document"]["name"].rsplit("/", 1)[1] for x in found] == ["d"]
