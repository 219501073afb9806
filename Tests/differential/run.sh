#!/usr/bin/env bash
# Differential run against Google's Firestore emulator (see harness.py). Uses the worktree's
# .venv when present (google-cloud-firestore from Tests/python/requirements.txt) and
# EMULATOR_BIN (default .build/debug/emulator).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
[ -x "$PY" ] || PY=python3
exec "$PY" "$ROOT/Tests/differential/harness.py" "$@"
