"""Hostile protobuf over real sockets: requests whose decoding was exponential (a singular message
field repeated at every level of nesting) cost their sender, not the other clients; nesting is
bounded as protobuf's parsers bound it (100 messages below the outermost); and the work of a call
whose caller goes away (RST_STREAM, or the connection closed) stops. The emulator's CPU time is
read from /proc, so these run on Linux only."""
import os
import sys
import threading
import time

import grpc
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/stat")

COMMIT = "/google.firestore.v1.Firestore/Commit"
RUN_QUERY = "/google.firestore.v1.Firestore/RunQuery"
GET = "/google.firestore.v1.Firestore/GetDocument"
OWNER = [("authorization", "Bearer owner")]


def varint(n):
    out = b""
    while n >= 0x80:
        out += bytes([(n & 0x7F) | 0x80])
        n >>= 7
    return out + bytes([n])


def ld(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def text(field, s):
    return ld(field, s.encode())


def entry(key, value):
    return ld(1, text(1, key) + ld(2, value))


def repeated_map_value(levels):
    """Value{map_value{fields{"a": <the next level>}}, map_value{}} `levels` times: the shape
    whose decoding work doubled per level (357 bytes took 6.75 s)."""
    v = b"\x10\x01"
    for _ in range(levels):
        v = ld(6, entry("a", v)) + ld(6, b"")
    return v


def commit(project, value, doc="hostile/x"):
    """CommitRequest{database, writes[{update{name, fields{"a": value}}}]}: the value sits 4 levels down."""
    db = f"projects/{project}/databases/(default)"
    document = text(1, f"{db}/documents/{doc}") + ld(2, text(1, "a") + ld(2, value))
    return text(1, db) + ld(2, ld(1, document))


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raw(channel, method):
    return channel.unary_unary(method, request_serializer=lambda b: b, response_deserializer=lambda b: b)


def call(channel, method, payload, timeout=20):
    try:
        raw(channel, method)(payload, timeout=timeout, metadata=OWNER)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def test_repeated_message_fields_cost_their_sender_only(emulator_factory):
    emu = emulator_factory()
    target = f"{emu.host}:{emu.port}"
    # 32 levels: the deepest a Commit's value may nest (4 + 3 * 32 = 100 messages); 2^32 times the
    # work before. The store then refuses it for its own limit (20 map levels).
    hostile = commit(emu.project, repeated_map_value(32))
    assert len(hostile) < 600
    outcomes, stop = [], threading.Event()

    def attacker():
        with grpc.insecure_channel(target) as ch:
            while not stop.is_set():
                started = time.monotonic()
                code, details = call(ch, COMMIT, hostile)
                outcomes.append((code, details, time.monotonic() - started))

    attackers = [threading.Thread(target=attacker) for _ in range(2)]
    for t in attackers:
        t.start()
    try:
        with grpc.insecure_channel(target) as ch:
            name = f"projects/{emu.project}/databases/(default)/documents/hostile/missing"
            for _ in range(20):
                started = time.monotonic()
                code, _ = call(ch, GET, text(1, name), timeout=10)
                assert code == grpc.StatusCode.NOT_FOUND
                assert time.monotonic() - started < 2.0, "another client's call waited behind the hostile ones"
    finally:
        stop.set()
        for t in attackers:
            t.join(30)
    assert outcomes, "the hostile calls never returned"
    for code, details, seconds in outcomes:
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert "nested deeper than 20 levels" in details
        assert seconds < 5.0


def nested_filters(project, nested, value_kind="integer"):
    """A RunQueryRequest whose innermost message sits `nested` (even: 100, odd: 101) levels below
    it: composite filters around one field filter. RunQueryRequest(0) > structured_query(1) >
    where(2) > composite(3) > filters(4) > ... > Filter(L) > field_filter(L+1) > value(L+2)."""
    inner_filter_level = nested - 2 if nested % 2 == 0 else nested - 3
    value = b"\x10\x01" if nested % 2 == 0 else ld(9, b"")  # odd: an empty array_value one level lower
    f = ld(2, ld(1, text(2, "n")) + b"\x10\x05" + ld(3, value))  # Filter{field_filter{n == value}}
    for _ in range((inner_filter_level - 2) // 2):
        f = ld(1, b"\x08\x01" + ld(2, f))  # Filter{composite_filter{op AND, filters [f]}}
    structured = ld(2, ld(2, text(2, "c"))) + ld(3, f)  # from [{collection_id c}], where f
    return text(1, f"projects/{project}/databases/(default)/documents") + ld(2, structured)


def test_one_hundred_nested_messages_are_read_and_one_hundred_one_refused(emulator_factory):
    emu = emulator_factory()
    with grpc.insecure_channel(f"{emu.host}:{emu.port}") as ch:
        stream = ch.unary_stream(RUN_QUERY, request_serializer=lambda b: b, response_deserializer=lambda b: b)
        answers = list(stream(nested_filters(emu.project, 100), timeout=20, metadata=OWNER))
        assert answers, "RunQuery answers at least its read time"
        with pytest.raises(grpc.RpcError) as refused:
            list(stream(nested_filters(emu.project, 101), timeout=20, metadata=OWNER))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert refused.value.details().startswith("Invalid request message: messages nested deeper than 100 levels in google.firestore.v1.ArrayValue")


def expensive_commit(project):
    """About 16 MiB of empty array elements in one value (each a message to decode): a legal-size
    request whose decoding takes seconds (debug build, shared machine) to tenths of a second, long
    enough to be interrupted."""
    size = 16 * 1024 * 1024 - 1024
    return commit(project, ld(9, ld(1, b"") * (size // 2)))


def wait_for_cpu(pid, seconds, since, limit=60):
    """Waits until the process has used `seconds` of CPU more than `since`."""
    deadline = time.monotonic() + limit
    while cpu_seconds(pid) - since < seconds:
        assert time.monotonic() < deadline, "the emulator never started working on the call"
        time.sleep(0.02)


def cpu_after(pid, seconds=1.5):
    start = cpu_seconds(pid)
    time.sleep(seconds)
    return cpu_seconds(pid) - start


@pytest.mark.parametrize("how", ["rst_stream", "connection_closed"])
def test_work_stops_when_the_caller_goes_away(emulator_factory, how):
    emu = emulator_factory()
    pid = emu.proc.pid
    ch = grpc.insecure_channel(f"{emu.host}:{emu.port}")
    before = cpu_seconds(pid)
    future = raw(ch, COMMIT).future(expensive_commit(emu.project), timeout=120, metadata=OWNER)
    wait_for_cpu(pid, 0.3, before)
    if future.done():
        pytest.skip("the call was over before 0.3 s of CPU: too fast to interrupt")
    if how == "rst_stream":
        future.cancel()  # RST_STREAM(CANCEL) on an open connection
    else:
        ch.close()  # the connection goes away with the call in flight
    idle = cpu_after(pid)
    ch.close()
    assert idle < 0.3, f"{idle:.2f} s of CPU in the 1.5 s after the caller left"
    # And the emulator still answers.
    with grpc.insecure_channel(f"{emu.host}:{emu.port}") as ok:
        name = f"projects/{emu.project}/databases/(default)/documents/hostile/missing"
        assert call(ok, GET, text(1, name))[0] == grpc.StatusCode.NOT_FOUND

