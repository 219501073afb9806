"""Storage suites: the session emulator, with the Storage variables the clients read set."""
import os

import pytest


@pytest.fixture(scope="module", autouse=True)
def storage_env(emulator):
    """STORAGE_EMULATOR_HOST (google-cloud-storage, firebase-admin, gcloud-aio-storage) and
    FIREBASE_STORAGE_EMULATOR_HOST, as `emulator exec` sets them."""
    hp = f"{emulator.host}:{emulator.port}"
    values = {"STORAGE_EMULATOR_HOST": f"http://{hp}", "FIREBASE_STORAGE_EMULATOR_HOST": hp}
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    yield values
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def bucket_name(emulator):
    """The session project's default bucket."""
    return f"{emulator.project}.appspot.com"
