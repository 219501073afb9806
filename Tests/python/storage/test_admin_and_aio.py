"""firebase-admin's storage.bucket() (google-cloud-storage underneath, pointed at the emulator by
STORAGE_EMULATOR_HOST) and gcloud-aio-storage (an async JSON API client)."""
import asyncio
import uuid

import firebase_admin
import pytest
from firebase_admin import storage


class EmulatorCredential(firebase_admin.credentials.Base):
    """firebase-admin does not switch Storage to the emulator's credentials by itself
    (admin-python#570): an anonymous credential, as google-cloud-storage uses with an emulator."""

    def get_credential(self):
        from google.auth.credentials import AnonymousCredentials
        return AnonymousCredentials()


@pytest.fixture(scope="module")
def admin_app(emulator, storage_env):
    app = firebase_admin.initialize_app(EmulatorCredential(), options={"projectId": emulator.project, "storageBucket": f"{emulator.project}.appspot.com"},
                                        name=f"storage-{uuid.uuid4().hex}")
    yield app
    firebase_admin.delete_app(app)


def test_firebase_admin_bucket_upload_download_list_delete(admin_app, emulator):
    bucket = storage.bucket(app=admin_app)
    assert bucket.name == f"{emulator.project}.appspot.com"
    blob = bucket.blob("admin/report.csv")
    blob.metadata = {"firebaseStorageDownloadTokens": "token-from-admin"}
    blob.upload_from_string("a,b\n1,2\n", content_type="text/csv")
    assert blob.download_as_text() == "a,b\n1,2\n"
    assert [b.name for b in bucket.list_blobs(prefix="admin/")] == ["admin/report.csv"]
    # The token set through custom metadata is the one the Firebase API downloads with.
    import requests
    url = f"{emulator.url}/v0/b/{bucket.name}/o/admin%2Freport.csv"
    assert requests.get(url, params={"alt": "media", "token": "token-from-admin"}).text == "a,b\n1,2\n"
    assert requests.get(url).json()["downloadTokens"] == "token-from-admin"
    blob.delete()
    assert not bucket.blob("admin/report.csv").exists()


def test_gcloud_aio_storage_round_trip(emulator, bucket_name, storage_env):
    from gcloud.aio.storage import Storage

    async def run():
        async with Storage(api_root=storage_env["STORAGE_EMULATOR_HOST"]) as s:
            await s.upload(bucket_name, "aio/one.txt", b"async bytes", content_type="text/plain")
            await s.upload(bucket_name, "aio/meta.json", b"{}", metadata={"metadata": {"k": "v"}}, content_type="application/json")
            assert await s.download(bucket_name, "aio/one.txt") == b"async bytes"
            meta = await s.download_metadata(bucket_name, "aio/meta.json")
            assert meta["metadata"] == {"k": "v"} and meta["contentType"] == "application/json"
            listed = await s.list_objects(bucket_name, params={"prefix": "aio/"})
            assert sorted(i["name"] for i in listed["items"]) == ["aio/meta.json", "aio/one.txt"]
            big = bytes(range(256)) * 40_000  # 10 MB: the client's resumable path
            await s.upload(bucket_name, "aio/big.bin", big, force_resumable_upload=True)
            assert await s.download(bucket_name, "aio/big.bin") == big
            await s.delete(bucket_name, "aio/one.txt")
            listed = await s.list_objects(bucket_name, params={"prefix": "aio/"})
            assert "aio/one.txt" not in [i["name"] for i in listed["items"]]

    asyncio.run(run())
