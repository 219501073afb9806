"""Rules string functions on long, hostile strings: the time of one document create whose rule
runs `matches`, `split`, `replace` or `lower` on a field, against the emulator over REST (one
client, loopback). The first row is the pattern a backtracking engine takes minutes on; the
last rows run out of the request's cost limit and are denied (docs/rules.md, "Cost limit").

    EMULATOR_BIN=.build/release/emulator python3 bench/rules_regex.py
"""
import os
import sys
import tempfile
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "python"))
from conftest import RunningEmulator  # noqa: E402

RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /redos/{d} { allow create: if request.resource.data.s.matches('(a+)+$'); }
    match /matches/{d} { allow create: if request.resource.data.s.matches('[a-z,]*'); }
    match /split/{d} { allow create: if request.resource.data.s.split(',').size() > 0; }
    match /replace/{d} { allow create: if request.resource.data.s.replace(',', ';').size() > 0; }
    match /lower/{d} { allow create: if request.resource.data.s.lower().size() > 0; }
    match /threads/{d} { allow create: if request.resource.data.s.matches('x*x*x*x*x*x*x*x*x*x*y'); }
    match /grow/{d} { allow create: if request.resource.data.s.replace('', 'xxxxxxxxxx').size() > 0; }
  }
}
"""

CSV = "abcdefgh," * 100_000  # 900,000 characters

CASES = [
    ("redos", "a" * 21 + "!", "`matches('(a+)+$')`, 21 a's and `!`"),
    ("redos", "a" * 100_000 + "!", "`matches('(a+)+$')`, 100,000 a's and `!`"),
    ("matches", CSV, "`matches('[a-z,]*')`, 900,000 characters"),
    ("split", CSV, "`split(',')`, 900,000 characters"),
    ("replace", CSV, "`replace(',', ';')`, 900,000 characters"),
    ("lower", CSV.upper(), "`lower()`, 900,000 characters"),
    ("threads", "x" * 900_000, "`matches('x*x*...x*y')` (10 stars), 900,000 x's: over the limit"),
    ("grow", CSV, "`replace('', 'xxxxxxxxxx')`, 900,000 characters: over the limit"),
]


def main():
    d = tempfile.mkdtemp()
    rules = os.path.join(d, "firestore.rules")
    with open(rules, "w") as f:
        f.write(RULES)
    emu = RunningEmulator(["--rules", rules], project="bench")
    s = requests.Session()
    base = f"{emu.url}/v1/projects/bench/databases/(default)/documents"
    try:
        print("| rule, input | time | answer |")
        print("|---|---:|---|")
        for i, (coll, value, label) in enumerate(CASES):
            t0 = time.perf_counter()
            r = s.post(f"{base}/{coll}?documentId=d{i}", json={"fields": {"s": {"stringValue": value}}}, timeout=600)
            ms = (time.perf_counter() - t0) * 1000
            answer = "allowed" if r.status_code == 200 else f"{r.status_code}" + (" (cost limit)" if "cost limit" in r.text else "")
            print(f"| {label} | {ms:,.0f} ms | {answer} |")
    finally:
        emu.stop()


if __name__ == "__main__":
    main()
