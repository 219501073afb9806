"""The committed Pub/Sub descriptors (EmulatorProtobuf's pin for PubSubSchemas) still match the
installed google-cloud-pubsub; see Tests/python/firestore_grpc/test_descriptors_current.py."""
import json
import pathlib
import subprocess
import sys

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "EmulatorProtobufTests" / "Fixtures"


def test_committed_pubsub_descriptors_match_the_installed_client():
    out = subprocess.run([sys.executable, str(FIXTURES / "dump_pubsub_descriptors.py")], check=True, capture_output=True, text=True,
                         cwd=FIXTURES).stdout
    current = json.loads(out)
    committed = json.loads((FIXTURES / "pubsub_descriptors.json").read_text())
    assert current == committed, (
        "the installed google-cloud-pubsub's protos differ from Tests/EmulatorProtobufTests/Fixtures/pubsub_descriptors.json: "
        "regenerate it with dump_pubsub_descriptors.py, then make_pubsub_schemas.py, and rerun PubSubSchemaTests")
    names = {(m["service"], m["name"]) for m in current["methods"]}
    assert ("google.pubsub.v1.Subscriber", "StreamingPull") in names and ("google.pubsub.v1.Publisher", "Publish") in names
