"""The write kinds the generators produce ("set", "merge", "create", "update", "delete"), applied to
a document reference or added to a batch: one place for the core, rules and listen kinds."""


def apply_write(ref, kind, payload):
    """Performs one write of `kind` on `ref` (payload is None for a delete)."""
    if kind == "set":
        ref.set(payload)
    elif kind == "merge":
        ref.set(payload, merge=True)
    elif kind == "create":
        ref.create(payload)
    elif kind == "update":
        ref.update(payload)
    else:
        ref.delete()


def add_to_batch(batch, ref, kind, payload):
    """Adds one write of `kind` on `ref` to `batch`."""
    if kind == "set":
        batch.set(ref, payload)
    elif kind == "merge":
        batch.set(ref, payload, merge=True)
    elif kind == "create":
        batch.create(ref, payload)
    elif kind == "update":
        batch.update(ref, payload)
    else:
        batch.delete(ref)
