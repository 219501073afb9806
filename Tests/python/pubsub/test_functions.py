"""An unmodified Python codebase's `on_message_published` fed by google-cloud-pubsub over gRPC:
the trigger's topic exists once the codebase is served, every publish reaches the function with
the message in the CloudEvent as production sends it, `:idle` waits for the deliveries, and
schedule runs are published on the schedule's Cloud Scheduler topic."""
import json
import os

import pytest
import requests
from google.api_core import exceptions
from google.cloud import pubsub_v1

from functions_python.sdk import idle, logs, make_project, start
from pubsub.conftest import admin

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = "demo-pubsub-functions"


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    import pathlib
    folder = make_project(tmp_path_factory.mktemp("project"), PROJECT, codebases={"default": (pathlib.Path(HERE) / "codebase", "functions")})
    e = start(folder)
    saved = os.environ.get("PUBSUB_EMULATOR_HOST")
    os.environ["PUBSUB_EMULATOR_HOST"] = f"{e.host}:{e.port}"
    yield e
    if saved is None:
        os.environ.pop("PUBSUB_EMULATOR_HOST", None)
    else:
        os.environ["PUBSUB_EMULATOR_HOST"] = saved
    e.stop()


def events(emu):
    return [json.loads(line[len("EVENT "):]) for r in logs(emu, "on_event") for line in r["logs"] if line.startswith("EVENT ")]


def test_grpc_publish_reaches_on_message_published_as_production_sends_it(emu):
    publisher = pubsub_v1.PublisherClient(publisher_options=pubsub_v1.types.PublisherOptions(enable_message_ordering=True))
    topic = f"projects/{PROJECT}/topics/events"
    assert publisher.get_topic(topic=topic).name == topic  # created when the codebase was served
    first = publisher.publish(topic, b'{"n": 1}', kind="created", ordering_key="user-1").result(timeout=30)
    second = publisher.publish(topic, b"plain", ordering_key="user-1").result(timeout=30)
    idle(emu)
    seen = events(emu)
    assert sorted(e["id"] for e in seen) == sorted([first, second])  # once per message, no duplicates
    assert len(logs(emu, "on_event")) == 2 and all(l["outcome"] == "ok" for l in logs(emu, "on_event"))
    got = {e["id"]: e for e in seen}
    e = got[first]
    assert e["attributes"] == {"kind": "created"} and e["ordering_key"] == "user-1"
    assert e["type"] == "google.cloud.pubsub.topic.v1.messagePublished"
    assert e["source"] == f"//pubsub.googleapis.com/projects/{PROJECT}/topics/events"
    assert e["subscription"] == f"projects/{PROJECT}/subscriptions/eventarc-us-central1-on_event"
    import base64
    assert base64.b64decode(e["data"]) == b'{"n": 1}'


def test_unknown_topics_answer_not_found(emu):
    publisher = pubsub_v1.PublisherClient()
    with pytest.raises(exceptions.NotFound, match="Topic not found"):
        publisher.publish(f"projects/{PROJECT}/topics/never-created", b"x").result(timeout=30)


def test_schedule_runs_are_published_on_the_scheduler_topic(emu):
    subscriber = pubsub_v1.SubscriberClient()
    topic = f"projects/{PROJECT}/topics/firebase-schedule-every_minute-us-central1"
    sub = f"projects/{PROJECT}/subscriptions/watch-schedule"
    subscriber.create_subscription(name=sub, topic=topic)
    run = requests.post(f"{emu.url}/emulator/v1/projects/{PROJECT}/functions/every_minute:run", json={}, timeout=10)
    assert run.status_code == 200, run.text
    idle(emu)
    assert any(l["outcome"] == "ok" for l in logs(emu, "every_minute"))
    pulled = subscriber.pull(subscription=sub, max_messages=5, timeout=10).received_messages
    assert len(pulled) == 1 and pulled[0].message.data == b"{}" and "scheduleTime" in pulled[0].message.attributes
    subscriber.close()
