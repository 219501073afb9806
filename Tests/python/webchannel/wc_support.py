"""Helpers and fixtures of the WebChannel suite, imported by its test modules: an emulator with
short WebChannel timings (so keep-alives, long-poll ends and reaping happen in seconds), channel
factories and message builders."""
import json
import uuid

import pytest
import requests

from conftest import RunningEmulator
from webchannel.wc_client import Channel

# Short timings for the tests: a noop after 0.5 s of silence, long polls end after 1 s, a session
# without client is reaped after 1.5 s, waiting data no backchannel takes drops it after 2 s.
FAST = {"firestore": {"webChannel": {"keepAliveSeconds": 0.5, "longPollSeconds": 1, "sessionTimeoutSeconds": 1.5,
                                     "stallTimeoutSeconds": 2}}}


@pytest.fixture(scope="session")
def fast(tmp_path_factory):
    cfg = tmp_path_factory.mktemp("webchannel") / "emulator.json"
    cfg.write_text(json.dumps(FAST))
    emu = RunningEmulator(["--config", str(cfg)])
    yield emu
    emu.stop()


@pytest.fixture
def coll():
    return "wc-" + uuid.uuid4().hex[:8]


def channel(emu, rpc, **kw):
    return Channel(emu.host, emu.port, rpc, emu.project, **kw)


def db_name(emu):
    return f"projects/{emu.project}/databases/(default)"


def doc_name(emu, path):
    return f"{db_name(emu)}/documents/{path}"


def rest_docs(emu, project=None):
    return f"{emu.url}/v1/projects/{project or emu.project}/databases/(default)/documents"


def put_doc(emu, path, fields, project=None, token="owner"):
    body = {"fields": {k: ({"integerValue": str(v)} if isinstance(v, int) else {"stringValue": v}) for k, v in fields.items()}}
    r = requests.patch(f"{rest_docs(emu, project)}/{path}", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def query_target(emu, collection, target_id=2, **extra):
    t = {"query": {"parent": f"{db_name(emu)}/documents", "structuredQuery": {"from": [{"collectionId": collection}]}}, "targetId": target_id}
    t.update(extra)
    return {"database": db_name(emu), "addTarget": t}


def doc_target(emu, path, target_id=2, **extra):
    t = {"documents": {"documents": [doc_name(emu, path)]}, "targetId": target_id}
    t.update(extra)
    return {"database": db_name(emu), "addTarget": t}
