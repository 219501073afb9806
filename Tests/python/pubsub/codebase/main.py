"""A Python functions codebase for the Pub/Sub suite: one Pub/Sub trigger that prints what the
CloudEvent carries, and a schedule (its runs are published on its Cloud Scheduler topic)."""
import json

from firebase_functions import pubsub_fn, scheduler_fn


@pubsub_fn.on_message_published(topic="events")
def on_event(event: pubsub_fn.CloudEvent[pubsub_fn.MessagePublishedData]) -> None:
    m = event.data.message
    print("EVENT " + json.dumps({"id": m.message_id, "data": m.data, "attributes": m.attributes, "ordering_key": m.ordering_key,
                                 "publish_time": m.publish_time.isoformat(), "type": event.type, "source": event.source,
                                 "subscription": event.data.subscription}, sort_keys=True))


@scheduler_fn.on_schedule(schedule="every 1 minutes")
def every_minute(event: scheduler_fn.ScheduledEvent) -> None:
    print(f"tick {event.job_name}")
