"""The Pub/Sub benchmark's codebase (bench/pubsub_bench.py): one Pub/Sub function that prints how
long after the client's publish call it ran (the client puts its wall time in attribute `sent`)."""
import time

from firebase_functions import pubsub_fn


@pubsub_fn.on_message_published(topic="bench")
def on_bench(event: pubsub_fn.CloudEvent[pubsub_fn.MessagePublishedData]) -> None:
    sent = float(event.data.message.attributes.get("sent", "0"))
    print(f"LAT {(time.time() - sent) * 1000:.3f}")
