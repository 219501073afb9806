"""Storage rules end to end (docs/storage.md, "Security rules"): `--storage-rules` and firebase.json's
`storage.rules`, the Firebase API judged with request.auth, request.resource.size/contentType/metadata,
list (rules_version 2), overwrite judged as `update`, cross-service `firestore.exists/get` answered
from the same process's Firestore; download tokens, `Bearer owner` and the GCS API bypass rules;
denials carry the explanation and land in the request log with `service: storage`."""
import base64
import json
import time
import urllib.parse

import requests

RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} {
      allow get, list, delete: if request.auth != null && request.auth.uid == uid;
      allow create: if request.auth.uid == uid && request.resource.size < 1024
                    && request.resource.contentType.matches('text/.*')
                    && request.resource.metadata.get('kind', 'note') == 'note';
      allow update: if false;
    }
    match /teams/{team}/{file=**} {
      allow get: if firestore.exists(/databases/(default)/documents/teams/$(team)/members/$(request.auth.uid));
      allow create: if firestore.get(/databases/(default)/documents/users/$(request.auth.uid)).data.role == 'editor';
    }
  }
}
"""
OWNER = {"Authorization": "Bearer owner"}


def b64(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def user(project, uid):
    """The JS SDK's Storage header for a signed-in user (an unsigned emulator token)."""
    claims = {"iss": f"https://securetoken.google.com/{project}", "aud": project, "iat": int(time.time()),
              "exp": int(time.time()) + 3600, "auth_time": int(time.time()), "sub": uid, "user_id": uid,
              "firebase": {"sign_in_provider": "password", "identities": {}}}
    return {"Authorization": f"Firebase {b64({'alg': 'none', 'typ': 'JWT'})}.{b64(claims)}."}


def upload(emu, name, data=b"hi", content_type="text/plain", headers=None, metadata=None):
    bucket = f"{emu.project}.appspot.com"
    url = f"{emu.url}/v0/b/{bucket}/o?name={urllib.parse.quote(name, safe='')}"
    if metadata is None:
        return requests.post(url, data=data, headers={"Content-Type": content_type, **(headers or {})}, timeout=10)
    boundary = "b0undary"
    body = (f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
            + json.dumps({"name": name, "contentType": content_type, "metadata": metadata})
            + f"\r\n--{boundary}\r\nContent-Type: {content_type}\r\n\r\n").encode() + data + f"\r\n--{boundary}--".encode()
    return requests.post(url, data=body, timeout=10, headers={"Content-Type": f"multipart/related; boundary={boundary}",
                                                              "X-Goog-Upload-Protocol": "multipart", **(headers or {})})


def obj_url(emu, name):
    return f"{emu.url}/v0/b/{emu.project}.appspot.com/o/{urllib.parse.quote(name, safe='')}"


def test_storage_rules_judge_the_firebase_api(emulator_factory, tmp_path):
    rules = tmp_path / "storage.rules"
    rules.write_text(RULES)
    emu = emulator_factory("--storage-rules", str(rules))
    p = emu.project
    alice, bob = user(p, "alice"), user(p, "bob")

    # create: auth, size, content type, custom metadata
    ok = upload(emu, "users/alice/a.txt", headers=alice)
    assert ok.status_code == 200, ok.text
    token = ok.json()["downloadTokens"]
    assert upload(emu, "users/alice/b.txt", headers=bob).status_code == 403
    assert upload(emu, "users/alice/b.txt").status_code == 403  # signed out
    big = upload(emu, "users/alice/big.txt", data=b"x" * 2000, headers=alice)
    assert big.status_code == 403
    err = big.json()["error"]
    assert err["code"] == 403 and "No WRITE permission" in err["message"] and "request.resource.size < 1024" in err["message"]
    assert upload(emu, "users/alice/p.png", content_type="image/png", headers=alice).status_code == 403
    assert upload(emu, "users/alice/m.txt", metadata={"kind": "note"}, headers=alice).status_code == 200
    assert upload(emu, "users/alice/m2.txt", metadata={"kind": "secret"}, headers=alice).status_code == 403

    # overwrite is `update` (production), denied here although `create` would allow it
    over = upload(emu, "users/alice/a.txt", data=b"again", headers=alice)
    assert over.status_code == 403 and "'update'" in over.json()["error"]["message"]

    # get: the owner, not others; a download token bypasses rules; Bearer owner and the GCS API are admin
    assert requests.get(obj_url(emu, "users/alice/a.txt"), headers=alice, timeout=10).status_code == 200
    denied = requests.get(obj_url(emu, "users/alice/a.txt") + "?alt=media", headers=bob, timeout=10)
    assert denied.status_code == 403 and "No READ permission" in denied.json()["error"]["message"]
    assert requests.get(obj_url(emu, "users/alice/a.txt") + f"?alt=media&token={token}", timeout=10).content == b"hi"
    assert requests.get(obj_url(emu, "users/alice/a.txt") + "?alt=media&token=wrong", timeout=10).status_code == 403
    assert requests.get(obj_url(emu, "users/alice/a.txt") + "?alt=media", headers=OWNER, timeout=10).content == b"hi"
    gcs = requests.get(f"{emu.url}/storage/v1/b/{p}.appspot.com/o/{urllib.parse.quote('users/alice/a.txt', safe='')}?alt=media", timeout=10)
    assert gcs.status_code == 200 and gcs.content == b"hi"

    # list (rules_version 2): the owner's folder only
    listing = f"{emu.url}/v0/b/{p}.appspot.com/o?prefix=users%2Falice%2F&delimiter=%2F"
    r = requests.get(listing, headers=alice, timeout=10)
    assert r.status_code == 200 and {i["name"] for i in r.json()["items"]} == {"users/alice/a.txt", "users/alice/m.txt"}
    assert requests.get(listing, headers=bob, timeout=10).status_code == 403

    # delete
    assert requests.delete(obj_url(emu, "users/alice/m.txt"), headers=bob, timeout=10).status_code == 403
    assert requests.delete(obj_url(emu, "users/alice/m.txt"), headers=alice, timeout=10).status_code == 204

    # cross-service: firestore.exists/get read this process's Firestore (no Firestore rules on them)
    docs = f"{emu.url}/v1/projects/{p}/databases/(default)/documents"
    assert upload(emu, "teams/t1/plan.txt", headers=alice).status_code == 403  # no users/alice document yet
    requests.patch(f"{docs}/users/alice", json={"fields": {"role": {"stringValue": "editor"}}}, headers=OWNER, timeout=10).raise_for_status()
    requests.patch(f"{docs}/users/bob", json={"fields": {"role": {"stringValue": "viewer"}}}, headers=OWNER, timeout=10).raise_for_status()
    assert upload(emu, "teams/t1/plan.txt", headers=alice).status_code == 200
    assert upload(emu, "teams/t1/other.txt", headers=bob).status_code == 403
    assert requests.get(obj_url(emu, "teams/t1/plan.txt"), headers=bob, timeout=10).status_code == 403
    requests.patch(f"{docs}/teams/t1/members/bob", json={"fields": {}}, headers=OWNER, timeout=10).raise_for_status()
    assert requests.get(obj_url(emu, "teams/t1/plan.txt"), headers=bob, timeout=10).status_code == 200

    # the request log: storage entries with verdicts, explanations and the deciding lines
    log = requests.get(f"{emu.url}/emulator/v1/projects/{p}/rulesEvaluations", headers=OWNER, timeout=10).json()["evaluations"]
    storage = [e for e in log if e.get("service") == "storage"]
    assert {e["outcome"] for e in storage} >= {"allow", "deny"}
    deny = next(e for e in storage if e["outcome"] == "deny" and e["path"] == "users/alice/big.txt")
    assert deny["method"] == "create" and deny["database"] == f"{p}.appspot.com" and deny["caller"] == {"kind": "user", "uid": "alice", "provider": "password"}
    assert "request.resource.size < 1024" in deny["explanation"] and deny["deciding"] and deny["rulesFile"] == "storage.rules"


def test_storage_rules_from_firebase_json_reload_when_edited(emulator_factory, tmp_path):
    (tmp_path / "storage.rules").write_text(RULES)
    (tmp_path / "firebase.json").write_text(json.dumps({"storage": {"rules": "storage.rules"}}))
    emu = emulator_factory("--config", str(tmp_path / "firebase.json"))
    assert upload(emu, "open/a.txt").status_code == 403  # no match statement for open/
    (tmp_path / "storage.rules").write_text(RULES.replace("match /teams/", "match /open/{f} { allow create; }\n    match /teams/"))
    deadline = time.time() + 10
    while upload(emu, "open/a.txt").status_code != 200:
        assert time.time() < deadline, "the edited rules were not reloaded"
        time.sleep(0.3)


def test_without_storage_rules_everything_is_allowed_as_in_firebase(emulator):
    """Firebase's emulator without `storage.rules` allows every read and write (with a warning)."""
    r = upload(emulator, "anyone/x.txt")
    assert r.status_code == 200
    assert requests.get(f"{emulator.url}/v0/b/{emulator.project}.appspot.com/o?prefix=anyone%2F", timeout=10).status_code == 200


def test_storage_rules_that_do_not_compile_stop_the_start(emulator_factory, tmp_path):
    bad = tmp_path / "storage.rules"
    bad.write_text("service cloud.firestore { match /databases/{d}/documents { } }")
    try:
        emulator_factory("--storage-rules", str(bad))
    except RuntimeError as e:
        assert "expected firebase.storage" in str(e)
    else:
        raise AssertionError("an emulator started with Firestore rules given as Storage rules")


PRIVATE = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{file=**} {
      allow read, write: if request.auth != null;
    }
  }
}
"""
PUBLIC = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{file=**} {
      allow read, write;
    }
  }
}
"""


def test_per_bucket_rules_from_firebase_json_targets(emulator_factory, tmp_path):
    """firebase.json's `storage` as a list (deploy targets): `{bucket, rules}` and `{target, rules}`
    with the target's buckets from .firebaserc, as the Firebase CLI resolves them. Each bucket is
    judged by its own file (reloaded when edited); a bucket no entry names is denied with a reason;
    coverage is served per bucket and denials are explained in the request log."""
    (tmp_path / "private.rules").write_text(PRIVATE)
    (tmp_path / "public.rules").write_text(PUBLIC)
    (tmp_path / "firebase.json").write_text(json.dumps({"storage": [
        {"bucket": "demo-test.appspot.com", "rules": "private.rules"}, {"target": "assets", "rules": "public.rules"}]}))
    (tmp_path / ".firebaserc").write_text(json.dumps({"projects": {"default": "demo-test"},
                                                      "targets": {"demo-test": {"storage": {"assets": ["demo-test-assets"]}}}}))
    emu = emulator_factory("--config", str(tmp_path / "firebase.json"))
    p = emu.project
    requests.post(f"{emu.url}/storage/v1/b?project={p}", json={"name": "demo-test-assets"}, timeout=10).raise_for_status()

    def up(bucket, name, headers=None):
        return requests.post(f"{emu.url}/v0/b/{bucket}/o?name={name}", data=b"x", headers={"Content-Type": "text/plain", **(headers or {})}, timeout=10)

    assert up("demo-test-assets", "logo.txt").status_code == 200  # public.rules
    denied = up(f"{p}.appspot.com", "a.txt")  # private.rules, signed out
    assert denied.status_code == 403 and "No WRITE permission" in denied.json()["error"]["message"], denied.text
    assert "private.rules" in denied.json()["error"]["message"]
    assert up(f"{p}.appspot.com", "a.txt", user(p, "alice")).status_code == 200
    unnamed = up(f"{p}.firebasestorage.app", "a.txt", user(p, "alice"))
    assert unnamed.status_code == 403 and "no Storage rules are loaded for bucket 'demo-test.firebasestorage.app'" in unnamed.json()["error"]["message"]

    # Coverage per bucket, as Firestore's :ruleCoverage.
    cov = requests.get(f"{emu.url}/emulator/v1/projects/{p}/storage/buckets/{p}.appspot.com:ruleCoverage", timeout=10)
    assert cov.status_code == 200, cov.text
    assert "request.auth != null" in json.dumps(cov.json())
    html = requests.get(f"{emu.url}/emulator/v1/projects/{p}/storage/buckets/{p}.appspot.com:ruleCoverage.html", timeout=10)
    assert html.status_code == 200 and html.headers["Content-Type"].startswith("text/html") and "request.auth" in html.text
    missing = requests.get(f"{emu.url}/emulator/v1/projects/{p}/storage/buckets/{p}.firebasestorage.app:ruleCoverage", timeout=10)
    assert missing.status_code == 404 and "No Storage rules are loaded" in missing.json()["error"]["message"]

    # The request log explains both kinds of denial.
    log = requests.get(f"{emu.url}/emulator/v1/projects/{p}/rulesEvaluations?outcome=deny", timeout=10).json()["evaluations"]
    storage = [e for e in log if e.get("service") == "storage"]
    by_bucket = {e["database"]: e for e in storage}
    assert by_bucket[f"{p}.appspot.com"]["rulesFile"] == "private.rules" and "request.auth != null" in by_bucket[f"{p}.appspot.com"]["explanation"]
    assert "no Storage rules are loaded" in by_bucket[f"{p}.firebasestorage.app"]["explanation"]

    # Editing one bucket's file reloads that bucket's rules only.
    (tmp_path / "public.rules").write_text(PRIVATE)
    deadline = time.time() + 10
    while up("demo-test-assets", "logo2.txt").status_code != 403:
        assert time.time() < deadline, "the edited per-bucket rules were not reloaded"
        time.sleep(0.3)
    assert up(f"{p}.appspot.com", "b.txt", user(p, "alice")).status_code == 200


def test_an_unresolved_storage_target_stops_the_start(emulator_factory, tmp_path):
    (tmp_path / "public.rules").write_text(PUBLIC)
    (tmp_path / "firebase.json").write_text(json.dumps({"storage": [{"target": "nowhere", "rules": "public.rules"}]}))
    try:
        emulator_factory("--config", str(tmp_path / "firebase.json"))
    except RuntimeError as e:
        assert "Storage target 'nowhere' is not configured in .firebaserc" in str(e)
    else:
        raise AssertionError("an emulator started with a Storage target no .firebaserc resolves")
