"""The Pub/Sub fan-out attack, measured: one topic with many subscriptions, batches of small
messages published until the emulator refuses one (or this script's own memory stop is reached),
the emulator's resident memory (VmRSS, and the peak VmHWM) printed after each few publishes.

Usage: python3 bench/pubsub_fanout.py BINARY [--subs 2000] [--batch 1000] [--stop-mib 4096]
                                             [--config emulator.json]
Each subscription holds its own entry per message, so before the project budget (limits.
pubsubMaxProjectMessages) every publish of 1,000 messages to 2,000 subscriptions added about
300 MB with nothing bounding the sum; --stop-mib ends the run when the process passes it, so the
"before" binary cannot take the machine.
"""
import argparse
import base64
import http.client
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import start_emulator, stop  # noqa: E402

PROJECT = "fanout"


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))


def request(conn, method, path, body):
    conn.request(method, path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    return r.status, r.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--subs", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--stop-mib", type=int, default=4096)
    ap.add_argument("--config")
    a = ap.parse_args()
    extra = ("--config", a.config) if a.config else ()
    p, port = start_emulator(a.binary, PROJECT, extra)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        base = f"/v1/projects/{PROJECT}"
        assert request(conn, "PUT", f"{base}/topics/fan", {})[0] == 200
        for i in range(a.subs):
            s, body = request(conn, "PUT", f"{base}/subscriptions/sub-{i}", {"topic": f"projects/{PROJECT}/topics/fan"})
            assert s == 200, body
        idle = status_kib(p.pid, "VmRSS") / 1024
        print(f"{a.subs} subscriptions created: VmRSS {idle:.0f} MiB", flush=True)
        data = base64.b64encode(b"hello").decode()
        messages = {"messages": [{"data": data} for _ in range(a.batch)]}
        published, started = 0, time.monotonic()
        while True:
            s, body = request(conn, "POST", f"{base}/topics/fan:publish", messages)
            rss = status_kib(p.pid, "VmRSS") / 1024
            if s != 200:
                err = json.loads(body).get("error", {})
                print(f"refused after {published} publishes ({published * a.batch * a.subs:,} entries): "
                      f"HTTP {s} {err.get('status')}: {err.get('message')}")
                break
            published += 1
            if published % 5 == 0:
                print(f"{published} publishes ({published * a.batch * a.subs:,} entries): VmRSS {rss:.0f} MiB", flush=True)
            if rss > a.stop_mib:
                print(f"stopped by --stop-mib after {published} publishes ({published * a.batch * a.subs:,} entries), "
                      f"nothing refused")
                break
        peak = status_kib(p.pid, "VmHWM") / 1024
        rss = status_kib(p.pid, "VmRSS") / 1024
        print(f"VmRSS {rss:.0f} MiB, peak VmHWM {peak:.0f} MiB, idle with subscriptions {idle:.0f} MiB, "
              f"{(rss - idle) * 1048576 / max(1, published * a.batch * a.subs):.0f} bytes per entry, "
              f"{time.monotonic() - started:.1f} s")
    finally:
        stop(p)


if __name__ == "__main__":
    main()
