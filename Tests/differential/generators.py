"""Seeded generators for the differential harness: documents with every value type and its edges,
queries, writes and invalid requests. Everything derives from one `random.Random`, so a (seed,
case) pair always replays the same operations."""
import datetime
import math
import random

from google.cloud import firestore
from google.cloud.firestore_v1 import And, FieldFilter, Or
from google.cloud.firestore_v1.vector import Vector

# Strings chosen for byte order and normalisation edges: canonically equivalent spellings, the
# Angstrom sign, surrogate-pair emoji, a NUL, the highest BMP code points.
STRINGS = ["", "a", "b", "A", "aa", "\u00e9", "e\u0301", "\u212b", "\u00c5", "\U0001f600", "\uffff", "a\x00b",
           "\u00ff", "z" * 40, "\u4e2d\u6587", " ", "1", "true"]
INTS = [0, 1, -1, 2, 3, 7, 42, -42, 2**31 - 1, -2**31, 2**53 + 1, 2**63 - 1, -2**63]
DOUBLES = [0.0, -0.0, 1.0, 1.5, -2.5, 3.0, 1e-300, 5e-324, 1.7976931348623157e308, 1e22, math.inf, -math.inf, math.nan, 0.1]
FIELDS = ["a", "b", "c"]


def timestamp(r):
    base = datetime.datetime(2001 + r.randrange(40), 1 + r.randrange(12), 1 + r.randrange(28), tzinfo=datetime.timezone.utc)
    return base + datetime.timedelta(seconds=r.randrange(86400), microseconds=r.choice([0, 1, 999999, r.randrange(10**6)]))


def scalar(r, col):
    kind = r.randrange(11)
    if kind == 0:
        return None
    if kind == 1:
        return r.choice([True, False])
    if kind == 2:
        return r.choice(INTS)
    if kind == 3:
        return r.choice(DOUBLES)
    if kind == 4:
        return r.choice(STRINGS)
    if kind == 5:
        return bytes(r.choice([b"", b"\x00", b"\xff", b"ab", b"a"]))
    if kind == 6:
        return timestamp(r)
    if kind == 7:
        return firestore.GeoPoint(r.choice([-90.0, 0.0, 45.5, 90.0]), r.choice([-180.0, 0.0, 12.25, 180.0]))
    if kind == 8:
        return col.document(r.choice(["d0", "d1", "x", "\u00e9"]))
    if kind == 9:
        return r.choice(INTS[:6])
    return r.choice(STRINGS[:6])


def value(r, col, depth=0):
    """Any value: mostly scalars, sometimes arrays and maps (nested up to three levels), vectors."""
    roll = r.random()
    if depth < 3 and roll < 0.12:
        return [value(r, col, depth + 1) for _ in range(r.randrange(4))]
    if depth < 3 and roll < 0.22:
        return {r.choice(["x", "y", "\u00e9", "e\u0301", "z z"]): value(r, col, depth + 1) for _ in range(r.randrange(3))}
    if roll < 0.25:
        return Vector([r.choice([1.0, -2.0, 0.5]) for _ in range(1 + r.randrange(3))])
    return scalar(r, col)


def document(r, col):
    data = {f: value(r, col) for f in FIELDS if r.random() < 0.8}
    if r.random() < 0.5:
        data["tags"] = [scalar(r, col) for _ in range(r.randrange(4))]
    if r.random() < 0.3:
        data["m"] = {"x": scalar(r, col), "y": scalar(r, col)}
    return data


def doc_id(r, i):
    return r.choice([f"d{i}", f"d{i}", f"d{i}", "\u00e9" + str(i), "e\u0301" + str(i), "Z" + str(i)])


OPS = ["==", "!=", "<", "<=", ">", ">=", "in", "not-in", "array_contains", "array_contains_any"]


def field_filter(r, col):
    field = r.choice(FIELDS + ["tags", "m.x", "__name__"])
    op = r.choice(OPS)
    if op in ("in", "not-in", "array_contains_any"):
        operand = [scalar(r, col) for _ in range(1 + r.randrange(4))]
    else:
        operand = scalar(r, col)
    if field == "__name__" and r.random() < 0.8:
        operand = [col.document(f"d{r.randrange(5)}") for _ in range(2)] if isinstance(operand, list) else col.document(f"d{r.randrange(5)}")
    if op not in ("==", "!=") and (operand is None or (isinstance(operand, float) and math.isnan(operand))):
        op = r.choice(["==", "!="])  # the client refuses the others itself
    return FieldFilter(field, op, operand)


def query(r, col):
    """A query (filters, orders, cursors, limits), described for the reproduction line."""
    q = col if r.random() < 0.9 else col._client.collection_group(col.id)
    steps = []
    for _ in range(r.choice([0, 1, 1, 2])):
        if r.random() < 0.15:
            f = Or([field_filter(r, col) for _ in range(2)])
        elif r.random() < 0.1:
            f = And([field_filter(r, col) for _ in range(2)])
        else:
            f = field_filter(r, col)
        q = q.where(filter=f)
        steps.append("where")
    for _ in range(r.choice([0, 0, 1, 2])):
        field = r.choice(FIELDS + ["__name__"])
        q = q.order_by(field, direction=r.choice([firestore.Query.ASCENDING, firestore.Query.DESCENDING]))
        steps.append("order")
    if "order" in steps and r.random() < 0.3:
        cursor = {"a": scalar(r, col), "b": scalar(r, col), "c": scalar(r, col), "__name__": col.document("d1")}
        method = r.choice(["start_at", "start_after", "end_at", "end_before"])
        q = getattr(q, method)(cursor)
    if r.random() < 0.3:
        q = q.limit(r.randrange(0, 4))
    elif "order" in steps and r.random() < 0.1:
        q = q.limit_to_last(1 + r.randrange(3))
    if r.random() < 0.15:
        q = q.offset(r.randrange(3))
    if r.random() < 0.1:
        q = q.select(r.sample(FIELDS, r.randrange(0, 3)))
    return q


def aggregation(r, col):
    q = query(r, col)
    if hasattr(q, "_limit_to_last") and q._limit_to_last:
        q = q.limit(2)
    agg = q.count(alias="n") if r.random() < 0.7 else None
    for i in range(r.randrange(0 if agg else 1, 3)):
        field = r.choice(FIELDS)
        kind = r.choice(["sum", "avg"])
        agg = getattr(agg if agg else q, kind)(field, alias=f"{kind}{i}")
    return agg


def write(r, col, i):
    """One write as (kind, doc id, payload) for Executor.write."""
    ref_id = f"d{r.randrange(6)}"
    kind = r.choice(["set", "merge", "update", "transform", "delete", "create"])
    if kind in ("set", "merge", "create"):
        return kind, ref_id, document(r, col)
    if kind == "update":
        return kind, ref_id, {r.choice(FIELDS + ["m.x"]): value(r, col)}
    if kind == "transform":
        t = r.choice(["inc", "max", "min", "union", "remove", "ts"])
        field = r.choice(FIELDS)
        if t == "inc":
            payload = firestore.Increment(r.choice([1, -1, 2.5, 2**62]))
        elif t == "max":
            payload = firestore.Maximum(r.choice([0, 5, 1.5, -1]))
        elif t == "min":
            payload = firestore.Minimum(r.choice([0, 5, 1.5, -1]))
        elif t == "union":
            payload = firestore.ArrayUnion([scalar(r, col) for _ in range(2)])
        elif t == "remove":
            payload = firestore.ArrayRemove([scalar(r, col) for _ in range(2)])
        else:
            payload = firestore.SERVER_TIMESTAMP
        return ("update" if r.random() < 0.5 else "merge"), ref_id, {field: payload}
    return kind, ref_id, None
