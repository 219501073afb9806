"""The Pub/Sub project budget (`limits.pubsubMaxProjectMessages` in emulator.json) seen from
google-cloud-pubsub: a publish whose fan-out would take the project's subscriptions past it is
refused RESOURCE_EXHAUSTED naming the key, none of it is stored, and acknowledging makes room."""
import json
import os

import pytest
from google.api_core import exceptions
from google.cloud import pubsub_v1


def test_a_publish_past_the_project_budget_is_refused(emulator_factory, tmp_path):
    (tmp_path / "emulator.json").write_text(json.dumps({"limits": {"pubsubMaxProjectMessages": 10}}))
    emu = emulator_factory("--config", str(tmp_path / "emulator.json"), project="demo-pubsub-budget")
    saved = os.environ.get("PUBSUB_EMULATOR_HOST")
    os.environ["PUBSUB_EMULATOR_HOST"] = f"{emu.host}:{emu.port}"
    try:
        publisher, subscriber = pubsub_v1.PublisherClient(), pubsub_v1.SubscriberClient()
    finally:
        if saved is None:
            os.environ.pop("PUBSUB_EMULATOR_HOST", None)
        else:
            os.environ["PUBSUB_EMULATOR_HOST"] = saved
    try:
        topic = f"projects/{emu.project}/topics/fan-out"
        subs = [f"projects/{emu.project}/subscriptions/fan-{i}" for i in range(4)]
        publisher.create_topic(name=topic)
        for sub in subs:
            subscriber.create_subscription(name=sub, topic=topic)
        # retry=None: the library retries RESOURCE_EXHAUSTED by default.
        publisher.api.publish(topic=topic, messages=[{"data": b"a"}, {"data": b"b"}], retry=None)  # 8 entries
        with pytest.raises(exceptions.ResourceExhausted, match="limits.pubsubMaxProjectMessages") as refused:
            publisher.api.publish(topic=topic, messages=[{"data": b"c"}], retry=None)  # 4 more: 12 > 10
        assert "hold 8 unacknowledged messages" in str(refused.value) and "would add 4" in str(refused.value)
        pulled = subscriber.pull(subscription=subs[0], max_messages=10, timeout=10).received_messages
        assert sorted(m.message.data for m in pulled) == [b"a", b"b"]
        subscriber.acknowledge(subscription=subs[0], ack_ids=[m.ack_id for m in pulled])
        publisher.api.publish(topic=topic, messages=[{"data": b"d"}], retry=None)  # 6 + 4: at the budget
        with pytest.raises(exceptions.ResourceExhausted):
            publisher.api.publish(topic=topic, messages=[{"data": b"e"}], retry=None)
    finally:
        subscriber.close()
