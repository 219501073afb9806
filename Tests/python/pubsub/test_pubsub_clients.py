"""google-cloud-pubsub against the emulator over gRPC (and REST): publisher batching and ordering
keys, StreamingPull subscribers with flow control, ack/nack/redelivery, dead letters, seek and
snapshots, errors as Google's emulator words them, faults and the control plane."""
import base64
import os
import threading
import time

import pytest
import requests
from google.api_core import exceptions
from google.cloud import pubsub_v1
from google.protobuf import timestamp_pb2

from pubsub.conftest import admin


def stream(subscriber, sub, callback, **flow):
    """Starts a StreamingPull subscriber; returns its future."""
    settings = pubsub_v1.types.FlowControl(**flow) if flow else pubsub_v1.types.FlowControl()
    return subscriber.subscribe(sub, callback=callback, flow_control=settings)


def wait_until(predicate, timeout=15):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_batched_publish_then_streaming_pull_delivers_everything_once(pubsub, names):
    _, publisher, subscriber = pubsub
    topic, sub = names
    publisher.create_topic(name=topic)
    subscriber.create_subscription(name=sub, topic=topic)
    batching = pubsub_v1.PublisherClient(batch_settings=pubsub_v1.types.BatchSettings(max_messages=50, max_latency=0.05))
    futures = [batching.publish(topic, f"m{i}".encode(), index=str(i)) for i in range(300)]
    ids = [f.result(timeout=30) for f in futures]
    assert len(set(ids)) == 300
    got, lock = {}, threading.Lock()

    def callback(message):
        with lock:
            got.setdefault(message.attributes["index"], []).append(message.data)
        message.ack()

    future = stream(subscriber, sub, callback)
    try:
        assert wait_until(lambda: len(got) == 300), len(got)
        time.sleep(0.3)
        assert all(v == [f"m{k}".encode()] for k, v in got.items())
    finally:
        future.cancel()
        future.result(timeout=10) if not future.cancelled() else None


def test_ordering_keys_arrive_in_order_per_key(pubsub, names):
    _, publisher, subscriber = pubsub
    topic, sub = names
    publisher.create_topic(name=topic)
    subscriber.create_subscription(request={"name": sub, "topic": topic, "enable_message_ordering": True})
    for i in range(40):
        for key in ("a", "b"):
            publisher.publish(topic, f"{key}{i}".encode(), ordering_key=key)
    seen = {"a": [], "b": []}
    lock = threading.Lock()

    def callback(message):
        with lock:
            seen[message.ordering_key].append(int(message.data[1:]))
        message.ack()

    future = stream(subscriber, sub, callback)
    try:
        assert wait_until(lambda: len(seen["a"]) == 40 and len(seen["b"]) == 40), seen
        assert seen["a"] == list(range(40)) and seen["b"] == list(range(40))
    finally:
        future.cancel()


def test_flow_control_limits_outstanding_messages(pubsub, names):
    _, publisher, subscriber = pubsub
    topic, sub = names
    publisher.create_topic(name=topic)
    subscriber.create_subscription(name=sub, topic=topic)
    for i in range(30):
        publisher.publish(topic, str(i).encode())
    held, lock, peak = [], threading.Lock(), [0]

    def callback(message):
        with lock:
            held.append(message)
            peak[0] = max(peak[0], len(held))

    future = stream(subscriber, sub, callback, max_messages=5)
    try:
        assert wait_until(lambda: len(held) == 5)
        time.sleep(0.5)
        assert peak[0] == 5
        done = 0
        while done < 30:
            with lock:
                batch, held[:] = list(held), []
            for m in batch:
                m.ack()
            done += len(batch)
            assert wait_until(lambda: len(held) > 0 or done >= 30)
        assert peak[0] <= 5
    finally:
        future.cancel()


def test_nack_redelivers_and_dead_letters_after_max_attempts(pubsub, names):
    emu, publisher, subscriber = pubsub
    topic, sub = names
    dead_topic, dead_sub = topic + "-dead", sub + "-dead"
    publisher.create_topic(name=topic)
    publisher.create_topic(name=dead_topic)
    subscriber.create_subscription(name=dead_sub, topic=dead_topic)
    subscriber.create_subscription(request={"name": sub, "topic": topic,
                                            "dead_letter_policy": {"dead_letter_topic": dead_topic, "max_delivery_attempts": 5}})
    publisher.publish(topic, b"poison").result(timeout=10)
    attempts = []
    for _ in range(5):
        r = subscriber.pull(subscription=sub, max_messages=1, timeout=10)
        assert len(r.received_messages) == 1
        attempts.append(r.received_messages[0].delivery_attempt)
        subscriber.modify_ack_deadline(subscription=sub, ack_ids=[r.received_messages[0].ack_id], ack_deadline_seconds=0)
    assert attempts == [1, 2, 3, 4, 5]
    assert subscriber.pull(request={"subscription": sub, "max_messages": 1, "return_immediately": True}).received_messages == []
    dead = subscriber.pull(subscription=dead_sub, max_messages=1, timeout=10).received_messages
    assert dead[0].message.data == b"poison"
    assert dead[0].message.attributes["CloudPubSubDeadLetterSourceDeliveryCount"] == "5"


def test_streaming_nack_is_redelivered(pubsub, names):
    _, publisher, subscriber = pubsub
    topic, sub = names
    publisher.create_topic(name=topic)
    subscriber.create_subscription(name=sub, topic=topic)
    publisher.publish(topic, b"again").result(timeout=10)
    deliveries = []

    def callback(message):
        deliveries.append(message.message_id)
        (message.nack if len(deliveries) == 1 else message.ack)()

    future = stream(subscriber, sub, callback)
    try:
        assert wait_until(lambda: len(deliveries) >= 2)
        assert deliveries[0] == deliveries[1]
    finally:
        future.cancel()


def test_seek_to_time_and_snapshot(pubsub, names):
    emu, publisher, subscriber = pubsub
    topic, sub = names
    publisher.create_topic(name=topic)
    subscriber.create_subscription(request={"name": sub, "topic": topic, "retain_acked_messages": True})
    publisher.publish(topic, b"one").result(timeout=10)
    r = subscriber.pull(subscription=sub, max_messages=5, timeout=10)
    subscriber.acknowledge(subscription=sub, ack_ids=[m.ack_id for m in r.received_messages])
    snapshot = f"projects/{emu.project}/snapshots/snap-{sub.rsplit('-', 1)[1]}"
    subscriber.create_snapshot(name=snapshot, subscription=sub)
    publisher.publish(topic, b"two").result(timeout=10)
    r = subscriber.pull(subscription=sub, max_messages=5, timeout=10)
    subscriber.acknowledge(subscription=sub, ack_ids=[m.ack_id for m in r.received_messages])
    subscriber.seek(request={"subscription": sub, "snapshot": snapshot})
    r = subscriber.pull(subscription=sub, max_messages=5, timeout=10)
    assert [m.message.data for m in r.received_messages] == [b"two"]
    subscriber.acknowledge(subscription=sub, ack_ids=[m.ack_id for m in r.received_messages])
    subscriber.seek(request={"subscription": sub, "time": timestamp_pb2.Timestamp(seconds=0)})
    r = subscriber.pull(subscription=sub, max_messages=5, timeout=10)
    assert sorted(m.message.data for m in r.received_messages) == [b"one", b"two"]
    assert snapshot in [s.name for s in subscriber.list_snapshots(project=f"projects/{emu.project}")]


def test_errors_match_googles_emulator(pubsub, names):
    emu, publisher, subscriber = pubsub
    topic, sub = names
    with pytest.raises(exceptions.NotFound, match="Topic not found"):
        publisher.publish(topic, b"x").result(timeout=10)
    with pytest.raises(exceptions.NotFound, match="Subscription topic does not exist"):
        subscriber.create_subscription(name=sub, topic=topic)
    publisher.create_topic(name=topic)
    with pytest.raises(exceptions.AlreadyExists, match="Topic already exists"):
        publisher.create_topic(name=topic)
    with pytest.raises(exceptions.InvalidArgument, match=r"Invalid \[topics\] name"):
        publisher.create_topic(name=f"projects/{emu.project}/topics/goog-nope")
    with pytest.raises(exceptions.NotFound, match="Subscription does not exist"):
        subscriber.pull(subscription=sub, max_messages=1, timeout=10)
    # What is not served answers UNIMPLEMENTED naming the method.
    from google.pubsub_v1.services.schema_service import SchemaServiceClient
    with pytest.raises(exceptions.MethodNotImplemented, match="google.pubsub.v1.SchemaService/ListSchemas is unimplemented"):
        list(SchemaServiceClient().list_schemas(parent=f"projects/{emu.project}"))


def test_rest_transport_and_plain_http(pubsub, names):
    emu, publisher, _ = pubsub
    topic, sub = names
    # With PUBSUB_EMULATOR_HOST set the library forces gRPC; the REST transport is aimed by hand.
    from google.auth.credentials import AnonymousCredentials
    host = os.environ.pop("PUBSUB_EMULATOR_HOST")
    try:
        rest = pubsub_v1.PublisherClient(transport="rest", credentials=AnonymousCredentials(),
                                         client_options={"api_endpoint": f"http://{emu.host}:{emu.port}"})
    finally:
        os.environ["PUBSUB_EMULATOR_HOST"] = host
    rest.create_topic(name=topic)
    assert publisher.get_topic(topic=topic).name == topic
    base = f"{emu.url}/v1/{sub}"
    assert requests.put(base, json={"topic": topic}, timeout=10).json()["ackDeadlineSeconds"] == 10
    ids = requests.post(f"{emu.url}/v1/{topic}:publish", json={"messages": [{"data": base64.b64encode(b"hi").decode()}]}, timeout=10).json()
    pulled = requests.post(f"{base}:pull", json={"maxMessages": 5}, timeout=10).json()["receivedMessages"]
    assert pulled[0]["message"]["messageId"] == ids["messageIds"][0] and pulled[0]["message"]["data"] == "aGk="
    assert requests.post(f"{base}:acknowledge", json={"ackIds": [pulled[0]["ackId"]]}, timeout=10).status_code == 200
    missing = requests.post(f"{emu.url}/v1/projects/{emu.project}/topics/nope-topic:publish", json={"messages": [{"data": "eA=="}]}, timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]["status"] == "NOT_FOUND"


def test_faults_reset_and_snapshots_reach_pubsub(pubsub, names):
    emu, publisher, subscriber = pubsub
    topic, sub = names
    publisher.create_topic(name=topic)
    subscriber.create_subscription(name=sub, topic=topic)
    rule = admin(emu, "POST", "/faults", json={"match": {"service": "pubsub", "method": "publish", "path": f"topics/{topic.rsplit('/', 1)[1]}"},
                                              "error": {"status": "UNAVAILABLE", "message": "injected"}, "times": 1})
    assert rule.status_code == 200, rule.text
    raw = pubsub_v1.PublisherClient()
    with pytest.raises(exceptions.ServiceUnavailable, match="injected"):
        raw.api.publish(topic=topic, messages=[{"data": b"x"}], retry=None)
    publisher.publish(topic, b"after the fault").result(timeout=10)
    assert admin(emu, "POST", "/snapshots", json={"name": "pubsub-before"}).status_code == 200
    assert admin(emu, "POST", ":reset").status_code == 200
    with pytest.raises(exceptions.NotFound):
        publisher.get_topic(topic=topic)
    assert admin(emu, "POST", "/snapshots/pubsub-before:restore").status_code == 200
    r = subscriber.pull(subscription=sub, max_messages=5, timeout=10)
    assert [m.message.data for m in r.received_messages] == [b"after the fault"]
