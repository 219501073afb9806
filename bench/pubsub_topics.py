"""Publish latency in a project with many topics and subscriptions: what finding a topic's
subscriptions costs on every publish (before topics had an index of their subscriptions, every
publish filtered and sorted every subscription of the project).

Usage: python3 bench/pubsub_topics.py BINARY [BINARY ...] [--topics 1000] [--subs-per-topic 10]
                                                          [--publishes 2000]
For each binary: creates the topics and subscriptions over REST, then publishes one small message
at a time to one topic (round-robin over the first 10 topics) and prints the median and 90th
percentile latency and the emulator's CPU time per publish (user + system, from /proc).
"""
import argparse
import http.client
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import start_emulator, stop  # noqa: E402

PROJECT = "topics"


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def request(conn, method, path, body):
    conn.request(method, path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    return r.status, r.read()


def measure(binary, a):
    p, port = start_emulator(binary, PROJECT)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        base = f"/v1/projects/{PROJECT}"
        for t in range(a.topics):
            assert request(conn, "PUT", f"{base}/topics/topic-{t}", {})[0] == 200
            for s in range(a.subs_per_topic):
                st, body = request(conn, "PUT", f"{base}/subscriptions/sub-{t}-{s}", {"topic": f"projects/{PROJECT}/topics/topic-{t}"})
                assert st == 200, body
        message = {"messages": [{"data": "aGVsbG8="}]}
        for i in range(50):  # warm up
            request(conn, "POST", f"{base}/topics/topic-{i % 10}:publish", message)
        times, cpu0 = [], cpu_seconds(p.pid)
        for i in range(a.publishes):
            t0 = time.perf_counter()
            st, body = request(conn, "POST", f"{base}/topics/topic-{i % 10}:publish", message)
            times.append(time.perf_counter() - t0)
            assert st == 200, body
        cpu = (cpu_seconds(p.pid) - cpu0) / a.publishes
        times.sort()
        print(f"{binary}: {a.topics} topics x {a.subs_per_topic} subscriptions, {a.publishes} publishes: "
              f"p50 {statistics.median(times) * 1e3:.3f} ms, p90 {times[int(len(times) * 0.9)] * 1e3:.3f} ms, "
              f"server CPU {cpu * 1e3:.3f} ms per publish", flush=True)
    finally:
        stop(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--subs-per-topic", type=int, default=10)
    ap.add_argument("--publishes", type=int, default=2000)
    a = ap.parse_args()
    for b in a.binaries:
        measure(b, a)


if __name__ == "__main__":
    main()
