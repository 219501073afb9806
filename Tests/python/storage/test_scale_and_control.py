"""1,000 parallel uploads, reset and per-bucket clear through the control plane, faults on
Storage methods, the size limit and quota, and the JSON API's 501s."""
import json

import requests


def test_a_thousand_parallel_uploads_all_complete(emulator, bucket_name):
    """1,000 uploads in flight at once, each on its own connection (no hang, no lost object)."""
    import asyncio

    import aiohttp

    url = f"{emulator.url}/upload/storage/v1/b/{bucket_name}/o"

    async def run():
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            async def put(i):
                async with session.post(url, params={"uploadType": "media", "name": f"par/{i:04d}"}, data=f"payload {i}".encode() * 10,
                                        timeout=aiohttp.ClientTimeout(total=120)) as r:
                    return r.status
            return await asyncio.gather(*(put(i) for i in range(1000)))

    assert asyncio.run(run()) == [200] * 1000
    names = []
    token = None
    while True:
        page = requests.get(f"{emulator.url}/storage/v1/b/{bucket_name}/o", params={"prefix": "par/", "pageToken": token or ""}).json()
        names += [i["name"] for i in page.get("items", [])]
        token = page.get("nextPageToken")
        if not token:
            break
    assert names == [f"par/{i:04d}" for i in range(1000)]
    assert requests.get(f"{emulator.url}/v0/b/{bucket_name}/o/par%2F0777", params={"alt": "media"}, headers={"Authorization": "Bearer owner"}).content == b"payload 777" * 10


def test_reset_and_bucket_clear(emulator_factory):
    emu = emulator_factory(project="demo-storage-reset")
    b = "demo-storage-reset.appspot.com"
    up = f"{emu.url}/upload/storage/v1/b/{b}/o"
    for n in ["a", "b"]:
        requests.post(up, params={"uploadType": "media", "name": n}, data=b"1").raise_for_status()
    requests.post(f"{emu.url}/upload/storage/v1/b/other-bucket/o", params={"uploadType": "media", "name": "c"}, data=b"1").raise_for_status()
    listing = requests.get(f"{emu.url}/emulator/v1/projects/demo-storage-reset/storage/buckets").json()["buckets"]
    assert {x["name"]: x["objects"] for x in listing} == {b: 2, "demo-storage-reset.firebasestorage.app": 0, "other-bucket": 1}
    cleared = requests.delete(f"{emu.url}/emulator/v1/projects/demo-storage-reset/storage/buckets/other-bucket/objects")
    assert cleared.json() == {"bucket": "other-bucket", "deleted": 1}
    assert requests.post(f"{emu.url}/emulator/v1/projects/demo-storage-reset:reset").status_code == 200
    assert "items" not in requests.get(f"{emu.url}/storage/v1/b/{b}/o").json()
    # The default buckets exist again; buckets the project created are gone.
    names = [x["name"] for x in requests.get(f"{emu.url}/storage/v1/b", params={"project": "demo-storage-reset"}).json()["items"]]
    assert names == [b, "demo-storage-reset.firebasestorage.app"]
    # A snapshot brings objects back.
    requests.post(up, params={"uploadType": "media", "name": "snap"}, data=b"kept").raise_for_status()
    requests.post(f"{emu.url}/emulator/v1/projects/demo-storage-reset/snapshots", json={"name": "s1"}).raise_for_status()
    requests.delete(f"{emu.url}/storage/v1/b/{b}/o/snap").raise_for_status()
    requests.post(f"{emu.url}/emulator/v1/projects/demo-storage-reset/snapshots/s1:restore").raise_for_status()
    assert requests.get(f"{emu.url}/storage/v1/b/{b}/o/snap", params={"alt": "media"}).content == b"kept"


def test_faults_on_storage_methods(emulator_factory):
    emu = emulator_factory(project="demo-storage-faults")
    b = "demo-storage-faults.appspot.com"
    rule = {"match": {"service": "storage", "method": "upload", "path": f"{b}/flaky/**"}, "error": {"status": "UNAVAILABLE", "message": "injected"}, "times": 1}
    requests.post(f"{emu.url}/emulator/v1/projects/demo-storage-faults/faults", json=rule).raise_for_status()
    up = f"{emu.url}/v0/b/{b}/o/flaky%2Fx"
    first = requests.post(up, data=b"x")
    assert first.status_code == 503 and first.json()["error"]["message"] == "injected"
    assert requests.post(up, data=b"x").status_code == 200
    rule = {"match": {"service": "storage", "method": "download"}, "error": {"status": "NOT_FOUND"}, "times": 1}
    requests.post(f"{emu.url}/emulator/v1/projects/demo-storage-faults/faults", json=rule).raise_for_status()
    assert requests.get(up, params={"alt": "media"}, headers={"Authorization": "Bearer owner"}).status_code == 404
    assert requests.get(up, params={"alt": "media"}, headers={"Authorization": "Bearer owner"}).content == b"x"


def test_object_size_limit_and_quota(emulator_factory, tmp_path):
    (tmp_path / "emulator.json").write_text(json.dumps({"storage": {"maxObjectBytes": 1000, "maxTotalBytes": 2500}}))
    emu = emulator_factory("--config", str(tmp_path / "emulator.json"), project="demo-storage-limits")
    up = f"{emu.url}/upload/storage/v1/b/demo-storage-limits.appspot.com/o"
    big = requests.post(up, params={"uploadType": "media", "name": "big"}, data=b"x" * 1001)
    assert big.status_code == 413 and "maxObjectBytes" in big.json()["error"]["message"]
    for n in ["a", "b"]:
        assert requests.post(up, params={"uploadType": "media", "name": n}, data=b"x" * 1000).status_code == 200
    full = requests.post(up, params={"uploadType": "media", "name": "c"}, data=b"x" * 1000)
    assert full.status_code == 429 and "maxTotalBytes" in full.json()["error"]["message"]
    assert full.json()["error"]["errors"][0]["reason"] == "rateLimitExceeded"


def test_left_out_operations_answer_501_naming_them(emulator, bucket_name):
    for method, path in [("GET", f"/storage/v1/b/{bucket_name}/iam"), ("POST", f"/storage/v1/b/{bucket_name}/notificationConfigs"),
                         ("GET", "/storage/v1/projects/p/hmacKeys"), ("PATCH", f"/storage/v1/b/{bucket_name}")]:
        r = requests.request(method, emulator.url + path, json={})
        assert r.status_code == 501, (method, path, r.text)
        assert "not implemented" in r.json()["error"]["message"]
