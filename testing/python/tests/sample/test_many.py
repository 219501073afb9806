"""Two hundred small tests, each in its own project."""
import pytest


@pytest.mark.parametrize("n", range(200))
def test_many(firebase_project, n):
    ref = firebase_project.firestore.document("counters/c")
    assert not ref.get().exists
    ref.set({"n": n})
    assert ref.get().to_dict() == {"n": n}
