"""Runs sample user suites with the installed plugin in a subprocess, as a user would."""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

collect_ignore = ["sample"]  # user suites, run in a subprocess by the tests

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]


@pytest.fixture(scope="session")
def emulator_bin():
    path = os.environ.get("FIREBASE_EMULATOR_BIN") or str(REPO / ".build" / "debug" / "emulator")
    if not os.path.isfile(path):
        pytest.skip(f"no emulator binary at {path} (swift build, or set FIREBASE_EMULATOR_BIN)")
    return path


class Run:
    def __init__(self, proc, junit, rendezvous):
        self.returncode = proc.returncode
        self.output = proc.stdout + proc.stderr
        self.rendezvous = rendezvous
        self.outcomes = {}
        if junit.exists():
            for case in ET.parse(junit).getroot().iter("testcase"):
                kind = "passed"
                for child in case:
                    if child.tag in ("failure", "error"):
                        kind = "failed" if child.tag == "failure" else "error"
                    elif child.tag == "skipped":
                        kind = "skipped"
                self.outcomes[f"{case.get('classname')}::{case.get('name')}"] = kind

    def count(self, kind):
        return sum(1 for v in self.outcomes.values() if v == kind)

    def hosts(self):
        return {p.read_text() for p in self.rendezvous.glob("host-*")}


@pytest.fixture
def run_suite(tmp_path, emulator_bin):
    """run_suite(files, *args, exec_=False, env=None) -> Run: copies sample files into a fresh
    directory and runs pytest there in a subprocess (optionally under `emulator exec`)."""
    def run(files, *args, exec_=False, env=None, ini=None):
        suite = tmp_path / "suite"
        suite.mkdir(exist_ok=True)
        for f in files:
            shutil.copy(HERE / "sample" / f, suite / f)
        if ini:
            (suite / "pytest.ini").write_text(ini)
        rendezvous = tmp_path / "rendezvous"
        rendezvous.mkdir(exist_ok=True)
        junit = tmp_path / "junit.xml"
        e = {k: v for k, v in os.environ.items() if not re.match(r"(FIREBASE_|FIRESTORE_|GCLOUD_PROJECT|GOOGLE_CLOUD_PROJECT|PYTEST_)", k)}
        e.update({"FIREBASE_EMULATOR_BIN": emulator_bin, "RENDEZVOUS_DIR": str(rendezvous)})
        e.update(env or {})
        # Heavy plugins this repository's venv carries for other suites stay out of the user's run.
        quiet = ["-p", "no:schemathesis", "-p", "no:hypothesispytest", "-p", "no:benchmark", "-p", "no:anyio"]
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *quiet, f"--junitxml={junit}", "-o", "junit_family=xunit1", *args]
        if exec_:
            cmd = [emulator_bin, "exec", "--port", "0", "--log-level", "warning", "--", *cmd]
        proc = subprocess.run(cmd, cwd=suite, env=e, capture_output=True, text=True, timeout=300)
        return Run(proc, junit, rendezvous)
    return run
