#!/usr/bin/env bash
# One command for every benchmark: builds the release binary, installs the load generator (wrk),
# nginx (Storage's peer) and the comparison server (moto) when missing, then measures on loopback
# and appends a dated section to bench/RESULTS.md. Bounded: about 9 minutes of measuring after the
# build (BIG_MB=N sizes the Storage benchmark's big object; default 1024, about 4 GB of disk).
# Usage: bench/run.sh            (from anywhere; see docs/benchmarks.md)
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== swift build -c release"
{ swift build -c release --product emulator && swift build -c release --product bench-functions \
  && swift build -c release --product bench-protobuf; } >.build/bench-build.log 2>&1 \
  || { tail -30 .build/bench-build.log; exit 1; }
export EMULATOR_BIN="$PWD/.build/release/emulator" BENCH_FUNCTIONS_BIN="$PWD/.build/release/bench-functions"

if ! command -v wrk >/dev/null; then
  echo "== installing wrk"
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq wrk || { apt-get update -qq && apt-get install -y -qq wrk; }
  else sudo apt-get install -y -qq wrk || { sudo apt-get update -qq && sudo apt-get install -y -qq wrk; }; fi
fi

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  echo "== installing nginx (the Storage benchmark's peer)"
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq nginx >/dev/null || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }
  else sudo apt-get install -y -qq nginx >/dev/null || { sudo apt-get update -qq && sudo apt-get install -y -qq nginx >/dev/null; }; fi
fi
export PATH="$PATH:/usr/sbin"

if ! command -v h2load >/dev/null || ! command -v nghttp >/dev/null; then
  echo "== installing nghttp2-client (h2load, nghttp)"
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq nghttp2-client >/dev/null || { apt-get update -qq && apt-get install -y -qq nghttp2-client >/dev/null; }
  else sudo apt-get install -y -qq nghttp2-client >/dev/null || { sudo apt-get update -qq && sudo apt-get install -y -qq nghttp2-client >/dev/null; }; fi
fi

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  echo "== installing chromium and chromium-driver (web UI timings)"
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq chromium chromium-driver >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; }
  else sudo apt-get install -y -qq chromium chromium-driver >/dev/null || { sudo apt-get update -qq && sudo apt-get install -y -qq chromium chromium-driver >/dev/null; }; fi
fi

if [ ! -x .venv/bin/python ]; then python3 -m venv --system-site-packages .venv; fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r bench/requirements.txt
.venv/bin/python -m pip install -q --disable-pip-version-check ./testing/python >/dev/null && rm -rf testing/python/build
export PYTHON="$PWD/.venv/bin/python"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
{
  echo
  echo "### $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)"
  echo
  echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), \
$(free -g | awk '/^Mem:/ {print $2 " GiB RAM (" $7 " GiB available)"}'), load average $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  # Sessions land on different hosts: a fixed single-core job lets sections be compared.
  echo "CPU calibration (compare sections by this first): a 10,000,000-step Python addition loop takes \
$("$PYTHON" -c 'import time; t=time.perf_counter(); s=0
for i in range(10_000_000): s+=i
print(f"{time.perf_counter()-t:.2f}")') s."
  echo
  echo "| measure | value | goal |"
  echo "|---|---|---|"
  echo "== start-up (20 cold starts)" >&2
  RUNS=20 "$PYTHON" bench/startup.py
  echo "== control plane: reset, snapshot save and restore (10,000 documents, 1,000 users)" >&2
  "$PYTHON" bench/control_plane.py
  echo "== throughput, latency, memory, scaling, moto" >&2
  "$PYTHON" bench/bench.py
  echo "== ours beside Google's Firestore emulator (where installed), nginx's constant 200 as the ceiling" >&2
  echo
  "$PYTHON" bench/google_peer.py
  echo "== gRPC: GetDocument (h2load) against REST (wrk), a 10 MB RunQuery, idle HTTP/2 connections" >&2
  echo
  echo "Firestore over gRPC (HTTP/2), against REST in the same run:"
  echo
  echo "| measure | value | goal |"
  echo "|---|---|---|"
  "$PYTHON" bench/grpc_bench.py
  echo "== real-time listeners: streams and targets, latency, watched writes, initial snapshot" >&2
  echo
  echo "Real-time listeners (raw HTTP/2 Listen streams from one Python process; writes over REST):"
  echo
  echo "| measure | value | goal |"
  echo "|---|---|---|"
  "$PYTHON" bench/listen.py
  echo "== WebChannel: latency with 100 sessions against gRPC, 10 MB over long polling, idle sessions; Google's emulator beside" >&2
  echo
  echo "Firestore over WebChannel (the JS SDK's browser transport; raw sessions from one Python process, \`bench/webchannel_bench.py\`;"
  echo "gRPC and, where installed, Google's Firestore emulator measured in the same run):"
  echo
  echo "| measure | value | goal |"
  echo "|---|---|---|"
  "$PYTHON" bench/webchannel_bench.py
  echo "== Pub/Sub: batched publish throughput, latency through StreamingPull and to a function; Google's emulator beside" >&2
  echo
  echo "Pub/Sub (google-cloud-pubsub over gRPC, \`bench/pubsub_bench.py\`; Google's Pub/Sub emulator, where installed, in the same run):"
  echo
  echo "| measure | value | goal |"
  echo "|---|---|---|"
  "$PYTHON" bench/pubsub_bench.py
  echo
  echo "== Storage: 1 MB and ${BIG_MB:-1024} MB uploads and downloads against nginx, memory while streaming, parallel small uploads" >&2
  echo
  echo "Cloud Storage (curl against the JSON API; nginx serving and receiving the same files in the same run, \`bench/storage.py\`):"
  echo
  echo "| measure | value | goal |"
  echo "|---|---|---|"
  "$PYTHON" bench/storage.py
  echo
  echo "== cost of durability (--data-dir, each fsync policy)" >&2
  echo "Cost of durability: 2,000 sequential PATCHes of 500 documents from one Python client (its own round"
  echo "trip is most of each figure), in memory and with \`--data-dir\` under each fsync policy:"
  echo
  "$PYTHON" bench/write_cost.py
  echo "== web UI: time to first render with 100,000 documents and 10,000 users (headless Chromium)" >&2
  "$PYTHON" bench/ui_timing.py
  echo "== protobuf codec (bench-protobuf)" >&2
  echo
  echo "Protobuf codec (\`bench-protobuf 2\`, no server involved):"
  echo
  .build/release/bench-protobuf 2
  echo "== Python functions (firebase-functions from PyPI; builds the SDK venv in .cache on first use)" >&2
  echo
  "$PYTHON" bench/python_functions.py
  echo "== the pytest plugin: fresh-project fixture overhead, a 1,000-test suite with -n 2 and with resets" >&2
  echo
  echo "The pytest plugin (testing/python; \`bench/pytest_kit.py\`):"
  echo
  echo "| measure | value | goal |"
  echo "|---|---|---|"
  "$PYTHON" bench/pytest_kit.py
} >"$out"
cat "$out" >>bench/RESULTS.md
cat "$out"
echo "== appended to bench/RESULTS.md"
