"""The `rules` kind of the differential harness: one seeded ruleset per case, loaded into both
emulators for a project of its own, then random requests under random auth contexts; what is
compared is allow or deny (the status code) and, when allowed, the answer and the stored state.

Rulesets come from a small grammar: `match` blocks for `users/{userId}`, its sub-collection
`posts/{postId}`, `items/{itemId}`, `pub/{document=**}` and `cfg/{cfgId}`, each with 0-3 `allow`
statements over random methods (`read, write, get, list, create, update, delete`) whose conditions
combine atoms on `request.auth` (null or not, uid, custom claims, token fields), on the wildcard
variables, on `request.resource.data` (comparisons, types, `keys().hasOnly/hasAll`, `size()`,
`diff().affectedKeys()`), on `resource.data` and on `exists()/get()` of other documents (and
`existsAfter()/getAfter()` in write rules).

Auth contexts are unsigned emulator ID tokens (`alg: none`, as `@firebase/rules-unit-testing`
mints them), which both emulators accept; the client sends them in place of its `Bearer owner`
(no header at all for the unauthenticated context). Denial messages are not compared: ours
explain what was tried (docs/rules.md), Google's name the failing expression, so a
PERMISSION_DENIED answer is compared by its code alone.
"""
import base64
import json
import os
import time

from writes import add_to_batch, apply_write

AUTHS = {
    "none": None,
    "alice": {},
    "bob": {},
    "carol": {},
    "alice_admin": {"admin": True},
    "bob_editor": {"role": "editor"},
    "carol_admin_false": {"admin": False, "role": "viewer"},
}

# Documents a case may touch; `pub` is matched by `{document=**}` at any depth.
PATHS = ["users/alice", "users/bob", "users/carol", "users/alice/posts/p1", "users/bob/posts/p1", "users/alice/posts/p2",
         "items/d1", "items/d2", "items/d3", "pub/a", "pub/a/sub/b", "cfg/settings", "cfg/open"]
COLLECTIONS = ["users", "items", "users/alice/posts", "users/bob/posts", "pub", "pub/a/sub", "cfg"]

AUTH_ATOMS = [
    "request.auth != null",
    "request.auth == null",
    "request.auth.uid == 'alice'",
    "request.auth.token.admin == true",
    "request.auth.token.role == 'editor'",
    "request.auth.token.get('role', 'none') == 'editor'",
    "'admin' in request.auth.token",
    "request.auth.token.firebase.sign_in_provider == 'custom'",
    "request.auth.uid in ['alice', 'bob']",
]
RESOURCE_ATOMS = [
    "resource.data.owner == request.auth.uid",
    "resource.data.x > 2",
    "resource.data.x == 1",
    "resource.data.public == true",
    "resource.data.x is int",
    "resource == null",
    "resource != null",
    "resource.id == 'd1'",
]
REQUEST_ATOMS = [
    "request.resource.data.owner == request.auth.uid",
    "request.resource.data.x is int",
    "request.resource.data.x is string",
    "request.resource.data.x < 10",
    "request.resource.data.keys().hasOnly(['owner', 'x', 'public'])",
    "request.resource.data.keys().hasAll(['owner'])",
    "request.resource.data.size() <= 3",
]
AFTER_ATOMS = [
    "existsAfter(/databases/$(database)/documents/users/$(request.auth.uid))",
    "getAfter(/databases/$(database)/documents/cfg/settings).data.mode == 'public'",
    "!existsAfter(/databases/$(database)/documents/cfg/open)",
]
UPDATE_ATOMS = [
    "request.resource.data.x == resource.data.x",
    "request.resource.data.diff(resource.data).affectedKeys().hasOnly(['x'])",
    "request.resource.data.owner == resource.data.owner",
]
DOC_ATOMS = [
    "exists(/databases/$(database)/documents/cfg/open)",
    "get(/databases/$(database)/documents/cfg/settings).data.mode == 'public'",
    "exists(/databases/$(database)/documents/users/$(request.auth.uid))",
    "get(/databases/$(database)/documents/users/$(request.auth.uid)).data.role == 'admin'",
]
METHODS = ["read", "write", "get", "list", "create", "update", "delete"]

BLOCKS = [
    ("users/{userId}", ["request.auth.uid == userId", "userId == 'alice'"]),
    ("users/{userId}/posts/{postId}", ["request.auth.uid == userId", "postId == 'p1'",
                                       "get(/databases/$(database)/documents/users/$(userId)).data.public == true"]),
    ("items/{itemId}", ["itemId == 'd1'", "itemId in ['d1', 'd2']"]),
    ("pub/{document=**}", ["true"]),
    ("cfg/{cfgId}", ["cfgId == 'settings'"]),
]


def atom(r, methods, own):
    """One atomic condition, mostly one that makes sense for the methods (one in ten does not:
    evaluation errors deny in both)."""
    pool = AUTH_ATOMS + DOC_ATOMS + own
    reads = {"read", "get", "list"} & set(methods)
    writes = {"write", "create", "update", "delete"} & set(methods)
    if reads or "update" in methods or "delete" in methods or "write" in methods:
        pool = pool + RESOURCE_ATOMS
    if {"create", "update", "write"} & writes:
        pool = pool + REQUEST_ATOMS
    if writes:
        pool = pool + AFTER_ATOMS
    if {"update", "write"} & writes:
        pool = pool + UPDATE_ATOMS
    if r.random() < 0.1:
        pool = AUTH_ATOMS + RESOURCE_ATOMS + REQUEST_ATOMS + UPDATE_ATOMS + DOC_ATOMS + own
    return r.choice(pool)


def condition(r, methods, own):
    roll = r.random()
    if roll < 0.12:
        return r.choice(["true", "true", "false"])
    if roll < 0.6:
        return atom(r, methods, own)
    if roll < 0.72:
        return f"{atom(r, methods, own)} && {atom(r, methods, own)}"
    if roll < 0.9:
        return f"{atom(r, methods, own)} || {atom(r, methods, own)}"
    if roll < 0.95:
        return f"!({atom(r, methods, own)})"
    return f"({atom(r, methods, own)} || {atom(r, methods, own)}) && {atom(r, methods, own)}"


def ruleset(r):
    """A ruleset (rules_version 2) as text."""
    lines = ["rules_version = '2';", "service cloud.firestore {", "  match /databases/{database}/documents {"]
    for path, own in BLOCKS:
        if r.random() < 0.15:
            continue  # no block: default deny
        lines.append(f"    match /{path} {{")
        for _ in range(r.randrange(1, 5)):
            methods = sorted(set(r.choices(METHODS + ["read", "write"], k=r.choice([1, 1, 2]))), key=METHODS.index)
            lines.append(f"      allow {', '.join(methods)}: if {condition(r, methods, own)};")
        if r.random() < 0.35:
            # A broad grant on auth alone, so that writes (and batches) are often allowed too.
            lines.append(f"      allow {r.choice(['write', 'create, update', 'update, delete'])}: if {r.choice(AUTH_ATOMS + own)};")
        lines.append("    }")
    if r.random() < 0.2:
        # An overlapping recursive block: any matching allow grants.
        lines.append("    match /{document=**} {")
        lines.append(f"      allow read: if {r.choice(AUTH_ATOMS)};")
        lines.append("    }")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def token(project, uid, claims):
    """An unsigned emulator ID token (what rules-unit-testing mints)."""
    def b64(o):
        return base64.urlsafe_b64encode(json.dumps(o, separators=(",", ":")).encode()).rstrip(b"=").decode()
    now = int(time.time())
    payload = {"iss": f"https://securetoken.google.com/{project}", "aud": project, "iat": now, "exp": now + 3600,
               "auth_time": now, "sub": uid, "user_id": uid, "firebase": {"sign_in_provider": "custom", "identities": {}}, **claims}
    return b64({"alg": "none", "typ": "JWT"}) + "." + b64(payload) + "."


def client(host_port, project, bearer):
    """A google-cloud-firestore client for one project sending `bearer` (None: no Authorization)."""
    from google.cloud import firestore
    from google.cloud.firestore_v1 import _helpers
    os.environ["FIRESTORE_EMULATOR_HOST"] = host_port
    c = firestore.Client(project=project)
    metadata = _helpers.metadata_with_prefix(c._database_string)
    if bearer:
        metadata.append(("authorization", f"Bearer {bearer}"))
    c._rpc_metadata_internal = metadata  # the client otherwise always sends `Bearer owner`
    return c


def data(r):
    d = {}
    if r.random() < 0.85:
        d["owner"] = r.choice(["alice", "bob", "carol"])
    if r.random() < 0.85:
        d["x"] = r.choice([1, 2, 3, 5, 12, "a", 2.5])
    if r.random() < 0.6:
        d["public"] = r.choice([True, False])
    if r.random() < 0.15:
        d["y"] = 1
    return d


def setup(r):
    """The documents written (as owner) before the requests."""
    docs = {}
    for path in PATHS:
        if r.random() < 0.55:
            docs[path] = data(r)
    if "users/alice" in docs:
        docs["users/alice"]["role"] = r.choice(["admin", "user"])
    if "cfg/settings" in docs:
        docs["cfg/settings"]["mode"] = r.choice(["public", "private"])
    return docs


def request(r):
    """One request as (auth name, kind, arguments)."""
    auth = r.choice(list(AUTHS))
    roll = r.random()
    if roll < 0.25:
        return auth, "get", (r.choice(PATHS),)
    if roll < 0.45:
        col = r.choice(COLLECTIONS + ["group:posts"])
        f = r.choice([None, None, ("owner", "==", "alice"), ("owner", "==", "bob"), ("x", "==", 1), ("x", ">", 2),
                      ("x", "<=", 3), ("x", ">=", "a"), ("public", "==", True), ("owner", "in", ["alice", "bob"])])
        return auth, "query", (col, f, r.choice([None, None, 1, 5]))
    if roll < 0.5:
        return auth, "list_documents", (r.choice(COLLECTIONS),)
    if roll < 0.85:
        kind = r.choice(["create", "set", "merge", "update", "delete"])
        return auth, kind, (r.choice(PATHS), partial(r, kind))
    # Distinct documents: Google's emulator merges or refuses several writes to one document in a
    # commit, as its Datastore heritage does (docs/differences.md keeps that).
    paths = r.sample(PATHS, r.choice([2, 2, 3]))
    return auth, "batch", tuple((k, p, partial(r, k)) for k, p in zip(r.choices(["create", "set", "update", "delete"], k=len(paths)), paths))


def partial(r, kind):
    if kind == "update":
        return {r.choice(["x", "owner", "public", "y"]): r.choice([1, 3, 12, "a", "alice", True])}
    if kind == "delete":
        return None
    return data(r)


def run_case(seed, case, sides, normalise, error, now):
    """Runs one rules case on every side; returns [(step, kind, description, {side: answer})]."""
    import random
    import requests
    project = f"demo-r{seed}-{case}"
    streams = {}
    for side in sides:
        r = random.Random(f"rules:{seed}:{case}")
        rules = ruleset(r)
        answers = []
        base = f"http://{side.host_port}"
        requests.post(f"{base}/emulator/v1/projects", json={"projectId": project}, timeout=10)  # ours: register (Google's ignores it)
        put = requests.put(f"{base}/emulator/v1/projects/{project}:securityRules",
                           json={"rules": {"files": [{"name": "firestore.rules", "content": rules}]}}, timeout=30)
        answers.append((0, "rules", "load ruleset:\n" + rules, ("ok",) if put.status_code == 200 else ("error", put.status_code)))
        clients = {}

        def db(auth):
            if auth not in clients:
                bearer = "owner" if auth == "owner" else (token(project, auth.split("_")[0], AUTHS[auth]) if AUTHS[auth] is not None else None)
                clients[auth] = client(side.host_port, project, bearer)
            return clients[auth]

        def ans(fn):
            try:
                return ("ok", fn())
            except Exception as e:  # noqa: BLE001 - every failure is an answer to compare
                out = error(e)
                return ("error", "PermissionDenied", "") if out[1] == "PermissionDenied" else out

        def read(path):
            snap = db("owner").document(path).get()
            return normalise(snap.to_dict(), now) if snap.exists else "missing"

        try:
            for path, d in setup(r).items():
                db("owner").document(path).set(d)
            step = 1
            for _ in range(r.randrange(6, 13)):
                auth, kind, args = request(r)
                c = db(auth)
                what = f"{kind} as {auth}: {args!r}"
                if kind == "get":
                    def fn():
                        snap = c.document(args[0]).get()
                        return normalise(snap.to_dict(), now) if snap.exists else "missing"
                elif kind == "query":
                    col, f, limit = args

                    def fn():
                        from google.cloud.firestore_v1 import FieldFilter
                        q = c.collection_group(col[6:]) if col.startswith("group:") else c.collection(col)
                        if f:
                            q = q.where(filter=FieldFilter(*f))
                        if limit:
                            q = q.limit(limit)
                        return sorted((d.reference.path, normalise(d.to_dict(), now)) for d in q.stream())
                elif kind == "list_documents":
                    def fn():
                        # ListDocuments without show_missing (the client's list_documents() sets it,
                        # and listing missing documents needs admin in both).
                        parent, _, cid = f"{c._database_string}/documents/{args[0]}".rpartition("/")
                        got = c._firestore_api.list_documents(request={"parent": parent, "collection_id": cid}, metadata=c._rpc_metadata)
                        from google.cloud.firestore_v1 import _helpers
                        return sorted((d.name.partition("/documents/")[2], normalise(_helpers.decode_dict(d.fields, c), now)) for d in got)
                elif kind == "batch":
                    def fn():
                        b = c.batch()
                        for k, path, payload in args:
                            add_to_batch(b, c.document(path), k, payload)
                        b.commit()
                        return [read(path) for _, path, _ in args]
                else:
                    path, payload = args

                    def fn():
                        apply_write(c.document(path), kind, payload)
                        return read(path)
                answers.append((step, "rules", what, ans(fn)))
                step += 1
            answers.append((step, "rules", "final state", ans(lambda: {p: read(p) for p in PATHS})))
        finally:
            for c in clients.values():
                c.close()
        streams[side.name] = answers
    names = [s.name for s in sides]
    return [(row[0][0], row[0][1], row[0][2], {n: a[3] for n, a in zip(names, row)}) for row in zip(*(streams[n] for n in names))]
