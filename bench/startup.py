"""Start-up and idle-memory benchmark.

Measures, for the built emulator binary, the time from process start to the first successful
GET /emulator/v1/status (median and p90 of N cold starts) and the idle resident memory.
Prints a Markdown table row block; `bench/run.sh` appends it to bench/RESULTS.md.
Loopback only; every run is bounded in count and time.
"""
import os
import statistics
import subprocess
import sys
import time
import urllib.request

BIN = os.environ.get("EMULATOR_BIN", ".build/release/emulator")
RUNS = int(os.environ.get("RUNS", "20"))


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def one_start():
    port = free_port()
    t0 = time.perf_counter()
    p = subprocess.Popen([BIN, "start", "--port", str(port), "--log-level", "error"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/emulator/v1/status"
    deadline = t0 + 10
    while True:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            if time.perf_counter() > deadline:
                p.kill()
                raise RuntimeError("emulator did not answer within 10 s")
            time.sleep(0.001)
    ready_ms = (time.perf_counter() - t0) * 1000
    time.sleep(0.3)
    with open(f"/proc/{p.pid}/status") as f:
        rss_kib = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    p.terminate()
    p.wait(10)
    return ready_ms, rss_kib / 1024


def main():
    results = [one_start() for _ in range(RUNS)]
    ready = sorted(r[0] for r in results)
    rss = statistics.median(r[1] for r in results)
    p90 = ready[int(len(ready) * 0.9) - 1]
    print(f"| start-up to first status 200 (median of {RUNS}) | {statistics.median(ready):.1f} ms (p90 {p90:.1f} ms) | goal < 50 ms |")
    print(f"| idle resident memory (median) | {rss:.1f} MiB | goal < 30 MiB |")


if __name__ == "__main__":
    sys.exit(main())
