"""The plugin as users run it: sample suites in a temporary directory, in a subprocess, with and
without pytest-xdist, with and without `emulator exec`; pass/fail counts and isolation."""
import json

import pytest

SAMPLE = ["test_features.py", "test_isolation.py", "test_rules_user.py"]
PASSING = 11 + 2 + 1  # test_features.py has 12 tests, one failing on purpose; test_isolation.py 2; test_rules_user.py 1
RULES = ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{db}/documents {\n"
         "    match /counters/{id} { allow read, write: if request.auth != null; }\n"
         "    match /never/{id} { allow read: if request.auth.uid == 'x'; }\n  }\n}\n")


@pytest.mark.parametrize("exec_", [False, True], ids=["started", "exec"])
@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "n2"])
def test_sample_suite(run_suite, exec_, xdist):
    many = xdist and not exec_  # the 200-test suite once, with two workers
    files = SAMPLE + (["test_many.py"] if many else [])
    run = run_suite(files, *(["-n", "2"] if xdist else []), exec_=exec_)
    assert run.count("failed") == 1, run.output[-3000:]
    assert run.outcomes.get("test_features::test_fails_on_purpose") == "failed"
    assert run.count("passed") == PASSING + (200 if many else 0), run.output[-3000:]
    assert run.count("error") == 0 and run.returncode == 1
    # Every worker used one emulator: the controller's under xdist, exec's under exec.
    hosts = {h.split("\n")[0] for h in run.hosts()}
    assert len(hosts) == 1, hosts
    if exec_:
        assert all(h.split("\n")[1] in hosts for h in run.hosts())  # FIREBASE_EMULATOR_HUB's emulator
    # The failing test's report shows what the emulator logged meanwhile, when the plugin started it.
    if exec_:
        assert "firebase emulator log" not in run.output
    else:
        section = run.output.split("firebase emulator log", 1)[-1]
        assert "firebase emulator log" in run.output and "Firestore/Commit 0" in section and "POST /emulator/v1/projects 200" in section, run.output[-3000:]


def test_two_tests_write_the_same_path_at_once(run_suite):
    run = run_suite(["test_isolation.py"], "-n", "2", env={"RENDEZVOUS_WAIT": "1"})
    assert run.returncode == 0 and run.count("passed") == 2, run.output[-3000:]
    met = {p.name: p.read_text() for p in run.rendezvous.glob("met-*")}
    assert set(met) == {"met-a", "met-b"} and met["met-a"] != met["met-b"], met  # concurrently, on two workers


def test_reset_isolation_mode(run_suite):
    run = run_suite(["test_isolation.py", "test_rules_user.py"], "--firebase-isolation=reset")
    assert run.returncode == 0 and run.count("passed") == 3, run.output[-3000:]


def test_rules_coverage_report(run_suite, tmp_path):
    rules = tmp_path / "firestore.rules"
    rules.write_text(RULES)
    run = run_suite(["test_rules_user.py"], "--firebase-rules-coverage", ini=f"[pytest]\nfirebase_emulator_args = --rules {rules}\n")
    assert run.returncode == 0, run.output[-3000:]
    assert "firebase rules coverage" in run.output
    # The user's write evaluated line 4's condition (4 expressions); line 5's never ran.
    assert "firestore.rules: 4 of 9 expressions evaluated" in run.output, run.output[-2000:]
    assert "never evaluated  5:40  request.auth.uid == 'x'" in run.output
    assert "never evaluated  4:" not in run.output


def test_storage_client_per_project(run_suite):
    run = run_suite(["test_storage_user.py"], "-n", "2")
    assert run.returncode == 0 and run.count("passed") == 2, run.output[-3000:]


def test_suggested_indexes_report(run_suite, tmp_path):
    """Each test's project is removed after it; its missing indexes are collected first, merged
    across xdist workers, printed and written as a firestore.indexes.json."""
    out = tmp_path / "suggested.json"
    run = run_suite(["test_queries_needing_indexes.py"], "-n", "2", f"--firebase-suggested-indexes={out}")
    assert run.returncode == 0, run.output[-3000:]
    assert "firebase suggested indexes" in run.output and "2 index(es)" in run.output, run.output[-2000:]
    written = json.loads(out.read_text())
    shapes = sorted((i["collectionGroup"], [(f["fieldPath"], f.get("order") or f.get("arrayConfig")) for f in i["fields"]])
                    for i in written["indexes"])
    name = ("__name__", "ASCENDING")  # written out, as the console's create links do
    assert shapes == [("notes", [("tags", "CONTAINS"), ("size", "ASCENDING"), name]),
                      ("tasks", [("owner", "ASCENDING"), ("due", "ASCENDING"), name])], written


def test_missing_binary_is_explained(run_suite):
    run = run_suite(["test_rules_user.py"], env={"FIREBASE_EMULATOR_BIN": "/nonexistent/emulator"})
    assert run.returncode == 1
    assert "the configured emulator binary '/nonexistent/emulator' does not exist" in run.output
