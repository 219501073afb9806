"""google-cloud-storage (the client firebase-admin wraps) against the emulator's JSON API, with
STORAGE_EMULATOR_HOST: every operation, preconditions, copy, rewrite, compose, chunked resumable
uploads (interrupted and resumed), signed URLs."""
import datetime
import hashlib
import io
import os
import socket
import urllib.parse

import pytest
import requests
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage


@pytest.fixture(scope="module")
def client(emulator, storage_env):
    return storage.Client(project=emulator.project, credentials=AnonymousCredentials())


def test_buckets_exist_list_create_get_and_delete(client, emulator):
    names = [b.name for b in client.list_buckets()]
    assert f"{emulator.project}.appspot.com" in names and f"{emulator.project}.firebasestorage.app" in names
    assert client.get_bucket(f"{emulator.project}.appspot.com").exists()
    b = client.create_bucket("gcs-made-bucket", location="EU")
    assert b.location == "EU"
    with pytest.raises(exceptions.Conflict):
        client.create_bucket("gcs-made-bucket")
    b.blob("x").upload_from_string(b"x")
    with pytest.raises(exceptions.Conflict):
        b.delete()
    b.delete(force=True)
    with pytest.raises(exceptions.NotFound):
        client.get_bucket("gcs-made-bucket")
    with pytest.raises(exceptions.MethodNotImplemented):
        client.bucket(f"{emulator.project}.appspot.com").patch()


def test_upload_download_reload_list_and_delete(client, bucket_name):
    bucket = client.bucket(bucket_name)
    blob = bucket.blob("gcs/a.txt")
    blob.upload_from_string("hello gcs", content_type="text/plain")
    assert blob.generation and blob.md5_hash == "9Fo5eSSDe+tffje4lpbNzQ=="  # base64 MD5 of the bytes
    assert blob.download_as_bytes() == b"hello gcs"
    got = bucket.get_blob("gcs/a.txt")
    assert got.size == 9 and got.content_type == "text/plain" and got.metageneration == 1
    assert got.media_link.startswith(os.environ["STORAGE_EMULATOR_HOST"])
    assert bucket.get_blob("gcs/none") is None
    for n in ["gcs/b.txt", "gcs/dir/c.txt"]:
        bucket.blob(n).upload_from_string(n)
    it = client.list_blobs(bucket_name, prefix="gcs/", delimiter="/")
    assert [b.name for b in it] == ["gcs/a.txt", "gcs/b.txt"]
    assert it.prefixes == {"gcs/dir/"}
    assert [b.name for b in client.list_blobs(bucket_name, prefix="gcs/", max_results=2)] == ["gcs/a.txt", "gcs/b.txt"]
    paged = client.list_blobs(bucket_name, prefix="gcs/", page_size=1)
    assert [b.name for b in paged] == ["gcs/a.txt", "gcs/b.txt", "gcs/dir/c.txt"]
    assert blob.download_as_bytes(start=1, end=4) == b"ello"
    blob.delete()
    assert not blob.exists()
    with pytest.raises(exceptions.NotFound):
        blob.download_as_bytes()


def test_patch_update_and_preconditions(client, bucket_name):
    blob = client.bucket(bucket_name).blob("gcs/meta.txt")
    blob.upload_from_string("v1", if_generation_match=0)
    with pytest.raises(exceptions.PreconditionFailed):
        client.bucket(bucket_name).blob("gcs/meta.txt").upload_from_string("v1 again", if_generation_match=0)
    first = blob.generation
    blob.metadata = {"color": "blue"}
    blob.cache_control = "no-store"
    blob.patch(if_metageneration_match=1)
    assert blob.metageneration == 2 and blob.metadata == {"color": "blue"} and blob.cache_control == "no-store"
    with pytest.raises(exceptions.PreconditionFailed):
        blob.patch(if_metageneration_match=1)
    blob.content_language = "en"
    blob.metadata = {"size": "L"}
    blob.update()  # PUT: replaces the writable metadata
    fresh = client.bucket(bucket_name).get_blob("gcs/meta.txt")
    assert fresh.content_language == "en" and fresh.metadata["size"] == "L"
    blob.upload_from_string("v2", if_generation_match=first)
    assert blob.generation != first
    with pytest.raises(exceptions.PreconditionFailed):
        blob.delete(if_generation_match=first)
    assert client.bucket(bucket_name).blob("gcs/meta.txt").download_as_bytes(if_generation_match=blob.generation) == b"v2"
    blob.delete(if_generation_match=blob.generation)


def test_copy_rewrite_and_compose(client, bucket_name):
    bucket = client.bucket(bucket_name)
    a = bucket.blob("gcs/part-a")
    a.upload_from_string(b"AAAA", content_type="application/x-a")
    b = bucket.blob("gcs/part-b")
    b.upload_from_string(b"BB")
    copied = bucket.copy_blob(a, client.bucket(bucket_name.replace(".appspot.com", ".firebasestorage.app")), "copied/a")
    assert copied.download_as_bytes() == b"AAAA" and copied.content_type == "application/x-a"
    target = bucket.blob("gcs/rewritten")
    token, done_bytes, total = target.rewrite(a)
    assert token is None and done_bytes == total == 4
    assert target.download_as_bytes() == b"AAAA"
    composed = bucket.blob("gcs/composed")
    composed.content_type = "text/plain"
    composed.compose([a, b], if_generation_match=0)
    assert composed.download_as_bytes() == b"AAAABB"
    assert bucket.get_blob("gcs/composed").crc32c == composed.crc32c
    with pytest.raises(exceptions.PreconditionFailed):
        composed.compose([a, b], if_generation_match=0)


def test_chunked_resumable_upload_of_20_mb(client, bucket_name):
    data = os.urandom(20 * 1024 * 1024)
    blob = client.bucket(bucket_name).blob("gcs/big-chunked.bin", chunk_size=256 * 1024 * 16)  # 4 MiB chunks of the client
    blob.upload_from_file(io.BytesIO(data), size=len(data), content_type="application/octet-stream")
    assert blob.size == len(data)
    assert blob.md5_hash == __import__("base64").b64encode(hashlib.md5(data).digest()).decode()
    assert client.bucket(bucket_name).blob("gcs/big-chunked.bin").download_as_bytes() == data


def test_resumable_session_interrupted_mid_chunk_and_resumed(client, bucket_name, emulator):
    """A 20 MB upload in 256 KiB chunks whose connection drops in the middle of a chunk; the
    client probes the session (308 + Range) and resumes from what was kept."""
    data = os.urandom(20 * 1024 * 1024)
    chunk = 256 * 1024
    url = client.bucket(bucket_name).blob("gcs/interrupted.bin").create_resumable_upload_session(size=len(data), content_type="application/x-big")
    assert url.startswith(os.environ["STORAGE_EMULATOR_HOST"] + "/upload/storage/v1/")
    session = requests.Session()
    offset = 0
    for _ in range(8):
        r = session.put(url, data=data[offset:offset + chunk], headers={"Content-Range": f"bytes {offset}-{offset + chunk - 1}/{len(data)}"})
        assert r.status_code == 308 and r.headers["Range"] == f"bytes=0-{offset + chunk - 1}"
        offset += chunk
    # Send half of the next chunk on a raw socket, then drop the connection.
    parsed = urllib.parse.urlsplit(url)
    s = socket.create_connection((parsed.hostname, parsed.port))
    head = (f"PUT {parsed.path}?{parsed.query} HTTP/1.1\r\nHost: {parsed.netloc}\r\nContent-Length: {chunk}\r\n"
            f"Content-Range: bytes {offset}-{offset + chunk - 1}/{len(data)}\r\n\r\n").encode()
    s.sendall(head + data[offset:offset + chunk // 2])
    s.close()
    # Status probes until the server has kept what arrived (it notices the closed connection).
    import time
    for _ in range(50):
        probe = session.put(url, headers={"Content-Range": f"bytes */{len(data)}"})
        assert probe.status_code == 308
        kept = int(probe.headers["Range"].split("-")[1]) + 1
        if kept > offset:
            break
        time.sleep(0.05)
    assert offset < kept <= offset + chunk // 2
    offset = kept
    while offset < len(data):
        end = min(len(data), offset + chunk)
        r = session.put(url, data=data[offset:end], headers={"Content-Range": f"bytes {offset}-{end - 1}/{len(data)}"})
        offset = end
    assert r.status_code == 200, r.text
    final = r.json()
    assert final["size"] == str(len(data)) and final["contentType"] == "application/x-big"
    # The finished session answers its object again.
    assert session.put(url, headers={"Content-Range": f"bytes */{len(data)}"}).json()["generation"] == final["generation"]
    assert client.bucket(bucket_name).blob("gcs/interrupted.bin").download_as_bytes() == data


def test_signed_urls_are_served(client, bucket_name, emulator):
    from google.oauth2 import service_account
    creds = service_account.Credentials.from_service_account_info(_service_account_info())
    blob = client.bucket(bucket_name).blob("gcs/signed dir/file.txt")
    blob.upload_from_string(b"signed content")
    url = blob.generate_signed_url(version="v4", expiration=datetime.timedelta(minutes=5), credentials=creds,
                                   api_access_endpoint=os.environ["STORAGE_EMULATOR_HOST"])
    r = requests.get(url)
    assert r.status_code == 200 and r.content == b"signed content"
    put = client.bucket(bucket_name).blob("gcs/uploaded-by-url.bin").generate_signed_url(
        version="v4", expiration=datetime.timedelta(minutes=5), method="PUT", content_type="application/x-put",
        credentials=creds, api_access_endpoint=os.environ["STORAGE_EMULATOR_HOST"])
    assert requests.put(put, data=b"put bytes", headers={"Content-Type": "application/x-put"}).status_code == 200
    got = client.bucket(bucket_name).get_blob("gcs/uploaded-by-url.bin")
    assert got.content_type == "application/x-put" and got.download_as_bytes() == b"put bytes"


_SA = {}


def _service_account_info():
    """A throwaway service account (a fresh RSA key) for signing."""
    if not _SA:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        _SA.update({"type": "service_account", "project_id": "demo-test", "private_key_id": "k1", "private_key": pem,
                    "client_email": "signer@demo-test.iam.gserviceaccount.com", "client_id": "1",
                    "token_uri": "https://oauth2.googleapis.com/token"})
    return _SA


def test_signed_urls_are_verified_when_configured(emulator_factory, tmp_path):
    import json
    from google.oauth2 import service_account
    info = _service_account_info()
    (tmp_path / "sa.json").write_text(json.dumps(info))
    (tmp_path / "emulator.json").write_text(json.dumps({"storage": {"signedUrls": "verify"}, "auth": {"serviceAccounts": ["sa.json"]}}))
    emu = emulator_factory("--config", str(tmp_path / "emulator.json"))
    endpoint = emu.url
    bucket = f"{emu.project}.appspot.com"
    requests.post(f"{endpoint}/upload/storage/v1/b/{bucket}/o", params={"uploadType": "media", "name": "v/file.txt"}, data=b"v").raise_for_status()
    c = storage.Client(project=emu.project, credentials=AnonymousCredentials(), client_options={"api_endpoint": endpoint})
    creds = service_account.Credentials.from_service_account_info(info)
    url = c.bucket(bucket).blob("v/file.txt").generate_signed_url(version="v4", expiration=datetime.timedelta(minutes=5), credentials=creds, api_access_endpoint=endpoint)
    assert requests.get(url).content == b"v"
    tampered = url.replace("X-Goog-Expires=300", "X-Goog-Expires=301")
    r = requests.get(tampered)
    assert r.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in r.text
    assert requests.get(f"{endpoint}/{bucket}/v/file.txt").status_code == 403
    old = c.bucket(bucket).blob("v/file.txt").generate_signed_url(version="v4", expiration=datetime.timedelta(seconds=1), credentials=creds,
                                                                  api_access_endpoint=endpoint,
                                                                  )
    policy = c.generate_signed_post_policy_v4(bucket, "v/form.txt", expiration=datetime.timedelta(minutes=5),
                                              conditions=[["content-length-range", 0, 10]], credentials=creds)
    assert requests.post(f"{endpoint}/{bucket}", data=policy["fields"], files={"file": ("f", b"ok")}).status_code == 204
    too_big = requests.post(f"{endpoint}/{bucket}", data=policy["fields"], files={"file": ("f", b"x" * 11)})
    assert too_big.status_code == 403 and "content-length-range" in too_big.text
    forged = dict(policy["fields"], policy=policy["fields"]["policy"][:-4] + "AAA=")
    assert requests.post(f"{endpoint}/{bucket}", data=forged, files={"file": ("f", b"ok")}).status_code == 403
    requests.post(f"{endpoint}/emulator/v1/projects/{emu.project}/clock:advance", json={"seconds": 3600}).raise_for_status()
    assert requests.get(old).status_code == 400


def test_post_policy_form_uploads(client, bucket_name, emulator):
    """A browser form upload signed with generate_signed_post_policy_v4 (served; the signature
    is checked only with storage.signedUrls=verify)."""
    from google.oauth2 import service_account
    creds = service_account.Credentials.from_service_account_info(_service_account_info())
    policy = client.generate_signed_post_policy_v4(bucket_name, "forms/${filename}", expiration=datetime.timedelta(minutes=5),
                                                   conditions=[["content-length-range", 0, 1000]], fields={"x-goog-meta-origin": "form"},
                                                   credentials=creds)
    url = f"{emulator.url}/{bucket_name}"
    r = requests.post(url, data=policy["fields"], files={"file": ("hello.txt", b"form bytes", "text/plain")})
    assert r.status_code == 204, r.text
    blob = client.bucket(bucket_name).get_blob("forms/hello.txt")
    assert blob.download_as_bytes() == b"form bytes" and blob.metadata == {"origin": "form"}
    created = requests.post(url, data={**policy["fields"], "key": "forms/201.txt", "success_action_status": "201"}, files={"file": ("x", b"x")})
    assert created.status_code == 201 and "<Key>forms/201.txt</Key>" in created.text
