"""Differential harness: the same seeded operations against this emulator and Google's Firestore
emulator (the Java one), through google-cloud-firestore over gRPC, answers compared after
normalising what legitimately differs (times written by the server, transaction ids, tokens).
Kinds of case: core (below), rules (rules_kind.py: a generated ruleset, requests under random
auth) and listen (listen_kind.py: snapshot sequences; its docstring says what is compared and why).

    Tests/differential/run.sh                      # CI budget: seed 27, 300 cases (50-80 s)
    Tests/differential/run.sh --seed 1 --cases 2000  # long mode
    Tests/differential/run.sh --kind rules --cases 500   # one kind
    Tests/differential/run.sh --seed 7 --kind rules --case 123  # one case (what a failure prints)

Exit status: 0 when every difference is one docs/differences.md keeps (KNOWN below), 1 otherwise,
0 with one "skipped:" line when Java or Google's emulator is absent.
"""
import argparse
import datetime
import math
import os
import pathlib
import random
import sys
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT / "Tests" / "python")]

from webchannel import google_emulator  # noqa: E402
import listen_kind  # noqa: E402
import rules_kind  # noqa: E402
from writes import apply_write  # noqa: E402

PROJECT = "demo-diff"

# Differences docs/differences.md keeps, matched by (operation kind, ours, google) predicates.
KNOWN = [
    # Six aggregations: Google's emulator answers UNKNOWN, production INVALID_ARGUMENT (ours).
    ("aggregate", lambda o, g: g[0] == "error" and g[1] == "Unknown" and o[0] == "error" and o[1] == "InvalidArgument"),
    ("aggregate", lambda o, g: g[0] == "error" and o[0] == "ok" and "descending key scans" in g[2]),
    # Google's emulator checks for a descending key scan before the order's shape.
    ("query", lambda o, g: o[0] == g[0] == "error" and "descending key scans" in g[2]),
    ("aggregate", lambda o, g: o[0] == g[0] == "error" and "descending key scans" in g[2]),
    # Descending __name__ scans: Google's emulator refuses some, production serves them (ours).
    ("query", lambda o, g: g[0] == "error" and o[0] == "ok" and "descending key scans" in g[2]),
    # Messages naming the document: ours are production's ("Document already exists: projects/...",
    # "No document to update: projects/..."), Google's emulator names its internal entity.
    ("write", lambda o, g: o[0] == g[0] == "error" and o[1] == g[1] and ("entity already exists" in g[2] or "no entity to update" in g[2])),
    ("rules", lambda o, g: o[0] == g[0] == "error" and o[1] == g[1] and ("entity already exists" in g[2] or "no entity to update" in g[2])),
]

# The same, where the request decides (its description is the structured query's text form).
KNOWN_BY_REQUEST = [
    # `in` with a null among the values: ours matches documents whose field is null (as the client
    # SDKs' own matching does); Google's emulator matches none. Open in the issue; kept.
    # The same for `array-contains-any` with a null (ours: an array holding null matches).
    ("query", lambda w, o, g: o[0] == g[0] == "ok" and "null_value" in w
     and ("op: IN value { array_value" in w or "op: ARRAY_CONTAINS_ANY value { array_value" in w)
     and set(g[1]) <= set(o[1])),
    # `not-in` with a null: Google's emulator answers "nothing" before checking the order's shape;
    # ours refuses a shape production refuses first.
    ("query", lambda w, o, g: o[0] == "error" and g == ("ok", []) and "op: NOT_IN value { array_value" in w and "null_value" in w),
]


def normalise(v, now):
    """A comparable form of a value the client decoded."""
    from google.cloud.firestore_v1 import DocumentReference, GeoPoint
    from google.cloud.firestore_v1.vector import Vector
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, float):
        if math.isnan(v):
            return ("double", "NaN")
        return ("double", v, math.copysign(1, v))
    if isinstance(v, str):
        return ("str", v.encode("utf-8"))
    if isinstance(v, bytes):
        return ("bytes", v)
    if isinstance(v, datetime.datetime):
        # Server timestamps: written now by each server; anything within a day of `now` is one.
        if abs((v - now).total_seconds()) < 86400:
            return ("ts", "now")
        return ("ts", v.isoformat(), getattr(v, "nanosecond", 0))
    if isinstance(v, GeoPoint):
        return ("geo", v.latitude, v.longitude)
    if isinstance(v, DocumentReference):
        return ("ref", v.path.encode("utf-8"))
    if isinstance(v, Vector):
        return ("vec", tuple(normalise(x, now) for x in v))
    if isinstance(v, list):
        return ("arr", tuple(normalise(x, now) for x in v))
    if isinstance(v, dict):
        return ("map", tuple(sorted((k.encode("utf-8"), normalise(x, now)) for k, x in v.items())))
    return ("?", repr(v))


def describe(q):
    """The structured query a client query sends, on one line (for difference reports)."""
    try:
        text = str(q._to_protobuf())
    except Exception as e:  # noqa: BLE001 - the client refused to build it
        return f"<{e}>"
    return " ".join(text.split())[:1500]


def error(e):
    from google.api_core import exceptions
    if isinstance(e, exceptions.GoogleAPICallError):
        return ("error", type(e).__name__, e.message or "")
    return ("error", type(e).__name__, str(e)[:300])


class Side:
    """One server and a client for it (the client reads FIRESTORE_EMULATOR_HOST when built)."""

    def __init__(self, name, host_port):
        from google.cloud import firestore
        self.name = name
        self.host_port = host_port
        os.environ["FIRESTORE_EMULATOR_HOST"] = host_port
        self.client = firestore.Client(project=PROJECT)


def run_case(seed, case, sides, now):
    """Runs one case on every side; returns [(step, kind, description, {side: answer})]."""
    import generators as g
    out = []
    streams = {}
    for side in sides:
        r = random.Random(f"{seed}:{case}")
        col = side.client.collection(f"c{seed}_{case}")
        answers = []
        step = 0

        def record(kind, what, fn):
            nonlocal step
            try:
                answers.append((step, kind, what, ("ok", fn())))
            except Exception as e:  # noqa: BLE001 - every failure is an answer to compare
                answers.append((step, kind, what, error(e)))
            step += 1

        for i in range(r.randrange(2, 7)):
            did, data = g.doc_id(r, i), g.document(r, col)
            record("set", f"set {did}", lambda: col.document(did).set(data) and None)
            record("get", f"get {did}", lambda: normalise(col.document(did).get().to_dict(), now))
        if r.random() < 0.2:
            limit = r.choice([None, 1, 2])
            writes = [g.write(r, col, i) for i in range(3)]
            record("listen", f"listen limit={limit} writes={[(k, d) for k, d, _ in writes]}",
                   lambda: listen(col, limit, writes, now))
        for _ in range(r.randrange(1, 6)):
            roll = r.random()
            if roll < 0.45:
                # Built inside the recorded call: the client's own checks are answers too.
                def run_query():
                    q = g.query(r, col)
                    shown[0] = describe(q)
                    return [(d.id.encode(), normalise(d.to_dict(), now)) for d in q.stream()]
                shown = [""]
                record("query", "query", run_query)
                answers[-1] = answers[-1][:2] + (f"query {shown[0]}",) + answers[-1][3:]
            elif roll < 0.65:
                def run_aggregation():
                    a = g.aggregation(r, col)
                    shown[0] = describe(a._nested_query) + " " + " ".join(f"{type(x).__name__}({getattr(x, 'field_ref', '')})" for x in a._aggregations)
                    return sorted((x.alias, normalise(x.value, now)) for x in a.get()[0])
                shown = [""]
                record("aggregate", "aggregate", run_aggregation)
                answers[-1] = answers[-1][:2] + (f"aggregate {shown[0]}",) + answers[-1][3:]
            else:
                kind, did, payload = g.write(r, col, step)
                ref = col.document(did)

                def do():
                    apply_write(ref, kind, payload)
                    return normalise(ref.get().to_dict(), now)
                record("write", f"{kind} {did}", do)
        streams[side.name] = answers
    names = [s.name for s in sides]
    for row in zip(*(streams[n] for n in names)):
        out.append((row[0][0], row[0][1], row[0][2], {n: a[3] for n, a in zip(names, row)}))
    return out


def listen(col, limit, writes, now):
    """A listener on the collection (optionally ordered by name with a limit) through a write
    sequence (with a limit: the first documents by name): the documents of its last snapshot once it agrees with a plain read, and which
    writes failed. Snapshot boundaries depend on timing, so only the settled state is compared."""
    import threading
    q = col.limit(limit) if limit else col  # (the client cannot order a listener by __name__ itself)
    latest = [None]
    changed = threading.Event()

    def on_snapshot(docs, changes, read_time):
        latest[0] = [(d.id.encode(), normalise(d.to_dict(), now)) for d in docs]
        changed.set()

    watch = q.on_snapshot(on_snapshot)
    try:
        if not changed.wait(10):
            return "no first snapshot"
        failed = []
        for kind, did, payload in writes:
            try:
                apply_write(col.document(did), kind, payload)
            except Exception as e:  # noqa: BLE001 - a refused write is part of the answer
                failed.append((did, error(e)[1]))
        deadline = time.time() + 10
        while time.time() < deadline:
            want = [(d.id.encode(), normalise(d.to_dict(), now)) for d in q.stream()]
            if latest[0] == want:
                return {"docs": want, "failed": failed}
            changed.clear()
            changed.wait(0.2)
        return {"timeout": latest[0], "failed": failed}
    finally:
        watch.unsubscribe()


# The default mix (`--kind all`): every case index runs a core case; these also run a rules and a
# listen case (the CI budget: rules and listen cases cost more than a core case).
RULES_EVERY = 3
LISTEN_EVERY = 10


def kinds_of(kind, case, single):
    """The kinds case index `case` runs (a single reproduction with `all` runs every kind)."""
    if kind != "all":
        return [kind]
    if single:
        return ["core", "rules", "listen"]
    return ["core"] + (["rules"] if case % RULES_EVERY == 0 else []) + (["listen"] if case % LISTEN_EVERY == 0 else [])


def classify(kind, what, ours, google):
    """None when equal; 'known' when docs/differences.md keeps it; 'code' or 'message' or 'answer'."""
    if ours == google:
        return None
    for k, pred in KNOWN:
        if k == kind and pred(ours, google):
            return "known"
    for k, pred in KNOWN_BY_REQUEST:
        if k == kind and pred(what, ours, google):
            return "known"
    if ours[0] == "error" and google[0] == "error":
        return "message" if ours[1] == google[1] else "code"
    return "answer"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--case", type=int, help="run only this case (a reproduction)")
    ap.add_argument("--kind", choices=["all", "core", "rules", "listen"], default="all",
                    help="core: documents, queries, aggregations, writes; rules: a ruleset and requests under random auth; "
                         f"listen: snapshot sequences; all (default): every case core, every {RULES_EVERY}th also rules, "
                         f"every {LISTEN_EVERY}th also listen")
    ap.add_argument("--strict-messages", action="store_true", help="fail on error messages that differ, not only codes")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if not google_emulator.available():
        print("skipped: Google's Firestore emulator (java and cloud-firestore-emulator.jar) is not installed")
        return 0
    from conftest import RunningEmulator
    started = time.time()
    ours = RunningEmulator(project=PROJECT)
    gproc, gport = google_emulator.start()
    try:
        sides = [Side("ours", f"{ours.host}:{ours.port}"), Side("google", f"127.0.0.1:{gport}")]
        now = datetime.datetime.now(datetime.timezone.utc)
        cases = [args.case] if args.case is not None else range(args.cases)
        counts = {"cases": 0, "operations": 0, "known": 0, "message": 0, "code": 0, "answer": 0}
        failures = []
        runners = {"core": run_case, "rules": lambda seed, case, sides, now: rules_kind.run_case(seed, case, sides, normalise, error, now),
                   "listen": lambda seed, case, sides, now: listen_kind.run_case(seed, case, sides, normalise, error, now)}
        per_kind = {k: {"cases": 0, "operations": 0, "seconds": 0.0} for k in runners}
        decided = {"allowed": 0, "denied": 0, "other error": 0}  # rules requests, as Google's emulator answered
        unsettled = {s.name: 0 for s in sides}  # listen steps a listener never caught up with (5 s)
        for case in cases:
            for kind_name in kinds_of(args.kind, case, args.case is not None):
                t0 = time.time()
                try:
                    rows = runners[kind_name](args.seed, case, sides, now)
                except Exception:  # noqa: BLE001 - a harness crash is a failing case too
                    failures.append((kind_name, case, "harness", traceback.format_exc(limit=3)))
                    continue
                per_kind[kind_name]["seconds"] += time.time() - t0
                per_kind[kind_name]["cases"] += 1
                per_kind[kind_name]["operations"] += len(rows) * len(sides)
                counts["cases"] += 1
                counts["operations"] += len(rows) * len(sides)
                for step, kind, what, answers in rows:
                    if kind == "rules" and step > 0 and what != "final state":
                        g = answers["google"]
                        decided[("allowed" if g[0] == "ok" else "denied" if g[1] == "PermissionDenied" else "other error")] += 1
                    if kind == "listen_seq" and what.startswith("step "):
                        for side_name, a in answers.items():
                            unsettled[side_name] += sum(1 for ok in a[1] if not ok)
                    c = classify(kind, what, answers["ours"], answers["google"])
                    if c is None:
                        continue
                    counts[c] += 1
                    if c == "known" or (c == "message" and not args.strict_messages):
                        if args.verbose:
                            print(f"[{c}] seed {args.seed} {kind_name} case {case} step {step} {what}: ours={answers['ours']!r} google={answers['google']!r}")
                        continue
                    failures.append((kind_name, case, f"step {step} {kind} ({what})", f"ours:   {answers['ours']!r}\n    google: {answers['google']!r}"))
        for kind_name, case, where, detail in failures:
            print(f"DIFFERENCE seed {args.seed} {kind_name} case {case} {where}\n    {detail}")
            print(f"  reproduce: Tests/differential/run.sh --seed {args.seed} --kind {kind_name} --case {case} --verbose")
        took = time.time() - started
        for k, v in per_kind.items():
            if v["cases"]:
                extra = f" (requests: {decided['allowed']} allowed, {decided['denied']} denied, {decided['other error']} other errors)" if k == "rules" else (
                    f" (listener steps that never settled: {unsettled})" if k == "listen" else "")
                print(f"  {k}: {v['cases']} cases, {v['operations']} operations, {v['seconds']:.1f}s{extra}")
        print(f"differential: {counts['cases']} cases, {counts['operations']} operations, {len(failures)} failing, "
              f"{counts['known']} known (docs/differences.md), {counts['message']} message-only, "
              f"{counts['code']} code, {counts['answer']} answer differences, {took:.1f}s")
        return 1 if failures else 0
    finally:
        google_emulator.stop(gproc)
        ours.stop()


if __name__ == "__main__":
    sys.exit(main())
