"""The `listen` kind of the differential harness: listeners on documents and on queries (filters,
orders, limits) through a random write sequence, their snapshot sequences compared.

What is compared, and why:
- The harness applies one write (or one batch) at a time and, before the next, waits until every
  listener's latest snapshot equals what a plain read of the same target answers (5 s at most).
  Each write is therefore a *step*, and a listener's snapshots are grouped by the step in which
  they arrived, so timing decides nothing that is compared.
- Per listener and step: the distinct states seen (a state is the ordered list of documents with
  their normalised contents; consecutive equal states collapse) and the set of changes the client
  reported as (type, document id). A server may legitimately deliver one step as one snapshot or
  several (production's watch batches by its own clock), which is why states collapse and changes
  are a set; an intermediate state that shows half a batch, a change reported twice differently,
  or a step that never settles is a difference.
- A `modified` change whose document kept its contents and its position is dropped: the client
  reports one when only the update time moved (a write that stores the same data), and update
  times are not compared anywhere in the harness (servers write their own).
- The last state of every listener, and the answer of every write (ok or its error code).
"""
import threading
import time

from writes import add_to_batch, apply_write

FIELDS = ["a", "b"]
VALUES = [0, 1, 2, 3, 5, 1.5, "x", "y", None, True]


def listeners(r, col):
    """2-4 listen targets as (description, target, is_document)."""
    from google.cloud import firestore
    from google.cloud.firestore_v1 import FieldFilter
    out = []
    for _ in range(r.randrange(2, 5)):
        roll = r.random()
        if roll < 0.25:
            did = f"d{r.randrange(4)}"
            out.append((f"doc {did}", col.document(did), True))
        elif roll < 0.4:
            out.append(("collection", col, False))
        elif roll < 0.6:
            f = (r.choice(FIELDS), r.choice(["==", ">=", "<", "!=", "in"]), r.choice(VALUES[:8]))
            if f[1] == "in":
                f = (f[0], "in", [r.choice(VALUES[:8]) for _ in range(2)])
            out.append((f"where {f}", col.where(filter=FieldFilter(*f)), False))
        else:
            field = r.choice(FIELDS)
            direction = r.choice([firestore.Query.ASCENDING, firestore.Query.DESCENDING])
            limit = r.randrange(1, 4)
            out.append((f"order_by {field} {direction} limit {limit}", col.order_by(field, direction=direction).limit(limit), False))
    return out


def document(r):
    return {f: r.choice(VALUES) for f in FIELDS if r.random() < 0.8}


def step_writes(r):
    """One step: a single write or a batch of 2-3 (to distinct documents: Google's emulator refuses
    some pairs of writes to one document that production accepts, docs/differences.md), each
    (kind, doc id, payload)."""
    def one(did):
        kind = r.choice(["set", "set", "merge", "update", "delete", "create"])
        if kind == "update":
            return kind, did, {r.choice(FIELDS): r.choice(VALUES)}
        return kind, did, (None if kind == "delete" else document(r))
    return [one(f"d{i}") for i in r.sample(range(5), 1 if r.random() < 0.75 else r.randrange(2, 4))]


def apply(client, col, writes):
    if len(writes) == 1:
        kind, did, payload = writes[0]
        ref = col.document(did)
        apply_write(ref, kind, payload)
        return
    b = client.batch()
    for kind, did, payload in writes:
        add_to_batch(b, col.document(did), kind, payload)
    b.commit()


class Recorder:
    """One listener's snapshots, each tagged with the step it arrived in (lock: `cond`)."""

    def __init__(self, target, is_document, normalise, now):
        self.cond = threading.Condition()
        self.step = 0
        self.snapshots = []  # (step, state, changes)
        self.latest = None
        self.normalise, self.now, self.is_document = normalise, now, is_document
        self.watch = target.on_snapshot(self.on_snapshot)

    def state_of(self, docs):
        return tuple((d.id, self.normalise(d.to_dict(), self.now)) for d in docs if d.exists)

    def on_snapshot(self, docs, changes, read_time):
        state = self.state_of(docs)
        kept = []
        for ch in changes:
            # (the client reports a single document listener's snapshot without changes)
            if ch.type.name == "MODIFIED" and ch.old_index == ch.new_index and self.latest is not None:
                before = dict(self.latest).get(ch.document.id)
                if before == self.normalise(ch.document.to_dict(), self.now):
                    continue
            kept.append((ch.type.name, ch.document.id))
        with self.cond:
            self.snapshots.append((self.step, state, kept))
            self.latest = state
            self.cond.notify_all()

    def wait_for(self, want, timeout=5.0):
        """Waits until the latest snapshot holds the documents of `want` (compared as a set: the
        client orders a listener's documents by its own comparator, which leaves out the implicit
        order an inequality adds, so a plain read may list them differently)."""
        deadline = time.time() + timeout
        want = sorted(want, key=repr)
        with self.cond:
            while self.latest is None or sorted(self.latest, key=repr) != want:
                left = deadline - time.time()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def summary(self, steps):
        """Per step: the distinct states seen and the set of reported changes."""
        with self.cond:
            out = []
            for s in range(steps + 1):
                states, changes = [], set()
                for step, state, kept in self.snapshots:
                    if step != s:
                        continue
                    if not states or states[-1] != state:
                        states.append(state)
                    changes.update(kept)
                out.append((s, tuple(states), tuple(sorted(changes))))
            return out, self.latest


def read(target, is_document, normalise, now):
    if is_document:
        snap = target.get()
        return ((snap.id, normalise(snap.to_dict(), now)),) if snap.exists else ()
    return tuple((d.id, normalise(d.to_dict(), now)) for d in target.get())


def run_case(seed, case, sides, normalise, error, now):
    """Runs one listen case on every side; returns [(step, kind, description, {side: answer})]."""
    import random
    streams = {}
    for side in sides:
        r = random.Random(f"listen:{seed}:{case}")
        client = side.client
        col = client.collection(f"l{seed}_{case}")
        answers = []
        for i in range(r.randrange(0, 4)):
            col.document(f"d{i}").set(document(r))
        targets = listeners(r, col)
        recorders = []
        try:
            for _, target, is_doc in targets:
                rec = Recorder(target, is_doc, normalise, now)
                recorders.append(rec)
                rec.wait_for(read(target, is_doc, normalise, now), timeout=10)
            steps = r.randrange(3, 9)
            for s in range(1, steps + 1):
                for rec in recorders:
                    with rec.cond:
                        rec.step = s
                writes = step_writes(r)
                try:
                    apply(client, col, writes)
                    outcome = ("ok",)
                except Exception as e:  # noqa: BLE001 - a refused write is an answer too
                    outcome = error(e)[:2]
                settled = []
                for (desc, target, is_doc), rec in zip(targets, recorders):
                    settled.append(rec.wait_for(read(target, is_doc, normalise, now)))
                answers.append((s, "listen_seq", f"step {s} writes {writes!r}", (outcome, tuple(settled))))
            for (desc, target, is_doc), rec in zip(targets, recorders):
                per_step, last = rec.summary(steps)
                answers.append((steps + 1, "listen_seq", f"listener {desc}: snapshots per step", ("ok", tuple(per_step))))
                answers.append((steps + 2, "listen_seq", f"listener {desc}: final state", ("ok", last)))
        finally:
            for rec in recorders:
                rec.watch.unsubscribe()
        streams[side.name] = answers
    names = [s.name for s in sides]
    return [(row[0][0], row[0][1], row[0][2], {n: a[3] for n, a in zip(names, row)}) for row in zip(*(streams[n] for n in names))]
