"""The committed protobuf descriptors (EmulatorProtobuf's pin) still match the installed clients.

Tests/EmulatorProtobufTests/Fixtures/descriptors.json is what ProtobufSchemaTests compares the
hand-written Swift schemas with. It was dumped from google-cloud-firestore and google-events;
this test dumps again from the versions installed now and fails when anything differs, so a
client upgrade that adds, renumbers or retypes a field is caught (then: regenerate the file with
dump_descriptors.py, update the Swift schema, and let ProtobufSchemaTests confirm).
"""
import json
import pathlib
import subprocess
import sys

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "EmulatorProtobufTests" / "Fixtures"


def dump():
    out = subprocess.run(
        [sys.executable, str(FIXTURES / "dump_descriptors.py")], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out)


def describe_differences(committed, current, path=""):
    """Human-readable differences between two dumps (message and field level)."""
    lines = []
    if isinstance(committed, list) and isinstance(current, list) and all(isinstance(x, dict) and "number" in x for x in committed + current):
        # Fields and enum values: compare by number, so one change reads as one line.
        committed = {f"#{x['number']}": x for x in committed}
        current = {f"#{x['number']}": x for x in current}
    if isinstance(committed, dict) and isinstance(current, dict):
        for key in sorted(set(committed) | set(current)):
            where = f"{path}.{key}" if path else key
            if key not in current:
                lines.append(f"removed: {where}")
            elif key not in committed:
                lines.append(f"added: {where} = {json.dumps(current[key])[:200]}")
            else:
                lines += describe_differences(committed[key], current[key], where)
    elif committed != current:
        lines.append(f"changed: {path}: {json.dumps(committed)[:200]} -> {json.dumps(current)[:200]}")
    return lines


def test_committed_descriptors_match_installed_clients():
    committed = json.loads((FIXTURES / "descriptors.json").read_text())
    current = dump()
    differences = describe_differences(committed, current)
    assert not differences, (
        "the installed google-cloud-firestore / google-events protos differ from "
        "Tests/EmulatorProtobufTests/Fixtures/descriptors.json:\n  " + "\n  ".join(differences[:50])
    )


def test_dump_covers_every_rpc_and_the_event_payload():
    current = dump()
    names = {m["name"] for m in current["methods"]}
    assert {"GetDocument", "BatchGetDocuments", "Commit", "RunQuery", "RunAggregationQuery", "Listen", "Write",
            "BatchWrite", "ListCollectionIds", "PartitionQuery", "BeginTransaction", "Rollback"} <= names
    assert "google.events.cloud.firestore.v1.DocumentEventData" in current["messages"]
    value = {f["number"]: f["name"] for f in current["messages"]["google.firestore.v1.Value"]["fields"]}
    assert value[11] == "null_value" and value[2] == "integer_value" and value[6] == "map_value"
