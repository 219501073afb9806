"""The Firebase Storage API (/v0) with the exact request shapes the JS, iOS and Android SDKs send
(firebase-js-sdk packages/storage/src/implementation/requests.ts): multipart and resumable
uploads with X-Goog-Upload-* commands, token downloads, ranges, metadata updates, lists, errors."""
import gzip
import hashlib
import base64
import urllib.parse

import pytest
import requests


def obj_url(emulator, bucket, name):
    return f"{emulator.url}/v0/b/{bucket}/o/{urllib.parse.quote(name, safe='')}"


def multipart_upload(emulator, bucket, name, data, content_type="text/plain", metadata=None, auth="Firebase owner"):
    """uploadBytes: POST .../o?name= with X-Goog-Upload-Protocol: multipart (the SDK's body)."""
    boundary = "73571213468573465"
    meta = {"name": name, "fullPath": name, "size": len(data), "contentType": content_type}
    if metadata:
        meta["metadata"] = metadata
    import json
    body = (f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{json.dumps(meta)}\r\n--{boundary}\r\n"
            f"Content-Type: {content_type}\r\n\r\n").encode() + data + f"\r\n--{boundary}--".encode()
    headers = {"X-Goog-Upload-Protocol": "multipart", "Content-Type": f"multipart/related; boundary={boundary}"}
    if auth:
        headers["Authorization"] = auth
    return requests.post(f"{emulator.url}/v0/b/{bucket}/o", params={"name": name}, data=body, headers=headers)


def test_identification_and_multipart_upload_metadata_shape(emulator, bucket_name):
    assert requests.get(f"{emulator.url}/v0/").json() == {"emulator": "storage"}
    r = multipart_upload(emulator, bucket_name, "sdk/hello.txt", b"hello world", metadata={"owner": "ada"})
    assert r.status_code == 200, r.text
    m = r.json()
    # Numbers are strings; tokens comma-joined; content headers defaulted as Firebase does.
    assert m["name"] == "sdk/hello.txt" and m["bucket"] == bucket_name
    assert m["size"] == "11" and m["metageneration"] == "1" and m["generation"].isdigit()
    assert m["md5Hash"] == base64.b64encode(hashlib.md5(b"hello world").digest()).decode()
    assert m["crc32c"] == "yZRlqg=="
    assert m["contentType"] == "text/plain" and m["contentEncoding"] == "identity"
    assert m["metadata"] == {"owner": "ada"}
    assert len(m["downloadTokens"].split(",")) == 1
    # getDownloadURL: the metadata's token downloads without credentials.
    token = m["downloadTokens"]
    d = requests.get(obj_url(emulator, bucket_name, "sdk/hello.txt"), params={"alt": "media", "token": token})
    assert d.status_code == 200 and d.content == b"hello world"
    assert d.headers["Content-Type"] == "text/plain"
    assert d.headers["X-Goog-Hash"] == f"crc32c=yZRlqg==,md5={m['md5Hash']}"
    bad = requests.get(obj_url(emulator, bucket_name, "sdk/hello.txt"), params={"alt": "media", "token": "wrong"})
    assert bad.status_code == 403


def test_media_upload_range_download_and_not_found(emulator, bucket_name):
    data = bytes(range(256)) * 4
    r = requests.post(f"{emulator.url}/v0/b/{bucket_name}/o", params={"name": "raw/bytes.bin"}, data=data,
                      headers={"Content-Type": "application/octet-stream"})
    assert r.status_code == 200, r.text
    url = obj_url(emulator, bucket_name, "raw/bytes.bin")
    part = requests.get(url, params={"alt": "media"}, headers={"Range": "bytes=10-19"})
    assert part.status_code == 206 and part.content == data[10:20]
    assert part.headers["Content-Range"] == f"bytes 10-19/{len(data)}"
    tail = requests.get(url, params={"alt": "media"}, headers={"Range": "bytes=-5"})
    assert tail.content == data[-5:]
    assert requests.get(url, params={"alt": "media"}, headers={"Range": "bytes=5000-"}).status_code == 416
    missing = requests.get(obj_url(emulator, bucket_name, "raw/none"))
    # The SDKs turn a 404 into storage/object-not-found.
    assert missing.status_code == 404 and missing.json()["error"]["code"] == 404


def test_resumable_protocol_start_upload_query_finalize_and_refinalize(emulator, bucket_name):
    data = b"0123456789" * 60_000  # 600 kB: three commands of 256 KiB granularity
    start = requests.post(f"{emulator.url}/v0/b/{bucket_name}/o", params={"name": "big/file.bin"}, json={"name": "big/file.bin", "contentType": "application/x-test"},
                          headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                                   "X-Goog-Upload-Header-Content-Length": str(len(data)),
                                   "X-Goog-Upload-Header-Content-Type": "application/x-test", "Authorization": "Firebase owner"})
    assert start.status_code == 200, start.text
    assert start.headers["X-Goog-Upload-Status"] == "active"
    assert start.headers["X-Goog-Upload-Chunk-Granularity"] == "262144"
    url = start.headers["X-Goog-Upload-URL"]
    assert url.startswith(emulator.url + "/v0/b/") and "upload_id=" in url
    chunk = 256 * 1024
    offset = 0
    while offset < len(data):
        end = min(len(data), offset + chunk)
        command = "upload, finalize" if end == len(data) else "upload"
        r = requests.post(url, data=data[offset:end], headers={"X-Goog-Upload-Command": command, "X-Goog-Upload-Offset": str(offset)})
        assert r.status_code == 200, r.text
        if end < len(data):
            assert r.headers["X-Goog-Upload-Status"] == "active"
            q = requests.post(url, headers={"X-Goog-Upload-Command": "query"})
            assert q.headers["X-Goog-Upload-Size-Received"] == str(end)
        offset = end
    assert r.headers["X-Goog-Upload-Status"] == "final"
    final = r.json()
    assert final["size"] == str(len(data)) and final["contentType"] == "application/x-test" and final["downloadTokens"]
    # Finalizing again answers the same object; query says final; cancel is refused.
    again = requests.post(url, headers={"X-Goog-Upload-Command": "finalize"})
    assert again.status_code == 200 and again.json()["generation"] == final["generation"]
    assert requests.post(url, headers={"X-Goog-Upload-Command": "query"}).headers["X-Goog-Upload-Status"] == "final"
    assert requests.post(url, headers={"X-Goog-Upload-Command": "cancel"}).status_code == 400
    got = requests.get(obj_url(emulator, bucket_name, "big/file.bin"), params={"alt": "media", "token": final["downloadTokens"]})
    assert got.content == data


def test_resumable_resend_overlap_and_cancel(emulator, bucket_name):
    start = requests.post(f"{emulator.url}/v0/b/{bucket_name}/o", params={"name": "r/c.bin"}, json={},
                          headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"})
    url = start.headers["X-Goog-Upload-URL"]
    assert requests.post(url, data=b"abcdef", headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}).status_code == 200
    # A resend from an earlier offset: the overlap is skipped.
    r = requests.post(url, data=b"defgh", headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "3"})
    assert r.status_code == 200 and r.json()["size"] == "8"
    start = requests.post(f"{emulator.url}/v0/b/{bucket_name}/o", params={"name": "r/d.bin"}, json={},
                          headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"})
    url = start.headers["X-Goog-Upload-URL"]
    ahead = requests.post(url, data=b"x", headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "5"})
    assert ahead.status_code == 400
    c = requests.post(url, headers={"X-Goog-Upload-Command": "cancel"})
    assert c.status_code == 200 and c.headers["X-Goog-Upload-Status"] == "cancelled"
    assert requests.get(obj_url(emulator, bucket_name, "r/d.bin")).status_code == 404


def test_metadata_update_patch_and_method_override(emulator, bucket_name):
    multipart_upload(emulator, bucket_name, "meta/x.txt", b"x", metadata={"a": "1", "b": "2"})
    url = obj_url(emulator, bucket_name, "meta/x.txt")
    r = requests.patch(url, json={"contentType": "text/markdown", "cacheControl": "no-cache", "metadata": {"a": None, "c": "3"}})
    assert r.status_code == 200, r.text
    m = r.json()
    assert m["metageneration"] == "2" and m["contentType"] == "text/markdown" and m["cacheControl"] == "no-cache"
    assert m["metadata"] == {"b": "2", "c": "3"}
    # The form some SDKs use where PATCH is unavailable.
    o = requests.post(url, json={"cacheControl": None}, headers={"X-HTTP-Method-Override": "PATCH"})
    assert o.status_code == 200 and "cacheControl" not in o.json() and o.json()["metageneration"] == "3"


def test_list_prefixes_items_and_pages(emulator, bucket_name):
    for name in ["list/a.txt", "list/b.txt", "list/sub/c.txt", "list/sub2/d.txt"]:
        multipart_upload(emulator, bucket_name, name, b"1")
    base = f"{emulator.url}/v0/b/{bucket_name}/o"
    r = requests.get(base, params={"prefix": "list/", "delimiter": "/"}).json()
    assert r["prefixes"] == ["list/sub/", "list/sub2/"]
    assert [i["name"] for i in r["items"]] == ["list/a.txt", "list/b.txt"] and r["items"][0]["bucket"] == bucket_name
    page = requests.get(base, params={"prefix": "list/", "delimiter": "/", "maxResults": 3}).json()
    assert len(page["items"]) + len(page["prefixes"]) == 3 and page["nextPageToken"]
    rest = requests.get(base, params={"prefix": "list/", "delimiter": "/", "maxResults": 3, "pageToken": page["nextPageToken"]}).json()
    assert len(rest["items"]) + len(rest["prefixes"]) == 1 and "nextPageToken" not in rest


def test_tokens_admin_only_delete_and_user_credentials(emulator, bucket_name):
    multipart_upload(emulator, bucket_name, "tok/x.txt", b"x")
    url = obj_url(emulator, bucket_name, "tok/x.txt")
    # A signed-in user (Firebase ID token from the Auth emulator) may not manage tokens.
    signup = requests.post(f"{emulator.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake",
                           json={"email": "storage-user@example.com", "password": "secret123", "returnSecureToken": True}).json()
    as_user = {"Authorization": f"Firebase {signup['idToken']}"}
    denied = requests.post(url, params={"create_token": "true"}, headers=as_user)
    assert denied.status_code == 403 and denied.json()["error"]["message"] == "Missing admin credentials."
    assert requests.get(url, headers=as_user).status_code == 200  # allow-all until Storage rules exist
    bad = requests.get(url, headers={"Authorization": "Firebase not-a-token"})
    assert bad.status_code == 401
    two = requests.post(url, params={"create_token": "true"}, headers={"Authorization": "Bearer owner"}).json()["downloadTokens"].split(",")
    assert len(two) == 2
    one = requests.post(url, params={"delete_token": two[0]}, headers={"Authorization": "Firebase owner"}).json()["downloadTokens"]
    assert one == two[1]
    fresh = requests.post(url, params={"delete_token": two[1]}, headers={"Authorization": "Bearer owner"}).json()["downloadTokens"]
    assert fresh and fresh not in two  # the last token is replaced, never left empty


def test_gzip_objects_are_transcoded_unless_gzip_is_accepted(emulator, bucket_name):
    text = b"compress me " * 1000
    packed = gzip.compress(text)
    requests.post(f"{emulator.url}/upload/storage/v1/b/{bucket_name}/o", params={"uploadType": "media", "name": "gz/t.txt", "contentEncoding": "gzip"},
                  data=packed, headers={"Content-Type": "text/plain"}).raise_for_status()
    url = obj_url(emulator, bucket_name, "gz/t.txt")
    plain = requests.get(url, params={"alt": "media"}, headers={"Accept-Encoding": "identity"}, stream=True)
    assert plain.raw.read() == text and "Content-Encoding" not in plain.headers
    raw = requests.get(url, params={"alt": "media"}, headers={"Accept-Encoding": "gzip"}, stream=True)
    assert raw.headers["Content-Encoding"] == "gzip" and raw.raw.read(decode_content=False) == packed


def test_delete_and_error_shapes(emulator, bucket_name):
    multipart_upload(emulator, bucket_name, "del/x.txt", b"x")
    url = obj_url(emulator, bucket_name, "del/x.txt")
    assert requests.delete(url).status_code == 204
    again = requests.delete(url)
    assert again.status_code == 404 and set(again.json()["error"]) >= {"code", "message"}
    no_name = requests.post(f"{emulator.url}/v0/b/{bucket_name}/o", data=b"x")
    assert no_name.status_code == 400
    bad_protocol = requests.post(f"{emulator.url}/v0/b/{bucket_name}/o", params={"name": "z"}, headers={"X-Goog-Upload-Protocol": "carrier-pigeon"})
    assert bad_protocol.status_code == 400
