#!/usr/bin/env python3
"""Dumps the protobuf descriptors our hand-written schemas must match (EmulatorProtobuf).

Roots: the request and response messages of every google.firestore.v1.Firestore RPC, found the
way the installed client calls them (the GAPIC gRPC transport's stubs, with a recording channel),
plus google.events.cloud.firestore.v1.DocumentEventData from the google-events package (what
firebase-functions decodes CloudEvent bodies with) and the well-known types of google.protobuf's
any, duration, empty, struct, timestamp and wrappers files. Every message and enum reachable from
the roots through fields is written, map entries included.

    python dump_descriptors.py > descriptors.json       # from the repo's .venv

ProtobufSchemaTests compares every message and field of the Swift schema with this file;
Tests/python/firestore_grpc/test_descriptors_current.py regenerates it from the installed packages and
fails when it no longer matches the committed copy (a client upgrade that changed the protos).
"""
import json
import sys

import grpc
from google.cloud.firestore_v1.services.firestore.transports.grpc import FirestoreGrpcTransport
from google.events.cloud.firestore_v1.types import data as events_data
from google.protobuf import any_pb2, descriptor as pb_descriptor, duration_pb2, empty_pb2, struct_pb2
from google.protobuf import timestamp_pb2, wrappers_pb2

SERVICE_PREFIX = "/google.firestore.v1.Firestore/"

# RPCs whose messages the emulator deliberately does not carry (FirestoreSchemas.omittedMethods):
# ExecutePipeline is the enterprise edition's pipeline API.
OMITTED_METHODS = {"ExecutePipeline"}

TYPE_NAMES = {
    value: name[len("TYPE_"):].lower()
    for name, value in vars(pb_descriptor.FieldDescriptor).items()
    if name.startswith("TYPE_")
}


def label_of(field):
    """"repeated" or "optional" (proto3 has no required); protobuf 6+ dropped `label`."""
    repeated = field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED
    return "repeated" if repeated else "optional"


def descriptor_of(callable_):
    """The message descriptor behind a stub's serializer or deserializer."""
    owner = getattr(callable_, "__self__", None)
    if hasattr(owner, "pb"):  # proto-plus class
        return owner.pb().DESCRIPTOR
    return owner.DESCRIPTOR


def service_methods():
    """(name, request, response, client_streaming, server_streaming) of every Firestore RPC."""
    transport = FirestoreGrpcTransport(channel=grpc.insecure_channel("localhost:1"))
    calls = []

    class RecordingChannel:
        def __getattr__(self, kind):
            def stub(path, request_serializer=None, response_deserializer=None, **_):
                calls.append((kind, path, request_serializer, response_deserializer))

            return stub

    # The transport builds its stubs lazily, one per property, through this channel.
    transport._logged_channel = RecordingChannel()
    transport._stubs = {}
    for name in dir(type(transport)):
        if isinstance(getattr(type(transport), name, None), property):
            try:
                getattr(transport, name)
            except Exception:  # properties that are not stubs (kind, host, ...)
                pass
    methods = []
    for kind, path, req, resp in calls:
        if not path.startswith(SERVICE_PREFIX):
            continue  # google.longrunning mixins
        methods.append({
            "name": path[len(SERVICE_PREFIX):],
            "request": descriptor_of(req).full_name,
            "response": descriptor_of(resp).full_name,
            "client_streaming": kind.startswith("stream_"),
            "server_streaming": kind.endswith("_stream"),
            "_descriptors": (descriptor_of(req), descriptor_of(resp)),
        })
    return sorted(methods, key=lambda m: m["name"])


def field_entry(field):
    """One field as JSON: what the Swift schema must reproduce."""
    entry = {
        "number": field.number,
        "name": field.name,
        "json_name": field.json_name,
        "type": TYPE_NAMES[field.type],
        "label": label_of(field),
    }
    if field.message_type is not None:
        entry["type_name"] = field.message_type.full_name
    elif field.enum_type is not None:
        entry["type_name"] = field.enum_type.full_name
    oneof = field.containing_oneof
    if oneof is not None:
        # proto3 `optional` fields sit in a synthetic oneof; record it as explicit presence.
        if getattr(field, "has_presence", False) and oneof.name == "_" + field.name and len(oneof.fields) == 1:
            entry["proto3_optional"] = True
        else:
            entry["oneof"] = oneof.name
    return entry


def walk(roots):
    """Every message and enum reachable from the root message descriptors."""
    messages, enums = {}, {}
    stack = list(roots)
    while stack:
        message = stack.pop()
        if message.full_name in messages:
            continue
        entry = {"fields": [field_entry(f) for f in sorted(message.fields, key=lambda f: f.number)]}
        if message.GetOptions().map_entry:
            entry["map_entry"] = True
        messages[message.full_name] = entry
        for field in message.fields:
            if field.message_type is not None:
                stack.append(field.message_type)
            if field.enum_type is not None:
                enum = field.enum_type
                enums[enum.full_name] = [{"name": v.name, "number": v.number} for v in enum.values]
    return messages, enums


def main():
    methods = service_methods()
    roots = []
    for method in methods:
        descriptors = method.pop("_descriptors")
        if method["name"] not in OMITTED_METHODS:
            roots.extend(descriptors)
    roots.append(events_data.DocumentEventData.pb().DESCRIPTOR)
    # Well-known types the codec declares whether or not a Firestore message reaches them (all
    # wrappers, so that every declared schema is pinned).
    for module in (any_pb2, duration_pb2, empty_pb2, struct_pb2, timestamp_pb2, wrappers_pb2):
        roots.extend(module.DESCRIPTOR.message_types_by_name.values())
    messages, enums = walk(roots)
    out = {
        "_comment": "Generated by dump_descriptors.py from the installed google-cloud-firestore and google-events; do not edit.",
        "methods": methods,
        "omitted_methods": sorted(OMITTED_METHODS),
        "messages": dict(sorted(messages.items())),
        "enums": dict(sorted(enums.items())),
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
