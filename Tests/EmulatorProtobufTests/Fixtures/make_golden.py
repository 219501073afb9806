#!/usr/bin/env python3
"""Writes golden.json: protobuf bytes made by the real Python protobuf classes, with their proto3
JSON as google.protobuf.json_format prints it (MessageToJson, JSON field names).

    python make_golden.py > golden.json       # from the repo's .venv

Each case is {name, message, hex, json, source}:
  source "python"  the message was built with the generated classes and serialized
                   (SerializeToString(deterministic=True): fields by number, map keys sorted);
  source "parsed"  the bytes are hand-made (unknown fields, unpacked repeated fields, duplicate
                   messages to merge, ...) and Python parsed them: its JSON is the expectation;
  source "hand"    Python cannot speak for it (Write.verify, field 5, is not in the published
                   proto); bytes and JSON are written here by hand.
ProtobufGoldenTests checks decode(bytes) == json, decode(encode(json)) == json, and for "python"
cases that encode(json) gives the same bytes.
"""
import json
import math
import sys

from google.cloud.firestore_v1.types import common, document, firestore, query, query_profile, write
from google.events.cloud.firestore_v1.types import data as events
from google.protobuf import any_pb2, duration_pb2, json_format, struct_pb2, timestamp_pb2, wrappers_pb2
from google.rpc import status_pb2

Document = document.Document.pb()
Value = document.Value.pb()
DB = "projects/demo/databases/(default)"
DOCS = DB + "/documents"

cases = []


def to_json(message):
    return json.loads(json_format.MessageToJson(message, preserving_proto_field_name=False))


def add(name, message, note=None):
    """A message built with the generated classes."""
    case = {
        "name": name,
        "message": message.DESCRIPTOR.full_name,
        "hex": message.SerializeToString(deterministic=True).hex(),
        "json": to_json(message),
        "source": "python",
    }
    if note:
        case["note"] = note
    cases.append(case)


def add_parsed(name, cls, hex_bytes, note):
    """Hand-made bytes that Python parses; its JSON is the expectation."""
    message = cls()
    message.ParseFromString(bytes.fromhex(hex_bytes.replace(" ", "")))
    cases.append({
        "name": name,
        "message": cls.DESCRIPTOR.full_name,
        "hex": hex_bytes.replace(" ", ""),
        "json": to_json(message),
        "source": "parsed",
        "note": note,
    })


def add_hand(name, full_name, hex_bytes, expected, note):
    cases.append({
        "name": name,
        "message": full_name,
        "hex": hex_bytes.replace(" ", ""),
        "json": expected,
        "source": "hand",
        "note": note,
    })


def ts(seconds, nanos=0):
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)


# --- Values -------------------------------------------------------------------------------------
for label, kwargs in [
    ("null", {"null_value": 0}),
    ("false", {"boolean_value": False}),
    ("true", {"boolean_value": True}),
    ("int-zero", {"integer_value": 0}),
    ("int-negative", {"integer_value": -1}),
    ("int-max", {"integer_value": 2**63 - 1}),
    ("int-min", {"integer_value": -(2**63)}),
    ("double-zero", {"double_value": 0.0}),
    ("double-negative-zero", {"double_value": -0.0}),
    ("double-nan", {"double_value": math.nan}),
    ("double-infinity", {"double_value": math.inf}),
    ("double-negative-infinity", {"double_value": -math.inf}),
    ("double-fraction", {"double_value": 1.5e-300}),
    ("string-empty", {"string_value": ""}),
    ("string-unicode", {"string_value": "héllo wörld 🌍 \u0000 \u2028 \"quoted\" \\ 中文"}),
    ("bytes-empty", {"bytes_value": b""}),
    ("bytes-all-256", {"bytes_value": bytes(range(256))}),
    ("reference", {"reference_value": DOCS + "/users/alice"}),
    ("timestamp-micros", {"timestamp_value": ts(1_700_000_000, 123_456_000)}),
    ("timestamp-whole", {"timestamp_value": ts(0)}),
    ("timestamp-millis", {"timestamp_value": ts(-1, 500_000_000)}),
    ("timestamp-nanos", {"timestamp_value": ts(253_402_300_799, 999_999_999)}),
    ("geo-point", {"geo_point_value": {"latitude": -33.8688, "longitude": 151.2093}}),
    ("geo-point-origin", {"geo_point_value": {}}),
    ("array-empty", {"array_value": {}}),
    ("map-empty", {"map_value": {}}),
]:
    add("value-" + label, Value(**kwargs))

nested = Value()
outer = nested.array_value.values.add()
inner_map = outer.map_value.fields
inner_map["list"].array_value.values.add().map_value.fields["deep"].string_value = "x"
inner_map["list"].array_value.values.add().integer_value = 7
inner_map["empty"].map_value.SetInParent()
inner_map["none"].null_value = 0
nested.array_value.values.add().array_value.SetInParent()
add("value-nested-arrays-of-maps", nested)

everything = Document(name=DOCS + "/kinds/all", create_time=ts(1_600_000_000, 1000), update_time=ts(1_700_000_000, 999_999_000))
for key, kwargs in [
    ("null", {"null_value": 0}), ("bool", {"boolean_value": True}), ("false", {"boolean_value": False}),
    ("int", {"integer_value": 42}), ("neg", {"integer_value": -42}), ("zero", {"integer_value": 0}),
    ("double", {"double_value": 3.25}), ("nan", {"double_value": math.nan}), ("negzero", {"double_value": -0.0}),
    ("str", {"string_value": "text"}), ("empty", {"string_value": ""}), ("bytes", {"bytes_value": b"\x00\xff\x10"}),
    ("ref", {"reference_value": DOCS + "/a/b"}), ("when", {"timestamp_value": ts(1_700_000_000, 5_000)}),
    ("geo", {"geo_point_value": {"latitude": 1.5, "longitude": -2.25}}),
    ("ünïcødé key 🔑", {"string_value": "v"}), ("", {"string_value": "empty key"}),
]:
    everything.fields[key].CopyFrom(Value(**kwargs))
everything.fields["arr"].array_value.values.add().integer_value = 1
everything.fields["arr"].array_value.values.add().string_value = "two"
everything.fields["map"].map_value.fields["nested"].map_value.fields["x"].boolean_value = True
everything.fields["vector"].map_value.fields["__type__"].string_value = "__vector__"
vec = everything.fields["vector"].map_value.fields["value"].array_value.values
for x in (0.5, -1.0, 2.0):
    vec.add().double_value = x
add("document-every-kind", everything)
add("document-name-only", Document(name=DOCS + "/c/d"))
add("document-empty", Document())

# --- Queries ------------------------------------------------------------------------------------
SQ = query.StructuredQuery.pb()
q = SQ()
q.select.fields.add().field_path = "a"
q.select.fields.add().field_path = "`odd field`.x"
q.from_.add(collection_id="cities", all_descendants=True)
comp = q.where.composite_filter
comp.op = SQ.CompositeFilter.Operator.AND
f1 = comp.filters.add().field_filter
f1.field.field_path = "population"
f1.op = SQ.FieldFilter.Operator.GREATER_THAN_OR_EQUAL
f1.value.integer_value = 1_000_000
f2 = comp.filters.add().unary_filter
f2.op = SQ.UnaryFilter.Operator.IS_NOT_NULL
f2.field.field_path = "name"
orc = comp.filters.add().composite_filter
orc.op = SQ.CompositeFilter.Operator.OR
f3 = orc.filters.add().field_filter
f3.field.field_path = "tags"
f3.op = SQ.FieldFilter.Operator.ARRAY_CONTAINS_ANY
f3.value.array_value.values.add().string_value = "big"
f3.value.array_value.values.add().string_value = "old"
f4 = orc.filters.add().field_filter
f4.field.field_path = "state"
f4.op = SQ.FieldFilter.Operator.NOT_IN
f4.value.array_value.values.add().null_value = 0
q.order_by.add(direction=SQ.Direction.DESCENDING).field.field_path = "population"
q.order_by.add(direction=SQ.Direction.ASCENDING).field.field_path = "__name__"
q.start_at.values.add().integer_value = 5_000_000
q.start_at.before = True
q.end_at.values.add().integer_value = 1
q.end_at.values.add().reference_value = DOCS + "/cities/x"
q.limit.value = 0
q.offset = 3
RQ = firestore.RunQueryRequest.pb()
add("run-query-request", RQ(parent=DOCS, structured_query=q, read_time=ts(1_700_000_000, 1000)),
    note="composite, field and unary filters, orders, cursors, limit 0 (wrapper presence), offset")
rq2 = RQ(parent=DOCS + "/rooms/r1")
rq2.structured_query.from_.add(collection_id="messages")
rq2.new_transaction.read_write.retry_transaction = b"\x01\x02"
rq2.explain_options.analyze = True
add("run-query-request-new-transaction", rq2)
fn = SQ()
fn.from_.add(collection_id="docs")
fn.find_nearest.vector_field.field_path = "embedding"
for x in (1.0, 2.0):
    fn.find_nearest.query_vector.array_value.values.add().double_value = x
fn.find_nearest.distance_measure = SQ.FindNearest.DistanceMeasure.COSINE
fn.find_nearest.limit.value = 10
fn.find_nearest.distance_result_field = "dist"
fn.find_nearest.distance_threshold.value = 0.0
add("run-query-request-find-nearest", RQ(parent=DOCS, structured_query=fn, transaction=b"txn-1"))

SAQ = query.StructuredAggregationQuery.pb()
agg = SAQ()
agg.structured_query.from_.add(collection_id="orders")
a1 = agg.aggregations.add(alias="n")
a1.count.up_to.value = 100
agg.aggregations.add(alias="total").sum.field.field_path = "amount"
agg.aggregations.add(alias="mean").avg.field.field_path = "amount"
agg.aggregations.add().count.SetInParent()
add("run-aggregation-query-request", firestore.RunAggregationQueryRequest.pb()(parent=DOCS, structured_aggregation_query=agg))
rar = firestore.RunAggregationQueryResponse.pb()(read_time=ts(1_700_000_000))
rar.result.aggregate_fields["n"].integer_value = 3
rar.result.aggregate_fields["mean"].null_value = 0
add("run-aggregation-query-response", rar)

RQR = firestore.RunQueryResponse.pb()
add("run-query-response-done", RQR(done=True, read_time=ts(1_700_000_000, 1000)))
add("run-query-response-transaction", RQR(transaction=b"\x00\x01"))
add("run-query-response-document", RQR(document=Document(name=DOCS + "/a/b", update_time=ts(5)), read_time=ts(6), skipped_results=2))
metrics = RQR(done=True)
idx = metrics.explain_metrics.plan_summary.indexes_used.add()
idx.update({"query_scope": "Collection", "properties": "(__name__ ASC)", "n": 1.5, "flag": True, "none": None, "list": [1, "a", None, {"x": []}]})
stats = metrics.explain_metrics.execution_stats
stats.results_returned = 2
stats.execution_duration.FromNanoseconds(1_500_000_000)
stats.read_operations = 3
stats.debug_stats.update({"documents_scanned": "2", "billing_details": {"min_query_cost": "0"}})
add("run-query-response-explain-metrics", metrics, note="Struct, Value, ListValue and Duration")

# --- Writes -------------------------------------------------------------------------------------
W = write.Write.pb()
FT = write.DocumentTransform.FieldTransform.pb()
update = W(update=Document(name=DOCS + "/users/alice"))
update.update.fields["name"].string_value = "Alice"
update.update.fields["age"].integer_value = 30
update.update_mask.field_paths.extend(["name", "age", "`weird.path`"])
update.current_document.exists = False
update.update_transforms.add(field_path="updated", set_to_server_value=FT.ServerValue.REQUEST_TIME)
update.update_transforms.add(field_path="count").increment.integer_value = 1
update.update_transforms.add(field_path="hi").maximum.double_value = 2.5
update.update_transforms.add(field_path="lo").minimum.integer_value = -3
update.update_transforms.add(field_path="tags").append_missing_elements.values.add().string_value = "x"
update.update_transforms.add(field_path="gone").remove_all_from_array.SetInParent()
delete = W(delete=DOCS + "/users/bob")
delete.current_document.update_time.CopyFrom(ts(1_700_000_000, 123_000))
transform = W()
transform.transform.document = DOCS + "/users/carol"
transform.transform.field_transforms.add(field_path="n").increment.double_value = 0.5
exists_true = W(delete=DOCS + "/users/dan")
exists_true.current_document.exists = True
CR = firestore.CommitRequest.pb()
add("commit-request", CR(database=DB, writes=[update, delete, transform, exists_true], transaction=b"\xde\xad\xbe\xef"),
    note="update + mask + transforms + exists:false precondition (08 00), delete + update_time, transform")
cresp = firestore.CommitResponse.pb()(commit_time=ts(1_700_000_000, 1000))
wr = cresp.write_results.add(update_time=ts(1_700_000_000, 1000))
wr.transform_results.add().timestamp_value.CopyFrom(ts(1_700_000_000, 1000))
wr.transform_results.add().null_value = 0
cresp.write_results.add()
add("commit-response", cresp, note="an empty WriteResult (delete of a missing doc) is 0a 00")

BW = firestore.BatchWriteRequest.pb()
bw = BW(database=DB, writes=[delete])
bw.labels["b"] = "2"
bw.labels["a"] = ""
add("batch-write-request", bw)
bwr = firestore.BatchWriteResponse.pb()()
bwr.write_results.add(update_time=ts(1_700_000_000))
bwr.write_results.add()
bwr.status.add()
st = bwr.status.add(code=9, message="Document already exists: " + DOCS + "/users/bob")
packed_status = any_pb2.Any()
packed_status.Pack(status_pb2.Status(code=3, message="inner"))
st.details.append(packed_status)
packed_duration = any_pb2.Any()
packed_duration.Pack(duration_pb2.Duration(seconds=-1, nanos=-500_000_000))
st.details.append(packed_duration)
add("batch-write-response", bwr, note="google.rpc.Status with Any details (a message, a well-known type)")

# --- Transactions, reads --------------------------------------------------------------------------
TO = common.TransactionOptions.pb()
add("begin-transaction-read-only", firestore.BeginTransactionRequest.pb()(database=DB, options=TO(read_only={"read_time": ts(1_700_000_000)})))
add("begin-transaction-read-write", firestore.BeginTransactionRequest.pb()(
    database=DB, options=TO(read_write={"retry_transaction": b"t", "concurrency_mode": TO.ConcurrencyMode.PESSIMISTIC})))
add("begin-transaction-empty-read-write", firestore.BeginTransactionRequest.pb()(database=DB, options=TO(read_write={})))
add("begin-transaction-response", firestore.BeginTransactionResponse.pb()(transaction=bytes(range(40))))
add("rollback-request", firestore.RollbackRequest.pb()(database=DB, transaction=b"\x01"))
BG = firestore.BatchGetDocumentsRequest.pb()
bg = BG(database=DB, documents=[DOCS + "/a/1", DOCS + "/a/2"], new_transaction=TO(read_only={}))
bg.mask.field_paths.append("x")
add("batch-get-request", bg)
BGR = firestore.BatchGetDocumentsResponse.pb()
add("batch-get-response-missing", BGR(missing=DOCS + "/a/2", read_time=ts(1_700_000_000, 1000)))
add("batch-get-response-found", BGR(found=Document(name=DOCS + "/a/1", create_time=ts(1), update_time=ts(2)), transaction=b"tx", read_time=ts(3)))
add("get-document-request", firestore.GetDocumentRequest.pb()(name=DOCS + "/a/1", transaction=b"t"))
LD = firestore.ListDocumentsRequest.pb()
add("list-documents-request", LD(parent=DOCS, collection_id="a", page_size=-5, page_token="p", order_by="x desc", show_missing=True, read_time=ts(9)),
    note="negative int32 page_size: a 10-byte varint")
add("list-documents-response", firestore.ListDocumentsResponse.pb()(documents=[Document(name=DOCS + "/a/1"), Document()], next_page_token="n"))
add("list-collection-ids-request", firestore.ListCollectionIdsRequest.pb()(parent=DOCS, page_size=100))
add("list-collection-ids-response", firestore.ListCollectionIdsResponse.pb()(collection_ids=["a", "b", ""], next_page_token=""))
PQ = firestore.PartitionQueryRequest.pb()
pq = PQ(parent=DOCS, partition_count=2**40, page_size=3)
pq.structured_query.from_.add(collection_id="c", all_descendants=True)
add("partition-query-request", pq)
pqr = firestore.PartitionQueryResponse.pb()()
pqr.partitions.add().values.add().reference_value = DOCS + "/c/m"
pqr.partitions.add()
add("partition-query-response", pqr)
add("create-document-request", firestore.CreateDocumentRequest.pb()(parent=DOCS, collection_id="c", document_id="d", document=Document(), mask={"field_paths": ["a"]}))
ud = firestore.UpdateDocumentRequest.pb()(document=everything, current_document={"exists": True})
ud.update_mask.SetInParent()
add("update-document-request", ud, note="an empty update_mask is present (1a 00)")
add("delete-document-request", firestore.DeleteDocumentRequest.pb()(name=DOCS + "/a/1", current_document={"update_time": ts(0)}))

# --- Listen and Write streams ----------------------------------------------------------------------
LR = firestore.ListenRequest.pb()
T = firestore.Target.pb()
lq = T(target_id=0x5079, resume_token=b"\x00\x01resume")
lq.query.parent = DOCS
lq.query.structured_query.from_.add(collection_id="rooms")
lq.expected_count.value = 0
listen = LR(database=DB, add_target=lq)
listen.labels["goog-listen-tags"] = "existence-filter-mismatch-bloom"
add("listen-request-add-query-target", listen, note="expected_count 0 is present (62 00)")
add("listen-request-add-documents-target", LR(database=DB, add_target=T(target_id=1, once=True, read_time=ts(10), documents={"documents": [DOCS + "/a/1"]})))
add("listen-request-remove-target", LR(database=DB, remove_target=2))
add("listen-request-remove-target-zero", LR(remove_target=0), note="a oneof member equal to its default is written (18 00)")
add("listen-request-negative-target", LR(add_target=T(target_id=-1, documents={})), note="negative int32: 10-byte varint")
LRS = firestore.ListenResponse.pb()
TC = firestore.TargetChange.pb()
add("listen-response-no-change-empty", LRS(target_change=TC()), note="NO_CHANGE with nothing else: 12 00")
add("listen-response-global-snapshot", LRS(target_change=TC(read_time=ts(1_700_000_000, 1000), resume_token=b"rt")))
add("listen-response-add", LRS(target_change=TC(target_change_type=TC.TargetChangeType.ADD, target_ids=[0x5079])))
add("listen-response-current", LRS(target_change=TC(target_change_type=TC.TargetChangeType.CURRENT, target_ids=[1, 2, 300], resume_token=b"\x00")))
add("listen-response-remove-with-cause", LRS(target_change=TC(target_change_type=TC.TargetChangeType.REMOVE, target_ids=[4],
    cause=status_pb2.Status(code=7, message="Missing or insufficient permissions."))))
add("listen-response-reset", LRS(target_change=TC(target_change_type=TC.TargetChangeType.RESET, target_ids=[-1])))
add("listen-response-document-change", LRS(document_change=write.DocumentChange.pb()(
    document=Document(name=DOCS + "/a/1", fields={"x": Value(integer_value=1)}, create_time=ts(1), update_time=ts(2)),
    target_ids=[1, 2], removed_target_ids=[3])))
add("listen-response-document-delete", LRS(document_delete=write.DocumentDelete.pb()(document=DOCS + "/a/1", removed_target_ids=[1], read_time=ts(3))))
add("listen-response-document-remove", LRS(document_remove=write.DocumentRemove.pb()(document=DOCS + "/a/1", removed_target_ids=[1, 2], read_time=ts(4))))
add("listen-response-filter", LRS(filter=write.ExistenceFilter.pb()(target_id=2, count=3, unchanged_names={"bits": {"bitmap": b"\x0f\xf0", "padding": 3}, "hash_count": 7})))
add("listen-response-filter-empty", LRS(filter=write.ExistenceFilter.pb()(target_id=2)))
WRQ = firestore.WriteRequest.pb()
add("write-request-handshake", WRQ(database=DB))
wrq = WRQ(stream_id="s1", stream_token=b"\x01\x02", writes=[update])
wrq.labels["k"] = "v"
add("write-request-writes", wrq)
add("write-response", firestore.WriteResponse.pb()(stream_id="s1", stream_token=b"tok", commit_time=ts(7), write_results=[write.WriteResult.pb()(update_time=ts(7))]))

# --- Well-known types on their own, and google.events -----------------------------------------
add("wkt-timestamp-epoch", timestamp_pb2.Timestamp())
add("wkt-duration-negative", duration_pb2.Duration(seconds=-3, nanos=-1000))
add("wkt-duration-fraction", duration_pb2.Duration(nanos=500_000_000))
add("wkt-int64-wrapper", wrappers_pb2.Int64Value(value=-(2**63)))
add("wkt-uint64-wrapper", wrappers_pb2.UInt64Value(value=2**64 - 1))
add("wkt-uint32-wrapper", wrappers_pb2.UInt32Value(value=2**32 - 1))
add("wkt-bool-wrapper", wrappers_pb2.BoolValue(value=True))
add("wkt-bytes-wrapper", wrappers_pb2.BytesValue(value=b"\xfb\xff"))
add("wkt-string-wrapper-empty", wrappers_pb2.StringValue())
add("wkt-float-wrapper", wrappers_pb2.FloatValue(value=0.1))
add("wkt-double-wrapper-nan", wrappers_pb2.DoubleValue(value=math.nan))
s = struct_pb2.Struct()
s.update({"a": [1, 2.5, "x", None, True, {"b": {}}], "": "", "n": -0.0})
add("wkt-struct", s)
add("wkt-list-value", struct_pb2.ListValue(values=[struct_pb2.Value(null_value=0), struct_pb2.Value(list_value={})]))
add("wkt-empty-struct", struct_pb2.Struct())
add("wkt-any-empty", any_pb2.Any())

EV = events.DocumentEventData.pb()
EDoc = events.Document.pb()
ev = EV(value=EDoc(name=DOCS + "/users/alice", create_time=ts(1), update_time=ts(2)), old_value=EDoc(name=DOCS + "/users/alice", create_time=ts(1), update_time=ts(1)))
ev.value.fields["age"].integer_value = 31
ev.value.fields["tags"].array_value.values.add().string_value = "x"
ev.value.fields["where"].geo_point_value.latitude = 1.0
ev.value.fields["m"].map_value.fields["z"].null_value = 0
ev.old_value.fields["age"].integer_value = 30
ev.update_mask.field_paths.append("age")
add("document-event-data-update", ev)
add("document-event-data-create", EV(value=EDoc(name=DOCS + "/a/1")))
add("document-event-data-empty", EV())

# --- Hand-made bytes that Python parses --------------------------------------------------------------
add_parsed("parsed-unknown-fields-skipped", Document,
           "0a 01 61  f8 06 05  fa 06 03 01 02 03  fd 06 01 02 03 04  f9 06 01 02 03 04 05 06 07 08  22 02 08 05",
           "unknown fields of every wire type (99: varint, LEN, I32, I64) between known ones")
add_parsed("parsed-wrong-wire-type-is-unknown", Document, "08 05 0a 01 62",
           "field 1 (name, a string) sent as a varint is an unknown field")
add_parsed("parsed-unpacked-int32", write.DocumentChange.pb(), "28 01 28 02 2a 02 03 04 30 05",
           "target_ids unpacked, then packed: both accepted, concatenated")
add_parsed("parsed-duplicate-message-merges", Document, "1a 02 08 01 1a 03 10 e8 07",
           "create_time twice: {seconds 1} then {nanos 1000} merge")
add_parsed("parsed-oneof-last-wins", Value, "08 01 10 05", "boolean_value then integer_value: the last member wins")
add_parsed("parsed-oneof-message-then-scalar", Value, "4a 02 0a 00 08 01", "array_value then boolean_value")
add_parsed("parsed-duplicate-scalar-last-wins", Document, "0a 01 61 0a 01 62", "name twice: the last wins")
add_parsed("parsed-map-entry-missing-value", Document, "12 03 0a 01 61", "a fields entry with a key and no value")
add_parsed("parsed-map-entry-missing-key", Document, "12 04 12 02 08 01", "a fields entry with a value and no key")
add_parsed("parsed-map-entry-value-before-key", Document, "12 07 12 02 10 07 0a 01 6b", "entry fields in reverse order")
add_parsed("parsed-map-duplicate-key-last-wins", Document, "12 07 0a 01 6b 12 02 10 01 12 07 0a 01 6b 12 02 10 02",
           "the same key twice: the last entry wins")
add_parsed("parsed-default-scalar-on-wire", query.StructuredQuery.pb(), "30 00 30 05 30 00",
           "offset 0 written explicitly (implicit presence): reads as absent")
add_parsed("parsed-non-minimal-varint", Value, "10 81 80 80 80 00", "integer 1 as a 5-byte varint")
add_parsed("parsed-ten-byte-varint-overflow-bits", Value, "10 ff ff ff ff ff ff ff ff ff 7f",
           "bits past 64 in the tenth byte are dropped")
add_parsed("parsed-int32-from-wide-varint", firestore.ListenRequest.pb(), "18 ff ff ff ff 0f",
           "remove_target -1 sent as a 5-byte varint (low 32 bits)")
add_parsed("parsed-unknown-enum-number", query.StructuredQuery.Order.pb(), "10 09", "direction 9: not a declared value, kept as a number")
add_parsed("parsed-empty-packed", write.DocumentChange.pb(), "2a 00", "a packed field with no elements")

# --- Written by hand ----------------------------------------------------------------------------------
def varint(n):
    out = b""
    while n >= 0x80:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n])


def field_bytes(number, payload):
    """A length-delimited field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


verify = field_bytes(4, b"\x08\x01") + field_bytes(5, (DOCS + "/a/1").encode())
add_hand("hand-write-verify", "google.firestore.v1.Write", verify.hex(),
         {"verify": DOCS + "/a/1", "currentDocument": {"exists": True}},
         "Write.verify = 5 (not in googleapis' proto; the mobile and web SDKs send it)")
add_hand("hand-commit-with-verify", "google.firestore.v1.CommitRequest",
         (field_bytes(1, DB.encode()) + field_bytes(2, verify) + field_bytes(3, b"\x07")).hex(),
         {"database": DB, "writes": [{"verify": DOCS + "/a/1", "currentDocument": {"exists": True}}], "transaction": "Bw=="},
         "a transaction commit with a verify write")
unknown_any = status_pb2.Status(code=3, details=[any_pb2.Any(type_url="type.googleapis.com/google.rpc.ErrorInfo", value=b"\x12\x00")])
add_hand("hand-any-unknown-type", "google.rpc.Status", unknown_any.SerializeToString().hex(),
         {"code": 3, "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "@value": "EgA="}]},
         "an Any whose type the registry does not know keeps its bytes under @value")

out = {"_comment": "Generated by make_golden.py; do not edit.", "cases": cases}
json.dump(out, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
sys.stdout.write("\n")
