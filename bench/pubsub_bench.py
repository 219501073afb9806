"""Pub/Sub: batched publish throughput, publish-to-delivery latency through StreamingPull and to a
Python `on_message_published` function, and memory after the run; the same client script against
Google's Pub/Sub emulator in the same run when Java and its jar are installed (it has no functions).

google-cloud-pubsub over gRPC, as every Pub/Sub library talks to an emulator. Prints Markdown
rows; bench/run.sh appends them to bench/RESULTS.md. Loopback only; bounded counts.
Usage: EMULATOR_BIN=.build/release/emulator python3 bench/pubsub_bench.py
"""
import os
import pathlib
import statistics
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "python"))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("EMULATOR_BIN", str(ROOT / ".build" / "release" / "emulator"))

from google.cloud import pubsub_v1  # noqa: E402

from benchlib import rss_mib  # noqa: E402
from functions_python.sdk import idle, logs, make_project, start  # noqa: E402
from pubsub import google_pubsub_emulator as google  # noqa: E402

PUBLISHES = int(os.environ.get("PUBLISHES", "20000"))
LATENCY_MESSAGES = int(os.environ.get("LATENCY_MESSAGES", "300"))
FUNCTION_MESSAGES = int(os.environ.get("FUNCTION_MESSAGES", "200"))
PROJECT = "demo-pubsub-bench"


def clients(host, **publisher_kw):
    os.environ["PUBSUB_EMULATOR_HOST"] = host
    return pubsub_v1.PublisherClient(**publisher_kw), pubsub_v1.SubscriberClient()


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def throughput(host, tag):
    """Messages per second through the library's default batching (100 messages or 10 ms)."""
    publisher, _ = clients(host)
    topic = f"projects/{PROJECT}/topics/tp-{tag}"
    publisher.create_topic(name=topic)
    payload = b"x" * 100
    for f in [publisher.publish(topic, payload) for _ in range(500)]:  # warm-up
        f.result(timeout=60)
    started = time.perf_counter()
    futures = [publisher.publish(topic, payload) for _ in range(PUBLISHES)]
    for f in futures:
        f.result(timeout=120)
    return PUBLISHES / (time.perf_counter() - started)


def streaming_latency(host, tag):
    """Publish call → the subscriber's callback, one unbatched message every 5 ms."""
    publisher, subscriber = clients(host, batch_settings=pubsub_v1.types.BatchSettings(max_messages=1))
    topic, sub = f"projects/{PROJECT}/topics/lat-{tag}", f"projects/{PROJECT}/subscriptions/lat-{tag}"
    publisher.create_topic(name=topic)
    subscriber.create_subscription(name=sub, topic=topic)
    got, done = [], threading.Event()

    def on_message(m):
        got.append((time.time() - float(m.attributes["sent"])) * 1000)
        m.ack()
        if len(got) >= LATENCY_MESSAGES + 20:
            done.set()
    future = subscriber.subscribe(sub, callback=on_message)
    for _ in range(LATENCY_MESSAGES + 20):
        publisher.publish(topic, b"ping", sent=repr(time.time())).result(timeout=30)
        time.sleep(0.005)
    done.wait(60)
    future.cancel()
    try:
        future.result(timeout=10)  # let the stream's threads stop before the channel closes
    except Exception:  # noqa: BLE001 (cancelled streams end with an error by design)
        pass
    subscriber.close()
    samples = got[20:]  # the first 20 warm the stream up
    return statistics.median(samples), pct(samples, 0.99), len(samples)


def function_latency(emu):
    publisher, _ = clients(f"{emu.host}:{emu.port}", batch_settings=pubsub_v1.types.BatchSettings(max_messages=1))
    topic = f"projects/{emu.project}/topics/bench"
    for _ in range(FUNCTION_MESSAGES + 10):
        publisher.publish(topic, b"ping", sent=repr(time.time())).result(timeout=30)
        time.sleep(0.01)
    idle(emu, timeout_ms=120000)
    lines = [float(line.split()[1]) for r in logs(emu, "on_bench") for line in r["logs"] if line.startswith("LAT ")]
    samples = lines[10:]
    return statistics.median(samples), pct(samples, 0.99), len(samples)


def main():
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = make_project(pathlib.Path(tmp), PROJECT, codebases={"default": (ROOT / "bench" / "pubsub_codebase", "functions")})
        emu = start(folder)
        try:
            host = f"{emu.host}:{emu.port}"
            ours_tp = throughput(host, "ours")
            ours_lat = streaming_latency(host, "ours")
            ours_fn = function_latency(emu)
            ours_rss = rss_mib(emu.proc.pid)
        finally:
            emu.stop()
    rows.append(f"| Pub/Sub publish throughput (google-cloud-pubsub, default batching, {PUBLISHES:,} messages of 100 B, one publisher) | {ours_tp:,.0f} messages/s | |")
    rows.append(f"| Pub/Sub publish-to-delivery latency through StreamingPull ({ours_lat[2]} unbatched messages, 5 ms apart) | p50 {ours_lat[0]:.2f} ms, p99 {ours_lat[1]:.2f} ms | |")
    rows.append(f"| Pub/Sub publish-to-function latency (a Python `on_message_published`, {ours_fn[2]} messages 10 ms apart; the function's own clock) | p50 {ours_fn[0]:.2f} ms, p99 {ours_fn[1]:.2f} ms | |")
    rows.append(f"| emulator RSS after the Pub/Sub run | {ours_rss:.1f} MiB | |")
    why = google.missing()
    if why:
        rows.append(f"| Google's Pub/Sub emulator | not measured: {why} | |")
    else:
        proc, host = google.start()
        try:
            g_tp = throughput(host, "google")
            g_lat = streaming_latency(host, "google")
            g_rss = rss_mib(proc.pid)
        finally:
            google.stop(proc)
        rows.append(f"| Google's Pub/Sub emulator: publish throughput (same script) | {g_tp:,.0f} messages/s (ours {ours_tp / g_tp:.1f}×) | |")
        rows.append(f"| Google's Pub/Sub emulator: publish-to-delivery latency through StreamingPull | p50 {g_lat[0]:.2f} ms, p99 {g_lat[1]:.2f} ms | |")
        rows.append(f"| Google's Pub/Sub emulator: RSS after the same run | {g_rss:.1f} MiB | |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
