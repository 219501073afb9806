"""Differential check of Tests/EmulatorRulesTests/Conformance/regex.json against Google's
Firestore emulator, whose rules engine uses RE2/J (RE2's Java port). Not a pytest test (it needs
Java and the Google emulator); run it by hand after changing the table:

    python3 Tests/python/rules/regex_oracle.py                 # starts the Google emulator
    python3 Tests/python/rules/regex_oracle.py --host 127.0.0.1:8080   # one already running

Every row is checked: `matches` rows with `s.matches(p) == true` / `== false`, `replace` and
`split` rows with an equality against the expected value, refused rows by loading a ruleset
with the pattern as a literal (the Google emulator refuses it at load, as we do). Rows with a
`note` are known differences (we keep RE2's behaviour on Unicode scalars; the Java engine steps
over UTF-16 units) and must still differ. Exits 1 on any other disagreement.
"""

import argparse
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

TABLE = pathlib.Path(__file__).resolve().parents[2] / "EmulatorRulesTests" / "Conformance" / "regex.json"


def literal(s):
    """A rules string literal for s."""
    out = "'"
    for ch in s:
        o = ord(ch)
        if ch == "\\":
            out += "\\\\"
        elif ch == "'":
            out += "\\'"
        elif ch == "\n":
            out += "\\n"
        elif ch == "\t":
            out += "\\t"
        elif ch == "\r":
            out += "\\r"
        elif o < 0x20 or 0x7F <= o < 0xA0 or ch in "\u200b\u2028\u2029\u00a0\u2126\u212a":
            out += "\\u%04x" % o
        else:
            out += ch
    return out + "'"


def value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return literal(v)
    return "[" + ", ".join(value(x) for x in v) + "]"


def ruleset(conditions):
    lines = ["rules_version = '2';", "service cloud.firestore {", "  match /databases/{database}/documents {"]
    lines += [f"    match /c{i}/{{d}} {{ allow read: if {c}; }}" for i, c in enumerate(conditions)]
    return "\n".join(lines + ["  }", "}"])


class Emulator:
    def __init__(self, host):
        self.base = f"http://{host}"

    def put_rules(self, source):
        body = json.dumps({"rules": {"files": [{"name": "firestore.rules", "content": source}]}}).encode()
        req = urllib.request.Request(f"{self.base}/emulator/v1/projects/oracle:securityRules", data=body, method="PUT",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def allowed(self, i):
        try:
            with urllib.request.urlopen(f"{self.base}/v1/projects/oracle/databases/(default)/documents/c{i}/x"):
                return True
        except urllib.error.HTTPError as e:
            return e.code == 404


def start_emulator():
    binary = os.environ.get("FIRESTORE_EMULATOR_BIN")
    if not binary:
        gcloud = shutil.which("gcloud")
        roots = [pathlib.Path(gcloud).resolve().parents[1]] if gcloud else []
        roots.append(pathlib.Path("/usr/lib/google-cloud-sdk"))
        for root in roots:
            candidate = root / "platform" / "cloud-firestore-emulator" / "cloud_firestore_emulator"
            if candidate.exists():
                binary = str(candidate)
                break
    if not binary:
        sys.exit("Google's Firestore emulator not found (set FIRESTORE_EMULATOR_BIN)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rules = tempfile.NamedTemporaryFile("w", suffix=".rules", delete=False)
    rules.write(ruleset([]))
    rules.close()
    proc = subprocess.Popen([binary, "start", f"--host=127.0.0.1", f"--port={port}", f"--rules={rules.name}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    emulator = Emulator(f"127.0.0.1:{port}")
    for _ in range(120):
        try:
            urllib.request.urlopen(emulator.base + "/", timeout=1)
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            time.sleep(0.5)
    return proc, emulator


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", help="host:port of a running Google Firestore emulator")
    args = ap.parse_args()
    proc = None
    if args.host:
        emulator = Emulator(args.host)
    else:
        proc, emulator = start_emulator()
    try:
        rows = json.loads(TABLE.read_text())
        checks = []  # (row, condition that must hold)
        for r in rows:
            if "refused" in r:
                continue
            s, p = literal(r["input"]), literal(r["pattern"])
            if "matches" in r:
                checks.append((r, f"{s}.matches({p}) == {value(r['matches'])}"))
            elif "replace" in r:
                checks.append((r, f"{s}.replace({p}, {literal(r['replace'])}) == {value(r['result'])}"))
            else:
                checks.append((r, f"{s}.split({p}) == {value(r['split'])}"))
        if emulator.put_rules(ruleset([c for _, c in checks])) != 200:
            sys.exit("the Google emulator refused the ruleset of checks")
        agree, differ, known = 0, [], 0
        for i, (r, c) in enumerate(checks):
            holds = emulator.allowed(i)
            if "note" in r:
                known += 1
                if holds:
                    differ.append(f"known difference no longer differs: {c}")
            elif holds:
                agree += 1
            else:
                differ.append(c)
        for r in rows:
            if "refused" not in r:
                continue
            refused = emulator.put_rules(ruleset([f"'x'.matches({literal(r['pattern'])})"])) == 400
            if refused == r["refused"]:
                agree += 1
            else:
                differ.append(f"pattern {r['pattern']!r}: the Google emulator {'refuses' if refused else 'accepts'} it")
        print(f"{agree} rows agree with the Google emulator, {known} known differences")
        for d in differ:
            print("DIFFERS:", d)
        return 1 if differ else 0
    finally:
        if proc:
            os.killpg(proc.pid, 15)


if __name__ == "__main__":
    sys.exit(main())
