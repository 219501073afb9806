"""Cloud Storage through ``firebase_project.storage`` (google-cloud-storage bound to the project):
each test's project has its own default bucket, so two tests writing the same object name never
see each other's bytes."""
import pytest


@pytest.mark.parametrize("me", ["a", "b"])
def test_same_object_two_projects(firebase_project, me):
    bucket = firebase_project.storage.bucket(f"{firebase_project.project_id}.appspot.com")
    blob = bucket.blob("avatars/me.txt")
    assert not blob.exists()
    blob.upload_from_string(f"written by {me}", content_type="text/plain")
    assert bucket.blob("avatars/me.txt").download_as_bytes() == f"written by {me}".encode()
    assert [b.name for b in bucket.list_blobs(prefix="avatars/")] == ["avatars/me.txt"]
