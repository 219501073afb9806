"""Storage triggers written with the official SDK (firebase-functions from PyPI): each records the
event it received in Firestore so the test can count deliveries and read what they carried."""
from firebase_admin import firestore, initialize_app
from firebase_functions import storage_fn

initialize_app()


def record(kind: str, event: storage_fn.CloudEvent[storage_fn.StorageObjectData]) -> None:
    d = event.data
    firestore.client().collection("storage_events").add({
        "kind": kind, "type": event.type, "id": event.id, "source": event.source, "subject": event.subject,
        "bucket": d.bucket, "name": d.name, "size": d.size, "contentType": d.content_type,
        "metadata": d.metadata or {}, "metageneration": d.metageneration, "generation": d.generation,
    })


@storage_fn.on_object_finalized()
def on_finalized(event: storage_fn.CloudEvent[storage_fn.StorageObjectData]) -> None:
    record("finalized", event)


@storage_fn.on_object_metadata_updated()
def on_metadata(event: storage_fn.CloudEvent[storage_fn.StorageObjectData]) -> None:
    record("metadataUpdated", event)


@storage_fn.on_object_deleted()
def on_deleted(event: storage_fn.CloudEvent[storage_fn.StorageObjectData]) -> None:
    record("deleted", event)


@storage_fn.on_object_finalized(bucket="other-bucket-for-triggers")
def on_other_bucket(event: storage_fn.CloudEvent[storage_fn.StorageObjectData]) -> None:
    record("other", event)
