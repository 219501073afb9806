"""A functions codebase written with the official SDK (firebase-functions from PyPI), as a Firebase
developer would write it. The emulator's end-to-end tests serve it unchanged."""
import json
import os
import sys
import time

from firebase_admin import auth, firestore, functions as admin_functions, initialize_app
from firebase_functions import firestore_fn, https_fn, identity_fn, options, params, pubsub_fn, scheduler_fn, tasks_fn

initialize_app()

GREETING = params.StringParam("GREETING", default="hello")
MAX_ITEMS = params.IntParam("MAX_ITEMS", default=3)
VERSION = "v1"  # the reload test edits this line

_attempts: dict[str, int] = {}


@https_fn.on_call()
def whoami(req: https_fn.CallableRequest) -> dict:
    data = req.data if isinstance(req.data, dict) else {}
    if data.get("fail") == "https":
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.FAILED_PRECONDITION, "asked to fail", {"why": "test"})
    if data.get("fail") == "exception":
        raise RuntimeError("an uncaught error")
    print(f"whoami called by {req.auth.uid if req.auth else None}")
    print("a line on stderr", file=sys.stderr)
    return {
        "uid": req.auth.uid if req.auth else None,
        "signInProvider": req.auth.token.get("firebase", {}).get("sign_in_provider") if req.auth else None,
        "data": req.data,
        "pid": os.getpid(),
        "version": VERSION,
    }


@https_fn.on_call()
def environment(req: https_fn.CallableRequest) -> dict:
    keys = ["GCLOUD_PROJECT", "FIREBASE_CONFIG", "FUNCTIONS_EMULATOR", "FUNCTION_TARGET", "FUNCTION_SIGNATURE_TYPE", "K_SERVICE",
            "K_REVISION", "FROM_DOTENV", "FROM_LOCAL", "GREETING", "MAX_ITEMS", "TZ", "FIREBASE_AUTH_EMULATOR_HOST",
            "FIRESTORE_EMULATOR_HOST", "CLOUD_TASKS_EMULATOR_HOST", "HOST"]
    out = {k: os.environ.get(k) for k in keys}
    out["portIsSet"] = os.environ.get("PORT", "").isdigit()
    with open(os.environ["GOOGLE_APPLICATION_CREDENTIALS"]) as f:
        out["credentialsType"] = json.load(f)["type"]
    out["greeting"] = GREETING.value
    out["maxItems"] = MAX_ITEMS.value
    if req.auth:
        out["email"] = auth.get_user(req.auth.uid).email
    out["customTokenParts"] = len(auth.create_custom_token("someone").decode().split("."))
    return out


@https_fn.on_call()
def verify_token(req: https_fn.CallableRequest) -> str:
    try:
        return auth.verify_id_token(req.data, check_revoked=True)["uid"]
    except auth.ExpiredIdTokenError as e:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.UNAUTHENTICATED, f"expired: {e}")
    except auth.InvalidIdTokenError as e:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.UNAUTHENTICATED, f"invalid: {e}")


@https_fn.on_call(timeout_sec=2)
def slow(req: https_fn.CallableRequest) -> str:
    time.sleep(float(req.data))
    return "done"


@https_fn.on_call()
def pid(req: https_fn.CallableRequest) -> int:
    time.sleep(0.2)
    return os.getpid()


@https_fn.on_call()
def crash(req: https_fn.CallableRequest) -> None:
    print("about to crash", file=sys.stderr, flush=True)
    os._exit(7)


@https_fn.on_call()
def enqueue(req: https_fn.CallableRequest) -> str:
    # The Python Admin SDK sends the payload as the task's body as is; on_task_dispatched reads
    # {"data": ...} (the Firebase samples wrap it the same way).
    admin_functions.task_queue("work").enqueue({"data": req.data})
    return "queued"


@https_fn.on_call()
def store_roundtrip(req: https_fn.CallableRequest) -> dict:
    db = firestore.client()
    ref = db.collection("roundtrip").document(req.data["id"])
    ref.set({"value": req.data["value"]})
    return ref.get().to_dict()


@https_fn.on_request(region="europe-west1")
def echo(req: https_fn.Request) -> https_fn.Response:
    body = {"method": req.method, "path": req.path, "query": req.query_string.decode(), "body": req.get_data(as_text=True),
            "header": req.headers.get("X-Test"), "invocationHeader": req.headers.get("X-Emulator-Invocation")}
    return https_fn.Response(json.dumps(body), status=201 if req.method == "PUT" else 200, content_type="application/json",
                             headers={"X-Echo": "yes"})


@https_fn.on_request(region=["us-east1", "asia-northeast1"])
def regional(req: https_fn.Request) -> str:
    return "regional ok"


@firestore_fn.on_document_written(document="tasks/{taskId}")
def on_task_written(event: firestore_fn.Event[firestore_fn.Change[firestore_fn.DocumentSnapshot | None]]) -> None:
    before = event.data.before.to_dict() if event.data.before else None
    after = event.data.after.to_dict() if event.data.after else None
    print("TASK " + json.dumps({"before": before, "after": after, "params": event.params, "document": event.document,
                                "database": event.database, "location": event.location, "type": event.type}, default=str, sort_keys=True))


@firestore_fn.on_document_created_with_auth_context(document="notes/{noteId}")
def on_note_created(event: firestore_fn.AuthEvent[firestore_fn.DocumentSnapshot | None]) -> None:
    print("NOTE " + json.dumps({"data": event.data.to_dict() if event.data else None, "authType": event.auth_type,
                                "authId": event.auth_id, "params": event.params}, default=str, sort_keys=True))


@identity_fn.before_user_created()
def before_create(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeCreateResponse | None:
    email = event.data.email or ""
    if email.endswith("@blocked.example"):
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.PERMISSION_DENIED, "Sign-ups from blocked.example are not allowed.")
    if email.startswith("plain"):
        return None
    return identity_fn.BeforeCreateResponse(display_name=f"Made for {email.split('@')[0]}", photo_url="https://example.com/p.png",
                                            custom_claims={"role": "tester", "created": event.data.metadata.creation_time is not None})


@identity_fn.before_user_signed_in()
def before_sign_in(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeSignInResponse | None:
    return identity_fn.BeforeSignInResponse(session_claims={"signInMethod": event.additional_user_info.provider_id})


@scheduler_fn.on_schedule(schedule="every 5 minutes")
def tick(event: scheduler_fn.ScheduledEvent) -> None:
    print(f"tick {event.job_name} {event.schedule_time.isoformat()}")


@pubsub_fn.on_message_published(topic="orders", retry=True)
def on_order(event: pubsub_fn.CloudEvent[pubsub_fn.MessagePublishedData]) -> None:
    message = event.data.message
    _attempts[message.message_id] = _attempts.get(message.message_id, 0) + 1
    if message.attributes.get("fail") == "once" and _attempts[message.message_id] == 1:
        raise RuntimeError("failing the first delivery on purpose")
    print("ORDER " + json.dumps({"data": message.json, "attributes": message.attributes, "attempt": _attempts[message.message_id],
                                 "subscription": event.data.subscription}, sort_keys=True))


@tasks_fn.on_task_dispatched(retry_config=options.RetryConfig(max_attempts=2))
def work(req: tasks_fn.CallableRequest) -> None:
    print("WORK " + json.dumps(req.data, sort_keys=True))
