"""A 10-second run of the soak test (Tests/soak/soakload.py) so CI exercises it."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "soak"))
import soakload  # noqa: E402


def test_short_soak():
    summary = soakload.run(seconds=10, threads=6, projects=3, seed=1)
    assert summary["requests"] > 100
