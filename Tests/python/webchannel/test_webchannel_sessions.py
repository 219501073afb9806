"""Sessions at scale and under neglect: 1,000 sessions opened and abandoned are reaped and the
memory comes back; 200 listening tabs cost one connection each and all see a write; a tab that
never reads is dropped, whether it never opens a backchannel or opens one and stops reading."""
import os
import threading
import time

from webchannel.wc_client import messages
from webchannel.wc_support import channel, coll, db_name, fast, put_doc, query_target  # noqa: F401


def rss_kib(emu):
    with open(f"/proc/{emu.proc.pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def open_fds(emu):
    return len(os.listdir(f"/proc/{emu.proc.pid}/fd"))


def wait_until(predicate, timeout, what):
    deadline = time.time() + timeout
    while not predicate():
        assert time.time() < deadline, what
        time.sleep(0.1)


def open_many(emu, collection, n, backchannel=False):
    """n Listen sessions on `collection` (4 threads), each with a streaming GET when `backchannel`."""
    def worker(out, k):
        for _ in range(k):
            ch = channel(emu, "Listen")
            assert ch.open(query_target(emu, collection)).status == 200
            if backchannel:
                ch.backchannel = ch.get(ci=0)
                assert ch.backchannel.status == 200
            out.append(ch)
    out = []
    threads = [threading.Thread(target=worker, args=(out, n // 4)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_a_thousand_abandoned_sessions_are_reaped_and_memory_returns(fast, coll):
    for i in range(10):
        put_doc(fast, f"{coll}/d{i}", {"n": i})

    def round_trip():
        sessions = open_many(fast, coll, 1000)
        peak = rss_kib(fast)
        # No backchannel, no request: reaped after sessionTimeoutSeconds (1.5 s here).
        wait_until(lambda: all(s.send(ofs=1).status == 400 for s in (sessions[0], sessions[500], sessions[-1])), 15, "not reaped")
        time.sleep(1.5)  # the last pass of the maintenance task
        return sessions, peak

    # RSS after a reap is the allocator's business: freed pages stay mapped, so one reading
    # against another moves by megabytes with nothing leaked. A leak adds up instead: every
    # round's sessions would stay on top of the last's. So rounds 3 and 4 must stay near the
    # highest point of rounds 1 and 2 (one round alone is no reference: on a busy machine the
    # first sessions of a round are reaped before its last ones open).
    start = rss_kib(fast)
    rounds = []
    for _ in range(4):
        sessions, peak = round_trip()
        rounds.append((peak, rss_kib(fast)))
    assert all(s.send(ofs=1).status == 400 for s in sessions[::50])
    # The targets were released: a write to the collection reaches nobody and costs nothing extra.
    put_doc(fast, f"{coll}/late", {"n": 1})
    print(f"RSS at start {start} KiB; (peak, reaped) per round: {rounds}")
    high = max(peak for peak, _ in rounds[:2])
    assert high > start  # the sessions cost something while they lived...
    # ...and none of it stays: a leak of a sixth of that (2 MiB a round) breaks a bound by the
    # fourth round.
    for peak, after in rounds[2:]:
        assert peak <= high + 3 * 1024 and after <= high + 2 * 1024, (start, rounds)


def test_two_hundred_listening_tabs_cost_one_connection_each(fast, coll):
    put_doc(fast, f"{coll}/seed", {"n": 0})
    before = open_fds(fast)
    tabs = open_many(fast, coll, 200, backchannel=True)
    gets = [t.backchannel for t in tabs]
    for g in gets:
        g.wait(lambda a: any("readTime" in m.get("targetChange", {}) and not m["targetChange"].get("targetIds") for m in messages(a)))
    held = open_fds(fast) - before
    assert held <= 205, held  # one backchannel connection per tab, nothing else
    put_doc(fast, f"{coll}/new", {"n": 1})
    for g in gets:
        g.wait(lambda a: any(m.get("documentChange", {}).get("document", {}).get("name", "").endswith("/new") for m in messages(a)))
    for g in gets:
        g.close()
    for t in tabs:
        t.terminate()


def test_a_tab_that_never_opens_a_backchannel_is_dropped(fast, coll):
    for i in range(5):
        put_doc(fast, f"{coll}/d{i}", {"n": i})
    ch = channel(fast, "Listen")
    assert ch.open(query_target(fast, coll)).status == 200
    # The client keeps posting (so it is not reaped as gone) but never takes its data: after
    # stallTimeoutSeconds (2 s here) the session is dropped.
    started = time.time()
    while ch.send(ofs=1).status == 200:
        assert time.time() - started < 10, "never dropped"
        time.sleep(0.3)
    assert 1.5 < time.time() - started


def test_a_tab_that_stops_reading_its_backchannel_is_dropped(fast, coll):
    ch = channel(fast, "Listen")
    assert ch.open(query_target(fast, coll)).status == 200
    stuck = ch.get(ci=0)  # opened, never read
    big = "y" * 900_000
    for i in range(24):  # ~21 MB: more than the socket buffers and the session's send buffer
        put_doc(fast, f"{coll}/big{i}", {"s": big})
    started = time.time()
    while ch.send(ofs=1).status == 200:
        assert time.time() - started < 15, "never dropped"
        time.sleep(0.3)
    stuck.close()
    # Others are unaffected.
    other = channel(fast, "Listen")
    assert other.open(query_target(fast, coll + "-other")).status == 200
    assert other.poll()
