"""Storage triggers to a Python codebase (`storage_fn`, firebase-functions from PyPI): finalized on
upload (Firebase API and JSON API), metadataUpdated on a metadata change, deleted on delete, each
exactly once per change, in order, with the object's Cloud Storage JSON as CloudEvent data; reading
an object (which mints no token) fires nothing; a function on another bucket sees only that bucket."""
import json
import urllib.parse

import pytest
import requests

from functions_python.sdk import HERE, OWNER, idle, listing, make_project, start

PROJECT = "demo-pystorage"
BUCKET = f"{PROJECT}.appspot.com"


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    folder = make_project(tmp_path_factory.mktemp("project"), PROJECT, codebases={"default": (HERE / "storage_codebase", "functions")})
    e = start(folder)
    yield e
    e.stop()


def events(emu):
    r = requests.get(f"{emu.url}/v1/projects/{PROJECT}/databases/(default)/documents/storage_events?pageSize=300", headers=OWNER, timeout=10)
    r.raise_for_status()
    out = []
    for d in r.json().get("documents", []):
        f = d["fields"]
        out.append({k: next(iter(v.values())) for k, v in f.items() if k != "metadata"})
    return out


def test_storage_triggers_fire_once_per_change(emu):
    triggers = {f["name"]: f["trigger"] for f in listing(emu)["functions"]}
    assert triggers == {"on_finalized": f"storage.finalized {BUCKET}", "on_metadata": f"storage.metadataUpdated {BUCKET}",
                        "on_deleted": f"storage.deleted {BUCKET}", "on_other_bucket": "storage.finalized other-bucket-for-triggers"}
    name = "photos/cat.txt"
    up = requests.post(f"{emu.url}/v0/b/{BUCKET}/o?name={urllib.parse.quote(name, safe='')}", data=b"meow", headers={"Content-Type": "text/plain"}, timeout=10)
    assert up.status_code == 200, up.text
    # Reads fire nothing (no token is minted behind the user's back).
    for _ in range(3):
        assert requests.get(f"{emu.url}/v0/b/{BUCKET}/o/{urllib.parse.quote(name, safe='')}", timeout=10).status_code == 200
    patch = requests.patch(f"{emu.url}/v0/b/{BUCKET}/o/{urllib.parse.quote(name, safe='')}", json={"metadata": {"mood": "sleepy"}}, timeout=10)
    assert patch.status_code == 200, patch.text
    gcs = requests.post(f"{emu.url}/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name=raw.bin", data=b"12345", timeout=10)
    assert gcs.status_code == 200, gcs.text
    assert requests.delete(f"{emu.url}/v0/b/{BUCKET}/o/{urllib.parse.quote(name, safe='')}", timeout=10).status_code == 204
    idle(emu)
    got = events(emu)
    kinds = sorted((e["kind"], e["name"]) for e in got)
    assert kinds == sorted([("deleted", name), ("finalized", "raw.bin"), ("finalized", name), ("metadataUpdated", name)]), got
    by = {(e["kind"], e["name"]): e for e in got}
    fin = by[("finalized", name)]
    assert fin["type"] == "google.cloud.storage.object.v1.finalized" and fin["bucket"] == BUCKET and int(fin["size"]) == 4
    assert fin["contentType"] == "text/plain" and fin["source"] == f"//storage.googleapis.com/projects/_/buckets/{BUCKET}"
    assert fin["subject"] == f"objects/{name}"
    assert int(by[("metadataUpdated", name)]["metageneration"]) == 2
    assert by[("deleted", name)]["type"] == "google.cloud.storage.object.v1.deleted"
    assert len({e["id"] for e in got}) == len(got)
