"""Durability under a full disk and a damaged journal (issue 22, item 4).

A write whose journal append fails is refused (503 UNAVAILABLE) and changes nothing; once space
is back, writes are acknowledged again; after `kill -9` every acknowledged write (Firestore and
Auth) comes back. A journal damaged in the middle stops the start with a message that names the
file, the offset and the repair command, and `emulator repair` recovers the intact prefix.
"""
import errno
import os
import signal
import struct
import subprocess

import pytest
import requests

from conftest import ROOT, RunningEmulator

OWNER = {"Authorization": "Bearer owner"}
ITK = "/identitytoolkit.googleapis.com/v1"
BINARY = os.environ.get("EMULATOR_BIN", str(ROOT / ".build" / "debug" / "emulator"))


def doc_url(emu, path):
    return f"{emu.url}/v1/projects/{emu.project}/databases/(default)/documents/{path}"


def put(s, emu, path, i):
    return s.patch(doc_url(emu, path), json={"fields": {"i": {"integerValue": str(i)}, "pad": {"stringValue": "x" * 200}}},
                   headers=OWNER, timeout=10)


def sign_up(s, emu, email):
    return s.post(f"{emu.url}{ITK}/accounts:signUp?key=k", json={"email": email, "password": "secret1", "returnSecureToken": True},
                  timeout=10)


def sign_in(s, emu, email):
    return s.post(f"{emu.url}{ITK}/accounts:signInWithPassword?key=k", json={"email": email, "password": "secret1"}, timeout=10)


@pytest.fixture
def small_disk(tmp_path):
    """A 3 MiB tmpfs (root only; CI runs the suite as root)."""
    if os.geteuid() != 0:
        pytest.skip("disk-full test needs root to mount a 3 MiB tmpfs")
    disk = tmp_path / "disk"
    disk.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: " + p.stderr.strip())
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk):
    """Takes every free block of the file system; returns the filler's path."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f:
        for size in (1 << 16, 1 << 12, 1):
            while True:
                try:
                    f.write(b"\0" * size)
                except OSError as e:
                    assert e.errno == errno.ENOSPC
                    break
    return filler


def assert_unavailable(r):
    assert r.status_code == 503, r.text
    err = r.json()["error"]
    assert err.get("status", "UNAVAILABLE") == "UNAVAILABLE" and "No space left on device" in err["message"], err


def test_full_disk_refuses_writes_and_keeps_every_acknowledged_one(small_disk):
    data = small_disk / "data"
    emu = RunningEmulator(["--data-dir", str(data)])
    s = requests.Session()
    acked_docs, acked_users = [], []
    try:
        for i in range(30):
            assert put(s, emu, f"before/d{i}", i).status_code == 200
            acked_docs.append(f"before/d{i}")
        assert sign_up(s, emu, "before@example.com").status_code == 200
        acked_users.append("before@example.com")

        filler = fill(small_disk)
        # The journal's last page may still take a record or two; after that every write is refused.
        refused_docs = []
        for i in range(40):
            r = put(s, emu, f"full/d{i}", i)
            if r.status_code == 200:
                acked_docs.append(f"full/d{i}")
                continue
            assert_unavailable(r)
            refused_docs.append(f"full/d{i}")
            # Refused means not applied: nobody can read it.
            assert s.get(doc_url(emu, f"full/d{i}"), headers=OWNER, timeout=5).status_code == 404
        assert len(refused_docs) >= 30, refused_docs
        for n in range(5):
            r = sign_up(s, emu, f"full{n}@example.com")
            if r.status_code == 200:
                acked_users.append(f"full{n}@example.com")
                continue
            assert_unavailable(r)
            assert sign_in(s, emu, f"full{n}@example.com").status_code == 400
        commit = s.post(f"{emu.url}/v1/projects/{emu.project}/databases/(default)/documents:commit", headers=OWNER, timeout=10,
                        json={"writes": [{"update": {"name": f"projects/{emu.project}/databases/(default)/documents/full/commit",
                                                     "fields": {}}}]})
        assert_unavailable(commit)

        os.remove(filler)  # space is back: writes are acknowledged again
        for i in range(55):
            assert put(s, emu, f"after/d{i}", i).status_code == 200
            acked_docs.append(f"after/d{i}")
        for n in range(5):
            assert sign_up(s, emu, f"after{n}@example.com").status_code == 200
            acked_users.append(f"after{n}@example.com")
    finally:
        emu.proc.send_signal(signal.SIGKILL)
        emu.proc.wait(10)

    again = RunningEmulator(["--data-dir", str(data)])
    try:
        missing = [d for d in acked_docs if s.get(doc_url(again, d), headers=OWNER, timeout=5).status_code != 200]
        assert missing == [], f"{len(missing)} of {len(acked_docs)} acknowledged writes lost: {missing[:5]}"
        back = [d for d in refused_docs if s.get(doc_url(again, d), headers=OWNER, timeout=5).status_code != 404]
        assert back == [], f"refused writes came back: {back}"
        lost_users = [u for u in acked_users if sign_in(s, again, u).status_code != 200]
        assert lost_users == [], lost_users
        print(f"disk full: {len(acked_docs)} documents and {len(acked_users)} users acknowledged, all back after kill -9; "
              f"{len(refused_docs)} document writes refused, none back")
    finally:
        again.stop()


def records(blob):
    """(offset, length) of each `[u32 length][u32 crc][payload]` record."""
    out, i = [], 0
    while i + 8 <= len(blob):
        n = struct.unpack_from("<I", blob, i)[0]
        out.append((i, n))
        i += 8 + n
    return out


def test_corruption_in_the_middle_refuses_start_and_repair_recovers(tmp_path):
    data = tmp_path / "data"
    emu = RunningEmulator(["--data-dir", str(data)])
    s = requests.Session()
    for i in range(10):
        assert put(s, emu, f"c/d{i}", i).status_code == 200
    emu.proc.send_signal(signal.SIGKILL)
    emu.proc.wait(10)

    journal = sorted(p for p in os.listdir(data) if p.startswith("journal-"))[-1]
    blob = bytearray((data / journal).read_bytes())
    recs = records(bytes(blob))
    assert len(recs) == 10
    offset = recs[5][0]
    blob[offset + 8 + 3] ^= 0xFF  # one flipped bit in record 6 of 10: a damaged sector, not a torn tail
    (data / journal).write_bytes(bytes(blob))

    p = subprocess.run([BINARY, "start", "--port", "0", "--project", "demo-test", "--data-dir", str(data)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert journal in p.stderr and f"offset {offset}" in p.stderr and f"emulator repair --data-dir {data}" in p.stderr, p.stderr

    r = subprocess.run([BINARY, "repair", "--data-dir", str(data)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    saved = f"{journal}.damaged-{offset}"
    assert saved in r.stdout and "5 intact records" in r.stdout, r.stdout
    assert (data / saved).read_bytes() == bytes(blob[offset:])
    assert (data / journal).read_bytes() == bytes(blob[:offset])

    again = RunningEmulator(["--data-dir", str(data)])
    try:
        present = [i for i in range(10) if s.get(doc_url(again, f"c/d{i}"), headers=OWNER, timeout=5).status_code == 200]
        assert present == [0, 1, 2, 3, 4]
        assert put(s, again, "c/new", 1).status_code == 200
    finally:
        again.stop()
    # A second repair finds nothing to do.
    r = subprocess.run([BINARY, "repair", "--data-dir", str(data)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "nothing to repair" in r.stdout, r.stdout + r.stderr


def test_torn_tail_in_an_earlier_journal_is_corruption_too(tmp_path):
    """Only the newest journal can end in a torn record (a crash mid-append); an older one that does
    was damaged after it was closed, so later journals must not be replayed past it silently."""
    data = tmp_path / "data"
    emu = RunningEmulator(["--data-dir", str(data)])
    s = requests.Session()
    assert put(s, emu, "c/first", 1).status_code == 200
    emu.stop()
    first = sorted(p for p in os.listdir(data) if p.startswith("journal-"))[-1]
    emu = RunningEmulator(["--data-dir", str(data)])
    assert put(s, emu, "c/second", 2).status_code == 200
    emu.stop()
    with open(data / first, "ab") as f:
        f.write(b"\x40\x00\x00\x00garbage")
    p = subprocess.run([BINARY, "start", "--port", "0", "--project", "demo-test", "--data-dir", str(data)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and first in p.stderr and "emulator repair" in p.stderr, p.stderr
