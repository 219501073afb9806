"""The pytest plugin's costs (testing/python, pytest-firebase-emulator):

1. Per-test overhead of the fresh-project fixture: setup + teardown of ``firebase_project``
   (register a project with its API key, then remove it) for 1,000 empty tests, against the same
   tests using only the session fixture. Measured from pytest's own phase durations.
2. Wall time of a 1,000-test suite (each test writes a document with google-cloud-firestore and
   reads it back) with a fresh project per test under ``-n 2``, against the same suite resetting one
   shared project between tests (``--firebase-isolation=reset``, serial: one shared project cannot
   be used by two workers), plus the other two combinations.

Prints markdown table rows. Needs the plugin and pytest-xdist installed in this Python.

    EMULATOR_BIN=.build/release/emulator .venv/bin/python bench/pytest_kit.py
"""
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

N = int(os.environ.get("TESTS", "1000"))
BIN = os.environ.get("EMULATOR_BIN", ".build/release/emulator")

RECORDER = '''
import json, os
def pytest_runtest_logreport(report):
    with open(os.environ["PHASES"], "a") as f:
        f.write(json.dumps([report.nodeid, report.when, report.duration]) + "\\n")
'''
EMPTY = f'''
import pytest
@pytest.mark.parametrize("n", range({N}))
def test_fresh(firebase_project, n):
    pass
@pytest.mark.parametrize("n", range({N}))
def test_baseline(firebase_emulator, n):
    pass
'''
SUITE = f'''
import pytest
@pytest.mark.parametrize("n", range({N}))
def test_write_read(firebase_project, n):
    ref = firebase_project.firestore.document("tasks/t1")
    assert not ref.get().exists
    ref.set({{"n": n}})
    assert ref.get().to_dict() == {{"n": n}}
'''
QUIET = ["-p", "no:cacheprovider", "-p", "no:schemathesis", "-p", "no:hypothesispytest", "-p", "no:benchmark", "-p", "no:anyio", "-q"]


def run(tmp, files, *args, env=None):
    d = pathlib.Path(tempfile.mkdtemp(dir=tmp))
    for name, text in files.items():
        (d / name).write_text(text)
    e = {k: v for k, v in os.environ.items() if not k.startswith(("FIREBASE_", "FIRESTORE_", "PYTEST_"))}
    e["FIREBASE_EMULATOR_BIN"] = os.path.abspath(BIN)
    e.update(env or {})
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "pytest", *QUIET, *args], cwd=d, env=e, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"pytest failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return wall


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def status_round_trip(gap=0.0):
    """p50 of a status request from this Python (the plugin's keep-alive client): the floor of a
    fixture that makes one request. With ``gap`` seconds of client work before each request the
    server's thread has gone idle and must be woken, which is what a test between two fixtures
    looks like; on a machine whose cores are busy with other work that wake-up dominates."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "testing" / "python" / "src"))
    from pytest_firebase_emulator.emulator import FirebaseEmulator
    emu = FirebaseEmulator.start(os.path.abspath(BIN), log_level="debug")
    try:
        xs = []
        for _ in range(1000 if not gap else 300):
            end = time.perf_counter() + gap
            while time.perf_counter() < end:
                pass
            t = time.perf_counter()
            emu.control.get("/emulator/v1/status")
            xs.append((time.perf_counter() - t) * 1000)
        return pct(xs, 0.5)
    finally:
        emu.stop()


def main():
    print(f"| status round trip from the plugin's client, back to back, p50 | {status_round_trip():.2f} ms | |")
    print(f"| the same after 3 ms of client work each (the server's thread idle, woken per request), p50 | {status_round_trip(0.003):.2f} ms | |")
    with tempfile.TemporaryDirectory() as tmp:
        phases = pathlib.Path(tmp) / "phases.jsonl"
        run(tmp, {"conftest.py": RECORDER, "test_empty.py": EMPTY}, "-p", "no:xdist", env={"PHASES": str(phases)})
        per = {}
        for line in phases.read_text().splitlines():
            nodeid, when, dur = json.loads(line)
            if when in ("setup", "teardown"):
                per[nodeid] = per.get(nodeid, 0.0) + dur * 1000
        fresh = [v for k, v in per.items() if "test_fresh[" in k][1:]  # the first test's setup starts the emulator
        base = [v for k, v in per.items() if "test_baseline[" in k]
        print(f"| fresh-project fixture: setup + teardown per test, p50 ({len(fresh)} empty tests) | {pct(fresh, 0.5):.2f} ms (p90 {pct(fresh, 0.9):.2f} ms) | < 2 ms p50 |")
        print(f"| the same tests with only the session fixture (pytest's own per-test cost), p50 | {pct(base, 0.5):.2f} ms | |")
        print(f"| fresh-project overhead over that baseline, p50 | {pct(fresh, 0.5) - pct(base, 0.5):.2f} ms | |")
        rows = [("fresh project per test, `-n 2`", ["-n", "2"]),
                ("one shared project reset between tests, serial", ["-p", "no:xdist", "--firebase-isolation=reset"]),
                ("fresh project per test, serial", ["-p", "no:xdist"]),
                ("a shared project per worker reset between tests, `-n 2`", ["-n", "2", "--firebase-isolation=reset"])]
        for label, args in rows:
            wall = run(tmp, {"test_suite.py": SUITE}, *args)
            print(f"| {N:,}-test suite (write + read with google-cloud-firestore), {label}: wall time | {wall:.1f} s | |")


if __name__ == "__main__":
    main()
