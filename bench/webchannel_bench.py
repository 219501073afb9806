"""WebChannel benchmarks (bench/run.sh; docs/webchannel.md): the JS SDK's transport in browsers,
against gRPC in the same run and against Google's Firestore emulator (the Java one, when this
machine has it) in the same run:

- write-to-snapshot latency with 100 listening sessions: one probe session's streaming backchannel
  is timed while 99 more receive the same changes (their bytes read and dropped by another
  process), and the same for 100 gRPC Listen streams (bench/listen.py's client), each on its own
  connection (100 clients, as 100 browser tabs are) and sharing one (bench/listen.py's setting),
  in alternating rounds;
- a 10 MB query result over a long-poll session (CI=1 GETs until the global snapshot);
- memory per idle session: RSS before and after 1,000 Listen sessions, each with a document
  target, its streaming backchannel attached and its initial snapshot received.

The WebChannel client is the test suite's (Tests/python/webchannel/wc_client.py). Prints Markdown
rows. Runs on its own: `EMULATOR_BIN=.build/release/emulator python3 bench/webchannel_bench.py`."""
import json
import multiprocessing
import os
import selectors
import socket
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "python"))
from benchlib import rss_mib, start_emulator, stop  # noqa: E402
from listen import DB, PROJECT, Connection, listen_request  # noqa: E402
from webchannel import google_emulator  # noqa: E402
from webchannel.wc_client import Channel, ChunkParser  # noqa: E402

WRITES = int(os.environ.get("WEBCHANNEL_WRITES", "300"))
ROUNDS = int(os.environ.get("WEBCHANNEL_ROUNDS", "3"))


def is_global(m):
    tc = m.get("targetChange") if isinstance(m, dict) else None
    return tc is not None and not tc.get("targetIds") and "readTime" in tc


def query(collection):
    return {"database": DB, "addTarget": {"query": {"parent": f"{DB}/documents", "structuredQuery": {"from": [{"collectionId": collection}]}}, "targetId": 2}}


class Probe:
    """A streaming backchannel whose arrays are parsed as they come; counts global snapshots."""

    def __init__(self, port, first):
        self.ch = Channel("127.0.0.1", port, "Listen", PROJECT)
        assert self.ch.open(first).status == 200
        self.bc = self.ch.get(ci=0)
        self.bc.stream.sock.setblocking(True)
        self.globals = 0

    def pump(self, target, timeout=30):
        deadline = time.perf_counter() + timeout
        while self.globals < target:
            if time.perf_counter() > deadline:
                raise TimeoutError("the probe saw no snapshot in time")
            before = len(self.bc.received)
            open_ = self.bc.pump(timeout)
            fresh = self.bc.received[before:]
            self.globals += sum(1 for a in fresh if a[1] != ["noop"] and is_global(a[1][0]))
            if fresh:
                self.ch.aid = fresh[-1][0]
            if not open_:  # the server ended the backchannel (as both servers do now and then): the next GET, as the SDK opens it
                self.bc.close()
                self.bc = self.ch.get(ci=0)
                self.bc.stream.sock.setblocking(True)


def writer(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def patch(sock, i, value=None):
    body = json.dumps({"fields": {"n": {"integerValue": str(i if value is None else value)}}}).encode()
    sock.sendall((f"PATCH /v1/{DB}/documents/lat/d{i % 10} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer owner\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)


def read_response(sock):
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += sock.recv(65536)
    head, rest = buf.split(b"\r\n\r\n", 1)
    n = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    while len(rest) < n:
        rest += sock.recv(65536)


def drain(sockets, stop_event):
    sel = selectors.DefaultSelector()
    for s in sockets:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    while not stop_event.is_set():
        for key, _ in sel.select(0.2):
            try:
                if not key.fileobj.recv(1 << 20):
                    sel.unregister(key.fileobj)
            except (BlockingIOError, OSError):
                pass
        time.sleep(0.002)  # read in batches: the drainer shares the 2 cores with the server under test


def seed_lat(port):
    w = writer(port)
    for i in range(10):
        patch(w, i, value=-1)  # the timed writes then always change a document
        read_response(w)
    w.close()


def drain_webchannel(port, n, ready, stop_event):
    """In a child process: n listening sessions whose backchannels are read and dropped."""
    others = []
    for _ in range(n):
        ch = Channel("127.0.0.1", port, "Listen", PROJECT)
        assert ch.open(query("lat")).status == 200
        others.append(ch.get(ci=0))
    ready.set()
    drain([b.stream.sock for b in others], stop_event)


def drain_grpc(port, n, ready, stop_event):
    """In a child process: n Listen streams on one HTTP/2 connection, read and dropped."""
    others = Connection(port)
    for _ in range(n):
        others.open(listen_request(1, "lat"))
    others.pump(lambda: others.total("current") >= n)
    ready.set()
    drain([others.sock], stop_event)


def drain_grpc_connections(port, n, ready, stop_event):
    """In a child process: n Listen streams, each on its own HTTP/2 connection (n clients)."""
    conns = []
    for _ in range(n):
        c = Connection(port)
        c.open(listen_request(1, "lat"))
        conns.append(c)
    for c in conns:
        c.pump(lambda c=c: c.total("current") >= 1)
    ready.set()
    drain([c.sock for c in conns], stop_event)


def timed_writes(port, probe_total, probe_pump, writes):
    w = writer(port)
    samples = []
    for i in range(writes):
        target = probe_total() + 1
        t0 = time.perf_counter()
        patch(w, i)
        probe_pump(target)
        samples.append((time.perf_counter() - t0) * 1000)
        read_response(w)
    w.close()
    return sorted(samples)


def with_drained(port, drainer, listeners, run):
    """Runs `run()` while `listeners` - 1 other listeners receive the same changes in another
    process (so the client's reading of them does not share the probe's interpreter)."""
    ctx = multiprocessing.get_context("fork")
    ready, stop_event = ctx.Event(), ctx.Event()
    child = ctx.Process(target=drainer, args=(port, listeners - 1, ready, stop_event), daemon=True)
    child.start()
    try:
        if not ready.wait(120):
            raise TimeoutError("the other listeners did not start")
        return run()
    finally:
        stop_event.set()
        child.join(10)


def webchannel_latency(port, listeners=100, writes=WRITES):
    seed_lat(port)

    def run():
        probe = Probe(port, query("lat"))
        probe.pump(1)
        try:
            return timed_writes(port, lambda: probe.globals, probe.pump, writes)
        finally:
            probe.bc.close()
    return with_drained(port, drain_webchannel, listeners, run)


def grpc_latency(port, listeners=100, writes=WRITES, drainer=drain_grpc):
    seed_lat(port)

    def run():
        probe = Connection(port)
        probe.open(listen_request(1, "lat"))
        probe.pump(lambda: probe.total("snapshot") >= 1)
        try:
            return timed_writes(port, lambda: probe.total("snapshot"),
                                lambda target: probe.pump(lambda: probe.total("snapshot") >= target, timeout=10), writes)
        finally:
            probe.close()
    return with_drained(port, drainer, listeners, run)


def big_result(port, documents=1000, size=10_000):
    """Seeds ~10 MB, then one Listen session over long polling until its global snapshot."""
    w = writer(port)
    filler = "x" * size
    for start in range(0, documents, 50):
        writes = [{"update": {"name": f"{DB}/documents/big/d{i:05}", "fields": {"s": {"stringValue": filler}, "i": {"integerValue": str(i)}}}}
                  for i in range(start, start + 50)]
        body = json.dumps({"writes": writes}).encode()
        w.sendall((f"POST /v1/{DB}/documents:commit HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer owner\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
        read_response(w)
    w.close()
    t0 = time.perf_counter()
    ch = Channel("127.0.0.1", port, "Listen", PROJECT)
    assert ch.open(query("big")).status == 200
    polls = total = docs = 0
    done = False
    while not done:
        b = ch.get(ci=1)
        assert b.status == 200, b.status
        p = ChunkParser()
        while not b.stream.done:
            p.feed(b.stream.read_some(timeout=60))
        b.close()
        polls += 1
        total += p.raw_count
        while (c := p.next()) is not None:
            for a in c:
                ch.aid = max(ch.aid, a[0])
                if a[1] != ["noop"]:
                    docs += "documentChange" in a[1][0]
                    done = done or is_global(a[1][0])
    elapsed = time.perf_counter() - t0
    ch.terminate()
    return elapsed, total, docs, polls


def idle_memory(port, pid, sessions=1000):
    seed_lat(port)
    time.sleep(0.5)
    before = rss_mib(pid)
    held = []
    for i in range(sessions):
        ch = Channel("127.0.0.1", port, "Listen", PROJECT)
        first = {"database": DB, "addTarget": {"documents": {"documents": [f"{DB}/documents/lat/d{i % 10}"]}, "targetId": 2}}
        assert ch.open(first).status == 200
        b = ch.get(ci=0)
        b.wait(lambda a: any(x[1] != ["noop"] and is_global(x[1][0]) for x in a), timeout=30)
        held.append(b)
    time.sleep(1)
    after = rss_mib(pid)
    for b in held:
        b.close()
    return before, after, sessions


def pct(samples, q):
    return samples[min(len(samples) - 1, int(len(samples) * q))]


def cpu_seconds(pid):
    """User + system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def latency_rounds(binary, rounds=ROUNDS):
    """Alternating rounds (a fresh server each) of WebChannel, gRPC with the 99 other listeners on
    one connection (bench/listen.py's setting) and gRPC with one connection per listener (100
    clients, as 100 browser tabs are); the samples of every round pooled per kind."""
    kinds = {"webchannel": webchannel_latency, "grpc-shared": grpc_latency,
             "grpc-connections": lambda port: grpc_latency(port, drainer=drain_grpc_connections)}
    pooled = {k: [] for k in kinds}
    cpu = {k: 0.0 for k in kinds}
    global timed_writes
    plain = timed_writes
    for _ in range(rounds):
        for k, run in kinds.items():
            proc, port = start_emulator(binary, PROJECT)

            def counted(*args, k=k, proc=proc):
                before = cpu_seconds(proc.pid)
                samples = plain(*args)
                cpu[k] += cpu_seconds(proc.pid) - before
                return samples
            timed_writes = counted
            try:
                pooled[k] += run(port)
            finally:
                timed_writes = plain
                stop(proc)
    # The server's CPU time per timed write (the commit and its fan-out to the 100 listeners): a
    # figure that depends less on what else the machine is doing than latency does.
    return {k: sorted(v) for k, v in pooled.items()}, {k: cpu[k] * 1000 / max(1, len(pooled[k])) for k in kinds}


def main():
    binary = os.environ["EMULATOR_BIN"]
    lines = []
    lat, cpu = latency_rounds(binary)
    wc, shared, conns = lat["webchannel"], lat["grpc-shared"], lat["grpc-connections"]

    def fmt(s):
        return f"p50 {statistics.median(s):.2f} ms, p99 {pct(s, 0.99):.2f} ms"
    lines.append(f"| ours: write-to-snapshot latency with 100 listeners (PATCH sent → the probe's global snapshot; {ROUNDS} alternating rounds "
                 f"of {WRITES} writes, a fresh server each), WebChannel (100 sessions, 100 connections) against gRPC with 100 connections "
                 f"and with the 99 others sharing one | WebChannel {fmt(wc)}; gRPC, 100 connections {fmt(conns)} "
                 f"(WebChannel = {statistics.median(wc) / statistics.median(conns):.2f}× its p50); gRPC, one shared connection {fmt(shared)} "
                 f"({statistics.median(wc) / statistics.median(shared):.2f}×) | ≤ 1.5× gRPC |")
    lines.append(f"| ours: server CPU time per write in those runs (the commit, its REST request and the fan-out to 100 listeners) | "
                 f"WebChannel {cpu['webchannel']:.2f} ms; gRPC, 100 connections {cpu['grpc-connections']:.2f} ms "
                 f"({cpu['webchannel'] / cpu['grpc-connections']:.2f}×); gRPC, shared connection {cpu['grpc-shared']:.2f} ms "
                 f"({cpu['webchannel'] / cpu['grpc-shared']:.2f}×) | |")
    results = {}
    servers = [("ours", lambda: start_emulator(binary, PROJECT), stop)]
    if google_emulator.available():
        servers.append(("Google's emulator", google_emulator.start, google_emulator.stop))
    for name, start, end in servers:
        r = {}
        # Google's emulator answers each change to a watched query with the whole result, so its
        # probe may wait longer; its gRPC side refuses this raw HTTP/2 client and is not compared.
        steps = ("big", "memory") if name == "ours" else ("webchannel", "big", "memory")
        for step in steps:
            proc, port = start()
            try:
                if step == "webchannel":
                    r[step] = webchannel_latency(port)
                elif step == "big":
                    r[step] = big_result(port)
                else:
                    r[step] = idle_memory(port, proc.pid)
            except Exception as e:  # noqa: BLE001 - a failing server is reported, not fatal
                r[step] = e
            finally:
                end(proc)
        results[name] = r
    for name, r in results.items():
        wc = r.get("webchannel")
        if isinstance(wc, list):
            lines.append(f"| {name}: write-to-snapshot latency with 100 listening WebChannel sessions ({WRITES} writes) | {fmt(wc)} | |")
        elif wc is not None:
            lines.append(f"| {name}: write-to-snapshot latency | failed: {wc} | |")
        big = r["big"]
        if isinstance(big, tuple):
            elapsed, total, docs, polls = big
            lines.append(f"| {name}: a {total / 1e6:.1f} MB query result ({docs:,} documents) over a long-poll session (CI=1) | "
                         f"{elapsed * 1000:,.0f} ms in {polls} GETs = {total / 1e6 / elapsed:.1f} MB/s | |")
        else:
            lines.append(f"| {name}: 10 MB query result over long polling | failed: {big} | |")
        mem = r["memory"]
        if isinstance(mem, tuple):
            before, after, n = mem
            lines.append(f"| {name}: memory per idle WebChannel session ({n:,} Listen sessions, each a document target and a streaming "
                         f"backchannel) | RSS {before:.1f} → {after:.1f} MiB = {(after - before) * 1024 / n:.1f} KiB per session | |")
        else:
            lines.append(f"| {name}: memory per idle session | failed: {mem} | |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
