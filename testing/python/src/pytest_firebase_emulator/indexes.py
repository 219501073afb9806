"""The composite indexes a test session's queries need (``--firebase-suggested-indexes``).

Every fresh project is removed after its test, and its suggestions with it, so each project's
missing indexes (``GET .../indexes:suggested?missingOnly=true``) are collected just before its
removal, on the removal thread, off the test's critical path. xdist workers hand theirs to the
controller through ``workeroutput``; the controller merges them into one ``firestore.indexes.json``.
"""
from __future__ import annotations

import json
import threading

import pytest

__all__ = ["IndexCollector", "merge_index_files", "INDEX_COLLECTOR_KEY", "WORKER_OUTPUT"]

INDEX_COLLECTOR_KEY = pytest.StashKey["IndexCollector"]()
WORKER_OUTPUT = "firebase_suggested_indexes"


def _key(entry):
    return json.dumps(entry, sort_keys=True, separators=(",", ":"))


def merge_index_files(files):
    """One ``{"indexes", "fieldOverrides"}`` from many: indexes de-duplicated, field overrides keyed
    by (collectionGroup, fieldPath) with their index lists united."""
    indexes, overrides = {}, {}
    for f in files:
        for index in f.get("indexes", []):
            indexes.setdefault(_key(index), index)
        for o in f.get("fieldOverrides", []):
            k = (o.get("collectionGroup"), o.get("fieldPath"))
            merged = overrides.setdefault(k, {**o, "indexes": []})
            seen = {_key(i) for i in merged["indexes"]}
            for i in o.get("indexes", []):
                if _key(i) not in seen:
                    merged["indexes"].append(i)
                    seen.add(_key(i))
    return {"indexes": [indexes[k] for k in sorted(indexes)],
            "fieldOverrides": [overrides[k] for k in sorted(overrides, key=lambda k: (str(k[0]), str(k[1])))]}


class IndexCollector:
    """Gathers the missing indexes of the session's projects (thread-safe: the removal thread adds)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._files = []
        self.errors = []

    def collect(self, control, project_id, database="(default)"):
        """Asks the emulator for ``project_id``'s missing indexes; a failure is kept, never raised."""
        try:
            found = control.get(f"/emulator/v1/projects/{project_id}/databases/{database}/indexes:suggested?missingOnly=true")
        except Exception as e:  # an emulator without the route, or a project already gone
            with self._lock:
                self.errors.append(f"{project_id}: {e}")
            return
        if found.get("indexes") or found.get("fieldOverrides"):
            with self._lock:
                self._files.append(found)

    def add(self, merged):
        """Adds a file another process collected (an xdist worker's)."""
        with self._lock:
            self._files.append(merged)

    def merged(self):
        """Everything collected so far, as one index file."""
        with self._lock:
            return merge_index_files(self._files)
