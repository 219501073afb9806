"""The MakeItSo backend in Python, written with the official SDK (firebase-functions from PyPI):
the same functions as the Swift codebase in ../Functions, for the same story (see ../firebase.json)."""
import time

from firebase_admin import auth, firestore, initialize_app
from firebase_functions import firestore_fn, https_fn, identity_fn
from google.cloud.firestore_v1.base_query import FieldFilter

initialize_app()

RECENT_SIGN_IN_SECONDS = 5 * 60


@https_fn.on_call()
def migrateTasks(req: https_fn.CallableRequest) -> dict:
    """Moves every task of an anonymous user to the signed-in permanent user. Takes the anonymous
    user's ID token, never a user id: a uid could be anyone's, a token proves possession."""
    raw_token = req.raw_request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if req.auth is None or not raw_token:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.FAILED_PRECONDITION, "The function must be called while authenticated.")
    anonymous_token = req.data.get("idToken") if isinstance(req.data, dict) else None
    if not isinstance(anonymous_token, str) or not anonymous_token:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.INVALID_ARGUMENT,
                                  "The function must be called with {idToken: <ID token of the anonymous user>}; user ids are not accepted.")
    # Re-verify the caller strictly: revoked tokens and disabled users are refused too.
    try:
        caller = auth.verify_id_token(raw_token, check_revoked=True)
    except (auth.InvalidIdTokenError, auth.UserNotFoundError, auth.UserDisabledError) as e:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.UNAUTHENTICATED, f"The caller's ID token is not valid: {e}")
    try:
        anonymous = auth.verify_id_token(anonymous_token, check_revoked=True)
    except (auth.InvalidIdTokenError, auth.UserNotFoundError, auth.UserDisabledError) as e:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.UNAUTHENTICATED, f"The anonymous ID token is not valid: {e}")
    if anonymous["firebase"]["sign_in_provider"] != "anonymous":
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.INVALID_ARGUMENT, "ID token must be anonymous")
    if caller["firebase"]["sign_in_provider"] == "anonymous":
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.INVALID_ARGUMENT, "ID token must be non-anonymous")
    # "Now" is the later of this machine's clock and the token's issue time: the Auth server's clock
    # may run ahead of ours (in the emulator it is advanced on purpose).
    now = max(time.time(), caller["iat"])
    if now - caller["auth_time"] > RECENT_SIGN_IN_SECONDS:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.FAILED_PRECONDITION, "This operation requires a recent sign-in.")

    db = firestore.client()
    tasks = db.collection("tasks").where(filter=FieldFilter("userId", "==", anonymous["uid"]))

    @firestore.transactional
    def move(transaction) -> int:
        docs = list(transaction.get(tasks))
        for doc in docs:
            transaction.update(doc.reference, {"userId": caller["uid"]})
        return len(docs)

    moved = move(db.transaction())
    # Anonymous accounts never expire on their own: delete it now that its data moved.
    auth.delete_user(anonymous["uid"])
    return {"updatedDocCount": moved, "anonymousUserId": anonymous["uid"], "permanentUserId": caller["uid"]}


@firestore_fn.on_document_written(document="tasks/{taskId}")
def onTaskWritten(event: firestore_fn.Event[firestore_fn.Change[firestore_fn.DocumentSnapshot | None]]) -> None:
    """Keeps users/{uid}.taskCount equal to the number of tasks each user owns. Recounting makes
    the trigger idempotent, so repeated deliveries are harmless."""
    owners = set()
    for snapshot in (event.data.before, event.data.after):
        if snapshot is not None and snapshot.get("userId"):
            owners.add(snapshot.get("userId"))
    db = firestore.client()
    for uid in sorted(owners):
        # int(): the client reads a count of 0 as the float 0.0 (it takes `integer_value or double_value`).
        count = int(db.collection("tasks").where(filter=FieldFilter("userId", "==", uid)).count().get()[0][0].value)
        db.collection("users").document(uid).set({"taskCount": count}, merge=True)


@identity_fn.before_user_created()
def beforeCreate(event: identity_fn.AuthBlockingEvent) -> None:
    """Refuses sign-ups from a blocked domain."""
    if (event.data.email or "").lower().endswith("@blocked.example"):
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.PERMISSION_DENIED, "Sign-ups from blocked.example are not allowed.")
