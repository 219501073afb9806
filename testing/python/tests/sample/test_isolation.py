"""Two tests write the same document path, each in its own project: each must see only its own
value. With RENDEZVOUS_WAIT=1 (a run of this file alone with -n 2, where xdist sends one test to
each worker), each test waits after writing until the other has written too, so both documents
exist at once when each reads, and records that they met."""
import os
import pathlib
import time

import pytest


def meet(me, other):
    d = pathlib.Path(os.environ["RENDEZVOUS_DIR"])
    (d / f"wrote-{me}").touch()
    if os.environ.get("RENDEZVOUS_WAIT") != "1":
        return
    deadline = time.monotonic() + 30
    while not (d / f"wrote-{other}").exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    if (d / f"wrote-{other}").exists():
        (d / f"met-{me}").write_text(os.environ.get("PYTEST_XDIST_WORKER", "main"))


@pytest.mark.parametrize("me,other", [("a", "b"), ("b", "a")])
def test_same_path_two_projects(firebase_project, me, other):
    doc = firebase_project.firestore.document("shared/doc")
    assert not doc.get().exists
    doc.set({"writer": me})
    meet(me, other)
    assert doc.get().to_dict() == {"writer": me}
    assert [d.id for d in firebase_project.firestore.collection("shared").stream()] == ["doc"]
