"""Storage durability and exports: under --data-dir an acknowledged upload (with its metadata and
download token), delete, bucket and token change survive `kill -9`; files no record names are
deleted at start; exports carry Storage in Firebase's storage_export/ layout, a Firebase export
imports, and an export imports back unchanged."""
import importlib.util
import json
import os
import pathlib
import signal
import threading
import urllib.parse

import pytest
import requests
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

from conftest import RunningEmulator

# The full-disk fixture and filler of test_durability.py (a test module, so loaded by path).
_spec = importlib.util.spec_from_file_location("_durability_helpers", pathlib.Path(__file__).with_name("test_durability.py"))
_durability = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_durability)
small_disk, fill = _durability.small_disk, _durability.fill

OWNER = {"Authorization": "Bearer owner"}


@pytest.fixture
def gcs_env(monkeypatch):
    """Points google-cloud-storage at an emulator (call with it)."""
    def point(emu):
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", emu.url)
        return storage.Client(project=emu.project, credentials=AnonymousCredentials())
    return point


def v0(emu, bucket, name=None):
    base = f"{emu.url}/v0/b/{bucket}/o"
    return base if name is None else f"{base}/{urllib.parse.quote(name, safe='')}"


def firebase_upload(s, emu, bucket, name, data, content_type="application/octet-stream"):
    return s.post(v0(emu, bucket), params={"name": name}, data=data, headers={**OWNER, "Content-Type": content_type}, timeout=10)


def download_with_token(emu, bucket, name, token):
    return requests.get(v0(emu, bucket, name), params={"alt": "media", "token": token}, timeout=10)


def test_acknowledged_storage_writes_survive_kill_9(tmp_path, gcs_env):
    data = str(tmp_path / "data")
    emu = RunningEmulator(["--data-dir", data])
    bucket_name = f"{emu.project}.appspot.com"
    try:
        client = gcs_env(emu)
        bucket = client.bucket(bucket_name)
        blob = bucket.blob("docs/report.txt")
        blob.metadata = {"owner": "ada"}
        blob.upload_from_string(b"quarterly numbers", content_type="text/plain")
        generation = blob.generation
        blob.cache_control = "no-store"
        blob.patch()
        bucket.blob("docs/tmp.bin").upload_from_string(b"scratch")
        bucket.blob("docs/tmp.bin").delete()
        made = client.create_bucket("durable-bucket", location="EU")
        made.blob("inside").upload_from_string(b"in the new bucket")
        s = requests.Session()
        up = firebase_upload(s, emu, bucket_name, "images/cat.png", b"\x89PNG fake", "image/png")
        assert up.status_code == 200, up.text
        token = up.json()["downloadTokens"]
        made_token = s.post(v0(emu, bucket_name, "images/cat.png"), params={"create_token": "true"}, headers=OWNER, timeout=10)
        assert made_token.status_code == 200, made_token.text
        second_token = made_token.json()["downloadTokens"].split(",")[1]
        # Uploads racing the kill: every acknowledged one must come back.
        acknowledged = []
        stop = threading.Event()

        def writer():
            ws = requests.Session()
            i = 0
            while not stop.is_set() and i < 3000:
                try:
                    r = firebase_upload(ws, emu, bucket_name, f"load/{i}", f"body {i}".encode())
                except requests.RequestException:
                    return
                if r.status_code == 200:
                    acknowledged.append(i)
                i += 1

        t = threading.Thread(target=writer)
        t.start()
        while len(acknowledged) < 50 and t.is_alive():
            stop.wait(0.01)
        emu.proc.send_signal(signal.SIGKILL)
        emu.proc.wait()
        stop.set()
        t.join()
        assert len(acknowledged) >= 50
    finally:
        emu.stop()
    # A file whose record never landed (the upload in flight at the kill) is deleted at start.
    blobs_dir = os.path.join(data, "storage", "blobs")
    with open(os.path.join(blobs_dir, "stray-upload"), "wb") as f:
        f.write(b"never acknowledged")

    again = RunningEmulator(["--data-dir", data])
    try:
        client = gcs_env(again)
        bucket = client.bucket(bucket_name)
        got = bucket.get_blob("docs/report.txt")
        assert got.download_as_bytes() == b"quarterly numbers"
        assert got.content_type == "text/plain" and got.metadata == {"owner": "ada"} and got.cache_control == "no-store"
        assert got.generation == generation and got.metageneration == 2
        assert bucket.get_blob("docs/tmp.bin") is None
        assert client.get_bucket("durable-bucket").location == "EU"
        assert client.bucket("durable-bucket").blob("inside").download_as_bytes() == b"in the new bucket"
        r = download_with_token(again, bucket_name, "images/cat.png", token)
        assert r.status_code == 200 and r.content == b"\x89PNG fake" and r.headers["Content-Type"].startswith("image/png")
        assert download_with_token(again, bucket_name, "images/cat.png", second_token).status_code == 200
        s = requests.Session()
        for i in acknowledged:
            r = s.get(v0(again, bucket_name, f"load/{i}"), params={"alt": "media"}, headers=OWNER, timeout=10)
            assert r.status_code == 200 and r.content == f"body {i}".encode(), (i, r.status_code)
        assert "stray-upload" not in os.listdir(blobs_dir)
        # Deleted after a restart, gone after the next one too.
        bucket.blob("docs/report.txt").delete()
    finally:
        again.stop()
    third = RunningEmulator(["--data-dir", data])
    try:
        assert gcs_env(third).bucket(bucket_name).get_blob("docs/report.txt") is None
        r = download_with_token(third, bucket_name, "images/cat.png", token)
        assert r.status_code == 200
    finally:
        third.stop()


def test_without_data_dir_storage_starts_empty(tmp_path, gcs_env):
    emu = RunningEmulator([])
    try:
        gcs_env(emu).bucket(f"{emu.project}.appspot.com").blob("x").upload_from_string(b"x")
    finally:
        emu.stop()
    emu = RunningEmulator([])
    try:
        assert gcs_env(emu).bucket(f"{emu.project}.appspot.com").get_blob("x") is None
    finally:
        emu.stop()


def write_firebase_fixture(root, project):
    """A folder as `firebase emulators:export` writes it with Storage (current layout: UUID disk
    names; tokens as an array), plus one object in the older `<bucket>/<path>` layout."""
    exp = root / "firebase-export"
    (exp / "storage_export" / "blobs").mkdir(parents=True)
    (exp / "storage_export" / "metadata").mkdir(parents=True)
    (exp / "firebase-export-metadata.json").write_text(json.dumps(
        {"version": "13.29.1", "storage": {"version": "13.29.1", "path": "storage_export"}}))
    (exp / "storage_export" / "buckets.json").write_text(json.dumps(
        {"buckets": [{"id": f"{project}.appspot.com"}, {"id": "demo-fixture-bucket"}]}, indent=2))
    disk = "5f0c6b4e-8a1d-4c3b-9e2f-7a6d5c4b3a21"
    (exp / "storage_export" / "blobs" / disk).write_bytes(b"hello from firebase")
    (exp / "storage_export" / "metadata" / f"{disk}.json").write_text(json.dumps({
        "name": "greetings/hello.txt", "bucket": f"{project}.appspot.com", "generation": 1700000000123,
        "metageneration": 2, "contentType": "text/plain", "timeCreated": "2023-11-14T22:13:20.123Z",
        "updated": "2023-11-14T22:15:00.000Z", "storageClass": "STANDARD", "size": 19,
        "md5Hash": "ignored", "crc32c": "0", "etag": "ignored", "contentDisposition": "inline",
        "downloadTokens": ["fixture-token-1"], "customMetadata": {"source": "firebase"}}, indent=2))
    old = exp / "storage_export" / "blobs" / "demo-fixture-bucket" / "old"
    old.mkdir(parents=True)
    (old / "file%20one.bin").write_bytes(b"\x00\x01\x02")
    meta_old = exp / "storage_export" / "metadata" / "demo-fixture-bucket" / "old"
    meta_old.mkdir(parents=True)
    (meta_old / "file%20one.bin.json").write_text(json.dumps({
        "name": "old/file one.bin", "bucket": "demo-fixture-bucket", "generation": 42, "metageneration": 1,
        "contentType": "application/octet-stream", "timeCreated": "2021-05-01T10:00:00.000Z",
        "updated": "2021-05-01T10:00:00.000Z", "storageClass": "STANDARD", "size": 3, "md5Hash": "x",
        "crc32c": "1", "etag": "e", "downloadTokens": "old-token-a,old-token-b", "customMetadata": {}}))
    return exp


def test_a_firebase_export_with_storage_imports(tmp_path, gcs_env):
    exp = write_firebase_fixture(tmp_path, "demo-test")
    emu = RunningEmulator(["--import", str(exp)])
    try:
        client = gcs_env(emu)
        got = client.bucket("demo-test.appspot.com").get_blob("greetings/hello.txt")
        assert got.download_as_bytes() == b"hello from firebase"
        assert got.content_type == "text/plain" and got.generation == 1700000000123 and got.metageneration == 2
        assert got.metadata == {"source": "firebase", "firebaseStorageDownloadTokens": "fixture-token-1"}
        assert got.time_created.isoformat().startswith("2023-11-14T22:13:20.123")
        r = download_with_token(emu, "demo-test.appspot.com", "greetings/hello.txt", "fixture-token-1")
        assert r.status_code == 200 and r.content == b"hello from firebase"
        old = client.bucket("demo-fixture-bucket").get_blob("old/file one.bin")
        assert old.download_as_bytes() == b"\x00\x01\x02" and old.generation == 42
        assert download_with_token(emu, "demo-fixture-bucket", "old/file one.bin", "old-token-b").status_code == 200
    finally:
        emu.stop()


def test_export_then_import_round_trip_keeps_storage(tmp_path, gcs_env):
    emu = RunningEmulator([])
    bucket_name = f"{emu.project}.appspot.com"
    out = str(tmp_path / "export")
    try:
        client = gcs_env(emu)
        blob = client.bucket(bucket_name).blob("dir/data.json")
        blob.metadata = {"k": "v", "n": "1"}
        blob.upload_from_string(b'{"a": 1}', content_type="application/json")
        up = firebase_upload(requests.Session(), emu, bucket_name, "pics/a.png", bytes(range(256)) * 40, "image/png")
        assert up.status_code == 200, up.text
        token = up.json()["downloadTokens"]
        r = requests.post(f"{emu.url}/emulator/v1/projects/{emu.project}:export", json={"path": out}, timeout=30)
        assert r.status_code == 200, r.text
        # A second export replaces the first (it is ours).
        r = requests.post(f"{emu.url}/emulator/v1/projects/{emu.project}:export", json={"path": out}, timeout=30)
        assert r.status_code == 200, r.text
        before = {b.name: b for b in client.list_blobs(bucket_name)}
    finally:
        emu.stop()
    meta = json.load(open(os.path.join(out, "firebase-export-metadata.json")))
    assert meta["storage"]["path"] == "storage_export" and meta["auth"]["path"] == "auth_export"
    buckets = json.load(open(os.path.join(out, "storage_export", "buckets.json")))
    assert bucket_name in {b["id"] for b in buckets["buckets"]}
    records = [json.load(open(os.path.join(out, "storage_export", "metadata", f)))
               for f in os.listdir(os.path.join(out, "storage_export", "metadata"))]
    by_name = {m["name"]: m for m in records}
    png = by_name["pics/a.png"]
    assert png["downloadTokens"] == [token] and png["contentType"] == "image/png" and png["size"] == 10240
    disk = [f for f in os.listdir(os.path.join(out, "storage_export", "metadata")) if json.load(
        open(os.path.join(out, "storage_export", "metadata", f)))["name"] == "pics/a.png"][0][:-5]
    assert open(os.path.join(out, "storage_export", "blobs", disk), "rb").read() == bytes(range(256)) * 40
    assert by_name["dir/data.json"]["customMetadata"] == {"k": "v", "n": "1"}

    fresh = RunningEmulator(["--import", out])
    try:
        client = gcs_env(fresh)
        after = {b.name: b for b in client.list_blobs(bucket_name)}
        assert set(after) == set(before)
        for name, b in before.items():
            a = after[name]
            assert (a.generation, a.metageneration, a.content_type, a.metadata, a.md5_hash, a.crc32c, a.size) == \
                (b.generation, b.metageneration, b.content_type, b.metadata, b.md5_hash, b.crc32c, b.size), name
            assert client.bucket(bucket_name).blob(name).download_as_bytes() == \
                (b'{"a": 1}' if name == "dir/data.json" else bytes(range(256)) * 40)
        assert download_with_token(fresh, bucket_name, "pics/a.png", token).status_code == 200
    finally:
        fresh.stop()


def test_an_export_folder_with_foreign_storage_files_is_not_replaced(tmp_path, gcs_env):
    emu = RunningEmulator([])
    out = tmp_path / "export"
    try:
        gcs_env(emu).bucket(f"{emu.project}.appspot.com").blob("x").upload_from_string(b"x")
        url = f"{emu.url}/emulator/v1/projects/{emu.project}:export"
        assert requests.post(url, json={"path": str(out)}, timeout=30).status_code == 200
        (out / "storage_export" / "blobs" / "my-notes.txt").write_text("mine")
        r = requests.post(url, json={"path": str(out)}, timeout=30)
        assert r.status_code == 400 and "storage_export/blobs/my-notes.txt" in r.text, r.text
        assert (out / "storage_export" / "blobs" / "my-notes.txt").read_text() == "mine"
    finally:
        emu.stop()


def test_full_disk_refuses_uploads_and_keeps_every_acknowledged_one(small_disk):
    """Bytes or a record the disk will not take: 503, nothing stored; after kill -9 every
    acknowledged upload is back and no refused one is."""
    data = small_disk / "data"
    emu = RunningEmulator(["--data-dir", str(data)])
    bucket = f"{emu.project}.appspot.com"
    s = requests.Session()
    acked, refused = [], []
    try:
        for i in range(10):
            assert firebase_upload(s, emu, bucket, f"before/{i}", b"b" * 1000).status_code == 200
            acked.append(f"before/{i}")
        filler = fill(small_disk)
        for i in range(30):
            r = firebase_upload(s, emu, bucket, f"full/{i}", b"f" * 5000)
            if r.status_code == 200:
                acked.append(f"full/{i}")
                continue
            assert r.status_code == 503 and "No space left on device" in r.text, r.text
            refused.append(f"full/{i}")
            assert s.get(v0(emu, bucket, f"full/{i}"), headers=OWNER, timeout=5).status_code == 404
        assert len(refused) >= 25, refused
        os.remove(filler)
        for i in range(10):
            r = firebase_upload(s, emu, bucket, f"after/{i}", b"a" * 1000)
            assert r.status_code == 200, r.text
            acked.append(f"after/{i}")
    finally:
        emu.proc.send_signal(signal.SIGKILL)
        emu.proc.wait(10)
    again = RunningEmulator(["--data-dir", str(data)])
    try:
        missing = [n for n in acked if s.get(v0(again, bucket, n), headers=OWNER, timeout=5).status_code != 200]
        assert missing == [], missing
        back = [n for n in refused if s.get(v0(again, bucket, n), headers=OWNER, timeout=5).status_code != 404]
        assert back == [], back
    finally:
        again.stop()
