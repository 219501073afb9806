"""Pub/Sub suite fixtures: the session emulator with PUBSUB_EMULATOR_HOST pointing at it, and
google-cloud-pubsub clients (gRPC, as every Pub/Sub library talks to the emulator)."""
import os
import uuid

import pytest
import requests


@pytest.fixture(scope="module")
def pubsub(emulator):
    """(emulator, publisher, subscriber) with PUBSUB_EMULATOR_HOST set while the module runs."""
    from google.cloud import pubsub_v1
    saved = os.environ.get("PUBSUB_EMULATOR_HOST")
    os.environ["PUBSUB_EMULATOR_HOST"] = f"{emulator.host}:{emulator.port}"
    publisher = pubsub_v1.PublisherClient(publisher_options=pubsub_v1.types.PublisherOptions(enable_message_ordering=True))
    subscriber = pubsub_v1.SubscriberClient()
    try:
        yield emulator, publisher, subscriber
    finally:
        subscriber.close()
        if saved is None:
            os.environ.pop("PUBSUB_EMULATOR_HOST", None)
        else:
            os.environ["PUBSUB_EMULATOR_HOST"] = saved


@pytest.fixture
def names(pubsub):
    """A fresh topic and subscription name pair (created by the test)."""
    emu = pubsub[0]
    suffix = uuid.uuid4().hex[:8]
    return f"projects/{emu.project}/topics/t-{suffix}", f"projects/{emu.project}/subscriptions/s-{suffix}"


def admin(emu, method, path, **kw):
    """A control-plane call as the owner."""
    return requests.request(method, f"{emu.url}/emulator/v1/projects/{emu.project}{path}", headers={"Authorization": "Bearer owner"}, timeout=10, **kw)
