"""Schemathesis property-based fuzzing of the admin API described by `/emulator/v1/openapi.json`.

Runs against its own emulator (the fuzzer calls `/emulator/v1/reset`, faults and clocks, which must
not disturb the other suites) with a bounded number of examples per operation. Checks: never a 5xx,
except 501 for a method the server does not implement at all (such as TRACE, which schemathesis
sends on purpose; RFC 9110 section 15.6.2 prescribes 501 there), and every error is JSON with a message.
"""
import hypothesis
import pytest
import requests
import schemathesis
from conftest import RunningEmulator

EXAMPLES = 25
CALLS = []  # (method, path, status) of every fuzzed request, so the run can prove it happened
STANDARD_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


@pytest.fixture(scope="module")
def fuzz_emulator():
    emu = RunningEmulator(project="fuzz")
    yield emu
    emu.stop()


@pytest.fixture(scope="module")
def admin_schema(fuzz_emulator):
    spec = requests.get(fuzz_emulator.url + "/emulator/v1/openapi.json", timeout=10).json()
    return schemathesis.openapi.from_dict(spec)


schema = schemathesis.pytest.from_fixture("admin_schema")


@schema.parametrize()
@hypothesis.settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                     suppress_health_check=list(hypothesis.HealthCheck))
def test_admin_api_never_5xx(case, fuzz_emulator):
    response = case.call(base_url=fuzz_emulator.url, timeout=10)
    CALLS.append((case.method, case.path, response.status_code))
    where = f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:200]}"
    unimplemented_method = response.status_code == 501 and case.method.upper() not in STANDARD_METHODS
    assert response.status_code < 500 or unimplemented_method, where
    if response.status_code >= 400 and case.method.upper() != "HEAD":
        assert response.json()["error"]["message"], where
    assert fuzz_emulator.proc.poll() is None


def test_fuzzer_covered_every_operation(admin_schema):
    """Guards against a silently empty run: every documented operation was called several times."""
    operations = {(m.upper(), path) for path, item in admin_schema.raw_schema["paths"].items() for m in item
                  if m.upper() in STANDARD_METHODS}
    called = {(m.upper(), p) for m, p, _ in CALLS}
    assert operations <= called, sorted(operations - called)
    assert len(CALLS) >= 3 * len(operations), len(CALLS)
    print(f"schemathesis sent {len(CALLS)} requests over {len(operations)} operations")
