"""The bad-input catalogue: every public route and the hostile bodies, paths and numbers sent to it.

Kept apart from the tests so the lists read as a table. `{p}` is the project the bad inputs
target (registered by the tests), `{t}` a tenant of it (created by the tests), `{fp}` the project of the functions emulator that runs
`Tests/python/functions/worker_py.py`. `ROUTE_TABLES` names every table of (method, path) rows;
`test_route_coverage.py` checks them against the live route table (`GET /emulator/v1/routes`),
so a route without a row here fails CI. The global resets (`POST /reset`, `POST /emulator/v1/reset`)
clear every project, the canary's too, so they are sent to an emulator of their own.
"""

TARGET = "robust-target"
CANARY = "robust-canary"
API_KEY = "robust-key"
DOCS = "/v1/projects/{p}/databases/(default)/documents"
ITK = "/identitytoolkit.googleapis.com"
TENANT = "{t}"  # a tenant of {p} the bad-input tests create (`TENANT_BODY`); "nope" never exists
TENANT_BODY = {"displayName": "Robust", "allowPasswordSignup": True, "enableAnonymousUser": True, "enableEmailLinkSignin": True}

# (method, path) of routes that parse a JSON body: malformed input there must be a 4xx.
BODY_ROUTES = [
    ("POST", "/emulator/v1/projects"),
    ("PUT", "/emulator/v1/projects/{p}/clock"),
    ("POST", "/emulator/v1/projects/{p}/clock:advance"),
    ("PUT", "/emulator/v1/projects/{p}/seed"),
    ("POST", "/emulator/v1/projects/{p}/faults"),
    ("POST", "/emulator/v1/projects/{p}/snapshots"),
    ("POST", "/emulator/v1/projects/{p}:export"),
    ("POST", "/emulator/v1/projects/{p}:import"),
    ("PATCH", "/emulator/v1/projects/{p}/config"),
    ("PUT", "/emulator/v1/projects/{p}:securityRules"),
    ("POST", "/emulator/v1/projects/{p}:evaluateRules"),
    ("POST", "/emulator/v1/projects/{p}/functions:verifyIdToken"),
    ("POST", "/emulator/v1/projects/{p}/accounts:purgeAnonymous"),
    ("POST", "/emulator/v1/projects/{p}/customTokens"),
    ("POST", "/emulator/v1/projects/{p}/tenants/" + TENANT + "/customTokens"),
    ("POST", "/emulator/v1/projects/{p}/functions/tick:run"),
    ("POST", "/v1/projects/{p}/topics/orders:publish"),
    ("PUT", "/v1/projects/{p}/topics/robust-topic"),  # Pub/Sub
    ("PATCH", "/v1/projects/{p}/topics/robust-topic"),  # Pub/Sub
    ("PUT", "/v1/projects/{p}/subscriptions/robust-sub"),  # Pub/Sub
    ("PATCH", "/v1/projects/{p}/subscriptions/robust-sub"),  # Pub/Sub
    ("POST", "/v1/projects/{p}/subscriptions/robust-sub:pull"),  # Pub/Sub
    ("POST", "/v1/projects/{p}/subscriptions/robust-sub:acknowledge"),  # Pub/Sub
    ("POST", "/v1/projects/{p}/subscriptions/robust-sub:modifyAckDeadline"),  # Pub/Sub
    ("POST", "/v1/projects/{p}/subscriptions/robust-sub:modifyPushConfig"),  # Pub/Sub
    ("POST", "/v1/projects/{p}/subscriptions/robust-sub:seek"),  # Pub/Sub
    ("PUT", "/v1/projects/{p}/snapshots/robust-snap"),  # Pub/Sub
    ("PATCH", "/v1/projects/{p}/snapshots/robust-snap"),  # Pub/Sub
    ("POST", "/projects/{p}/locations/us-central1/queues/jobs/tasks"),
    ("POST", "/oauth2.googleapis.com/token"),
    ("POST", DOCS + "/tasks"),
    ("PATCH", DOCS + "/tasks/t1"),
    ("POST", DOCS + ":commit"),
    ("POST", DOCS + ":batchWrite"),
    ("POST", DOCS + ":batchGet"),
    ("POST", DOCS + ":beginTransaction"),
    ("POST", DOCS + ":rollback"),
    ("POST", DOCS + ":runQuery"),
    ("POST", DOCS + "/tasks/t1:runQuery"),
    ("POST", DOCS + ":runAggregationQuery"),
    ("POST", DOCS + "/tasks/t1:runAggregationQuery"),
    ("POST", DOCS + ":listCollectionIds"),
    ("POST", DOCS + "/tasks/t1:listCollectionIds"),
    ("POST", DOCS + ":partitionQuery"),
    ("POST", DOCS + "/tasks/t1:partitionQuery"),
] + [("POST", ITK + "/v1/accounts:" + verb + "?key=" + API_KEY) for verb in (
    "signUp", "signInWithPassword", "signInWithIdp", "signInWithCustomToken", "signInWithEmailLink",
    "signInWithPhoneNumber", "sendVerificationCode", "sendOobCode", "resetPassword", "update",
    "lookup", "delete", "createAuthUri")
] + [("POST", "/www.googleapis.com/identitytoolkit/v3/relyingparty/" + name + "?key=" + API_KEY) for name in (
    "verifyPassword", "signupNewUser", "verifyAssertion", "verifyCustomToken", "setAccountInfo",
    "getAccountInfo", "deleteAccount", "resetPassword", "emailLinkSignin", "getOobConfirmationCode",
    "createAuthUri", "sendVerificationCode", "verifyPhoneNumber")
] + [("POST", ITK + "/v1/projects/{p}/accounts:" + verb) for verb in (
    "batchCreate", "batchDelete", "query", "lookup", "update", "delete", "sendOobCode")
] + [("POST", ITK + "/v1/projects/{p}/tenants/" + TENANT + "/accounts:" + verb) for verb in (
    "batchCreate", "batchDelete", "query", "lookup", "update", "delete", "sendOobCode")
] + [("POST", ITK + "/v2/accounts/" + verb + "?key=" + API_KEY) for verb in (
    "mfaEnrollment:start", "mfaEnrollment:finalize", "mfaEnrollment:withdraw", "mfaSignIn:start", "mfaSignIn:finalize")
] + [
    ("POST", ITK + "/v1/projects/{p}/accounts"),
    ("POST", ITK + "/v1/projects/{p}:queryAccounts"),
    ("POST", ITK + "/v1/projects/{p}:createSessionCookie"),
    ("POST", ITK + "/v1/projects/{p}/tenants/" + TENANT + "/accounts"),
    ("POST", ITK + "/v1/projects/{p}/tenants/" + TENANT + ":queryAccounts"),
    ("POST", ITK + "/v1/projects/{p}/tenants/" + TENANT + ":createSessionCookie"),
    ("PATCH", ITK + "/v2/projects/{p}/config"),
    ("POST", ITK + "/v2/projects/{p}/tenants"),
    ("PATCH", ITK + "/v2/projects/{p}/tenants/" + TENANT + "?updateMask=displayName"),
    ("PATCH", ITK + "/v2/projects/{p}/tenants/nope"),
    ("POST", "/securetoken.googleapis.com/v1/token?key=" + API_KEY),
]

# Routes that take no body: a hostile body must be ignored or refused, never a 5xx.
OTHER_ROUTES = [
    ("GET", "/v1/projects/{p}/topics/robust-topic"),  # Pub/Sub
    ("GET", "/v1/projects/{p}/topics"),  # Pub/Sub
    ("GET", "/v1/projects/{p}/topics/robust-topic/subscriptions"),  # Pub/Sub
    ("GET", "/v1/projects/{p}/topics/robust-topic/snapshots"),  # Pub/Sub
    ("GET", "/v1/projects/{p}/subscriptions/robust-sub"),  # Pub/Sub
    ("GET", "/v1/projects/{p}/subscriptions"),  # Pub/Sub
    ("POST", "/v1/projects/{p}/subscriptions/robust-gone:detach"),  # Pub/Sub
    ("GET", "/v1/projects/{p}/snapshots/robust-snap"),  # Pub/Sub
    ("GET", "/v1/projects/{p}/snapshots"),  # Pub/Sub
    ("DELETE", "/v1/projects/{p}/snapshots/robust-gone"),  # Pub/Sub
    ("DELETE", "/v1/projects/{p}/subscriptions/robust-gone"),  # Pub/Sub
    ("DELETE", "/v1/projects/{p}/topics/robust-gone"),  # Pub/Sub
    ("GET", "/"),
    ("GET", "/emulators"),
    ("GET", "/emulator/v1/status"),
    ("GET", "/emulator/v1/openapi.json"),
    ("GET", "/emulator/v1/jwks.json"),
    ("GET", "/emulator/v1/projects"),
    ("DELETE", "/emulator/v1/projects/nope-never-used"),
    ("GET", "/emulator/v1/projects/{p}/clock"),
    ("GET", "/emulator/v1/projects/{p}/seed"),
    ("GET", "/emulator/v1/projects/{p}/faults"),
    ("GET", "/emulator/v1/projects/{p}/snapshots"),
    ("GET", "/emulator/v1/projects/{p}/config"),
    ("GET", "/emulator/v1/projects/{p}:securityRules"),
    ("GET", "/emulator/v1/projects/{p}:ruleCoverage"),
    ("GET", "/emulator/v1/projects/{p}/oobCodes"),
    ("GET", "/emulator/v1/projects/{p}/verificationCodes"),
    ("GET", "/emulator/v1/projects/{p}/tenants/" + TENANT + "/oobCodes"),
    ("GET", "/emulator/v1/projects/{p}/tenants/" + TENANT + "/verificationCodes"),
    ("GET", "/emulator/v1/projects/{p}/tenants/nope/verificationCodes"),
    ("DELETE", "/emulator/v1/projects/{p}/tenants/nope/accounts"),
    ("GET", "/emulator/v1/projects/{p}/functions"),
    ("GET", "/emulator/v1/projects/{p}/functions/logs"),
    ("DELETE", "/emulator/v1/projects/{p}/faults/nope"),
    ("DELETE", "/emulator/v1/projects/{p}/snapshots/nope"),
    ("POST", "/emulator/v1/projects/{p}/snapshots/nope:restore"),
    ("GET", DOCS + "/tasks/t1"),
    ("GET", DOCS + "/tasks"),
    ("DELETE", DOCS + "/tasks/none"),
    ("GET", ITK + "/v1/projects/{p}/accounts:batchGet"),
    ("GET", ITK + "/v2/projects/{p}/config"),
    ("GET", ITK + "/v2/projects/{p}/tenants"),
    ("GET", ITK + "/v2/projects/{p}/tenants/" + TENANT),
    ("GET", ITK + "/v2/projects/{p}/tenants/nope"),
    ("DELETE", ITK + "/v2/projects/{p}/tenants/nope"),
    ("GET", ITK + "/v1/projects/{p}/tenants/" + TENANT + "/accounts:batchGet"),
    ("GET", "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"),
    ("GET", "/robot/v1/metadata/jwk/securetoken@system.gserviceaccount.com"),
    ("GET", "/emulator/v1/routes"),
    ("GET", "/emulator/v1/projects/{p}:ruleCoverage.html"),
    ("GET", "/emulator/v1/projects/{p}:idle?timeoutMs=0"),
    ("POST", "/emulator/v1/projects/{p}:reset"),
    ("DELETE", "/emulator/v1/projects/{p}/faults"),
    ("DELETE", "/emulator/v1/projects/{p}/accounts"),
    ("DELETE", "/emulator/v1/projects/{p}/databases/(default)/documents"),
    ("DELETE", "/emulator/v1/projects/{p}/databases/(default)/documents/tasks"),
    ("GET", ITK + "/v1/projects?key=" + API_KEY),
    ("GET", ITK + "/v1/recaptchaParams?key=" + API_KEY),
    # The web UI's reads and actions (docs/admin-api.md, "For the UI").
    ("GET", "/emulator/v1/projects/{p}/summary"),
    ("GET", "/emulator/v1/projects/{p}/pubsub"),
    ("GET", "/emulator/v1/projects/{p}/pubsub/topics/nope/messages"),
    ("GET", "/emulator/v1/projects/{p}/pubsub/topics/%00%FF/messages"),
    ("GET", "/emulator/v1/projects/{p}/databases/(default)/indexes:suggested"),
    ("GET", "/emulator/v1/projects/{p}/databases/(default)/indexes:suggested?missingOnly=%00"),
    ("GET", "/emulator/v1/projects/{p}/revision"),
    ("GET", "/emulator/v1/projects/{p}/databases"),
    ("GET", "/emulator/v1/projects/{p}/databases/(default)/documents"),
    ("GET", "/emulator/v1/projects/{p}/databases/(default)/documents/tasks"),
    ("GET", "/emulator/v1/projects/{p}/databases/(default)/documents/tasks/t1"),
    ("GET", "/emulator/v1/projects/{p}/databases/(default)/documents/tasks/%2e%2e/x"),
    ("GET", "/emulator/v1/projects/{p}/users?search=%00%FF&kind=nope&tenantId=x"),
    ("GET", "/emulator/v1/projects/{p}/rulesEvaluations?path=%FF&caller=admin"),
    ("GET", "/emulator/v1/projects/{p}/rulesEvaluations/1"),
    ("GET", "/emulator/v1/projects/{p}/rulesEvaluations/not-a-number"),
    ("DELETE", "/emulator/v1/projects/{p}/rulesEvaluations"),
    ("GET", "/emulator/v1/projects/{p}/functions/invocations/nope"),
    ("POST", "/emulator/v1/projects/{p}/functions/invocations/nope:rerun"),
    # The UI's shell (any deep link) and assets.
    ("GET", "/ui"),
    ("GET", "/ui/"),
    ("GET", "/ui/firestore/tasks/t1?project={p}"),
    ("GET", "/ui/assets/core.js"),
    ("GET", "/ui/assets/..%2f..%2fetc%2fpasswd"),
]

# Absurd numbers in query parameters: always a 4xx.
BAD_QUERY_ROUTES = [
    ("GET", "/emulator/v1/projects/{p}:idle?timeoutMs=abc"),
    ("GET", "/emulator/v1/projects/{p}:idle?timeoutMs=-1"),
    ("GET", "/emulator/v1/projects/{p}:idle?timeoutMs=99999999999999999999999"),
    ("GET", "/emulator/v1/projects/{p}:idle?timeoutMs=1e3"),
    ("GET", ITK + "/v1/projects/{p}/accounts:batchGet?maxResults=abc"),
    ("GET", ITK + "/v1/projects/{p}/accounts:batchGet?maxResults=99999999999999999999"),
    ("GET", ITK + "/v1/projects/{p}/accounts:batchGet?maxResults=-5"),
    ("GET", "/emulator/v1/projects/{p}/users?pageSize=abc"),
    ("GET", "/emulator/v1/projects/{p}/users?pageSize=0"),
    ("GET", "/emulator/v1/projects/{p}/users?pageSize=99999999999999999999"),
    ("GET", "/emulator/v1/projects/{p}/users?pageToken=no-colon"),
    ("GET", "/emulator/v1/projects/{p}/rulesEvaluations?pageSize=-1"),
    ("GET", "/emulator/v1/projects/{p}/rulesEvaluations?outcome=maybe"),
    ("GET", "/emulator/v1/projects/{p}/rulesEvaluations?method=patch"),
    ("GET", "/emulator/v1/projects/{p}/rulesEvaluations?pageToken=x"),
    ("GET", "/emulator/v1/projects/{p}/databases/(default)/documents/tasks?pageSize=1001"),
    ("GET", "/emulator/v1/projects/{p}/databases/(default)/documents/tasks?pageSize=1e3"),
    ("GET", ITK + "/v2/projects/{p}/tenants?pageSize=abc"),
    ("GET", ITK + "/v2/projects/{p}/tenants?pageSize=0"),
    ("GET", ITK + "/v2/projects/{p}/tenants?pageSize=99999999999999999999"),
    ("GET", ITK + "/v1/projects/{p}/tenants/" + TENANT + "/accounts:batchGet?maxResults=abc&tenantId=other"),
]

# Operations that are documented as not implemented (docs/auth.md, docs/store.md): 501 with a
# message naming the operation, whatever the body, and nothing else.
UNIMPLEMENTED_ROUTES = [("POST", ITK + "/" + p) for p in (
    "v1/accounts:issueSamlResponse", "v1/accounts:signInWithGameCenter", "v1/accounts:verifyIosClient",
    "v2/accounts:revokeToken", "v2/accounts/passkeyEnrollment:start", "v2/accounts/passkeyEnrollment:finalize",
    "v2/accounts/passkeySignIn:start", "v2/accounts/passkeySignIn:finalize")
] + [("GET", ITK + "/" + p) for p in (
    "v1/sessionCookiePublicKeys", "v2/passwordPolicy", "v2/recaptchaConfig", "v2/defaultSupportedIdps")
] + [
    ("GET", ITK + "/v2/projects/{p}/tenants/" + TENANT + "/oauthIdpConfigs"),
    ("POST", ITK + "/v2/projects/{p}/tenants/" + TENANT + ":getIamPolicy"),
    ("POST", ITK + "/v1/projects/{p}/tenants/" + TENANT + "/accounts:signInWithIdp"),
    ("GET", "/emulator/v1/projects/{p}/tenants/" + TENANT + "/config"),
    ("POST", "/www.googleapis.com/identitytoolkit/v3/relyingparty/signOutUser?key=" + API_KEY),
    ("POST", DOCS + ":listen"),
    ("POST", DOCS + ":write"),
]

# The out-of-band action page people open in a browser: a 4xx with a message in either the Firebase
# Auth emulator's `{"authEmulator": {"error"}}` shape or the usual `{"error": {"message"}}` one.
ACTION_PAGE_ROUTES = [
    ("GET", "/emulator/action"),
    ("GET", "/emulator/action?mode=resetPassword&oobCode=bogus&apiKey=" + API_KEY),
    ("GET", "/emulator/action?mode=resetPassword&oobCode=bogus&newPassword=x&apiKey=" + API_KEY),
    ("GET", "/emulator/action?mode=verifyEmail&oobCode=%00%FF&apiKey=" + API_KEY + "&projectId=..%2F" + "{p}"),
    ("GET", "/emulator/action?mode=sideways&oobCode=x&apiKey=" + API_KEY),
    ("GET", "/emulator/action?mode=signIn&oobCode=x&apiKey=" + API_KEY),
]

# Clear every project: sent (with hostile bodies) to an emulator of their own.
GLOBAL_RESET_ROUTES = [
    ("POST", "/reset"),
    ("POST", "/emulator/v1/reset"),
]

# The functions emulator: `{fp}` runs Tests/python/functions/worker_py.py as a codebase.
FUNCTIONS_PROJECT = "robust-functions"
# The callable `pyHello`: every bad body is 400 INVALID_ARGUMENT in the callable error shape.
CALLABLE_ROUTES = [("POST", "/{fp}/us-central1/pyHello"), ("GET", "/{fp}/us-central1/pyHello")]
# The HTTP function `pyHttp` (the worker serves GET; the host passes every answer through as is).
HTTP_FUNCTION_ROUTES = [(m, "/{fp}/us-central1/pyHttp" + below)
                        for m in ("GET", "POST", "PUT", "PATCH", "DELETE") for below in ("", "/a/b?q=%FF")]
# No such function: 404 with a message, whatever the body.
UNKNOWN_FUNCTION_ROUTES = [
    ("POST", "/{fp}/us-central1/nope"),
    ("POST", "/{fp}/europe-west1/pyHello"),
    ("POST", "/{fp}/us-central1/pyHello/below"),
    ("POST", "/robust-no-such-project/us-central1/pyHello"),
    ("GET", "/robust-no-such-project/us-central1/pyHttp/a/b"),
]

DEEP_ARRAY = b"[" * 10_000 + b"]" * 10_000
DEEP_OBJECT = b'{"a":' * 10_000 + b"1" + b"}" * 10_000

# Bodies that are not valid JSON objects at all: every body route must answer 4xx.
MALFORMED = {
    "truncated": b'{"fields": {',
    "trailing-garbage": b'{"a": 1} xyz',
    "single-quotes": b"{'a': 1}",
    "bare-word": b"undefined",
    "nul-bytes": b'{"a"\x00: 1}',
    "invalid-utf8": b'{"name": "\xff\xfe\xc3\x28"}',
    "lone-surrogate-escape": b'{"name": "\\ud800"}',
    "deep-array": DEEP_ARRAY,
    "deep-object": DEEP_OBJECT,
    "array-top": b"[]",
    "string-top": b'"hello"',
    "number-top": b"42",
    "null-top": b"null",
}

# Well-formed JSON with wrong types, absurd numbers, unknown enums or missing fields:
# each route may accept some (answers 2xx), but never 5xx.
HOSTILE = {
    "missing-fields": b"{}",
    "empty": b"",  # an empty body is the empty message, as Google's REST APIs treat it
    "wrong-types": b'{"projectId": 5, "mode": [], "seconds": "x", "seed": {}, "name": 7, "path": false,'
                   b' "fields": "x", "writes": {}, "documents": 1, "structuredQuery": [], "email": 1,'
                   b' "password": [], "idToken": {}, "localIds": "x", "users": "x", "match": 1,'
                   b' "rules": 3, "transaction": 12, "options": "x", "parent": 1}',
    "absurd-numbers": b'{"seconds": 1e999, "seed": 123456789012345678901234567890, "delayMs": -1e308,'
                      b' "times": 9223372036854775808, "probability": 1e400, "olderThanSeconds": -9223372036854775809,'
                      b' "maxResults": 1e20, "limit": 99999999999999999999, "validDuration": -1,'
                      b' "fields": {"n": {"integerValue": "99999999999999999999999"}, "d": {"doubleValue": "1e999"},'
                      b' "t": {"timestampValue": "99999-12-31T23:59:59Z"}}}',
    "unknown-enums": b'{"mode": "sideways", "error": {"status": "NOT_A_CODE"}, "match": {"service": "ftp"},'
                     b' "structuredQuery": {"from": [{"collectionId": "tasks"}], "where": {"fieldFilter":'
                     b' {"field": {"fieldPath": "a"}, "op": "ALMOST_EQUAL", "value": {"integerValue": "1"}}},'
                     b' "orderBy": [{"field": {"fieldPath": "a"}, "direction": "SIDEWAYS"}]},'
                     b' "options": {"readWrite": {"mode": "BOGUS"}}, "requestType": "NOT_A_TYPE",'
                     b' "provider": "nope.com", "grantType": "magic"}',
    "huge-string": b'{"name": "' + b"x" * 2_000_000 + b'", "email": "' + b"a" * 100_000 + b'@x.com"}',
    "many-keys": b"{" + b",".join(b'"k%d": %d' % (i, i) for i in range(50_000)) + b"}",
}

# Ids, snapshot names and export paths that try to escape their namespace.
TRAVERSAL_DOC_PATHS = [
    "tasks/..", "tasks/.", "tasks/%2e%2e", "tasks/..%2f..%2fetc", "tasks/%2E%2E%2F%2E%2E",
    "../../projects/robust-canary/databases/(default)/documents/canary/doc",
    "tasks/%FF%FE", "tasks/__evil__", "tasks/a%00b",
]
# "." and ".." are valid snapshot names by the documented charset (snapshots live in memory).
DOT_NAMES = [".", ".."]
TRAVERSAL_NAMES = ["..%2f..%2fetc%2fpasswd", "a%2fb", "%00", "x" * 101, "%FF"]
TRAVERSAL_FS_PATHS = ["../escape", "a/../../escape", "..", "exports/../../escape",
                      "a\x00b",
                      # An export replaces its folder: never the root, the working directory, or a folder it did not write.
                      "/", ".", "./", "/.", "/etc", "/tmp"]

# Project and database ids that are not ids (issue 22, item 9): a NUL cut `victim.json\0x.json` down to
# another project's export file. Each is sent (percent-encoded as written) to the routes in
# `BAD_ID_ROUTES`; every answer is a 4xx naming the id, and nothing is created under it.
BAD_PROJECT_IDS = ["victim.json%00x", "a%2Fb", "%2e%2e", "UPPER", "under_score", "dot.ted", "-lead", "sp%20ace",
                   "%C3%A9t%C3%A9", "x" * 101, "tab%09", "nul%00"]
BAD_DATABASE_IDS = ["a%00b", "UPPER", "x" * 64, "(other)", "dot.ted"]
BAD_ID_ROUTES = [
    ("PATCH", "/v1/projects/{bad}/databases/(default)/documents/tasks/t1", b'{"fields": {}}'),
    ("GET", "/v1/projects/{bad}/databases/(default)/documents/tasks/t1", None),
    ("POST", "/v1/projects/{bad}/databases/(default)/documents:commit", b'{"writes": []}'),
    ("POST", ITK + "/v1/projects/{bad}/accounts", b'{"email": "a@example.com"}'),
    ("POST", "/emulator/v1/projects/{bad}:export", b'{"path": "never-written"}'),
    ("POST", "/emulator/v1/projects/{bad}:import", b'{"path": "never-read"}'),
    ("POST", "/emulator/v1/projects/{bad}:reset", None),
    ("POST", "/emulator/v1/projects/{bad}/snapshots", b'{"name": "s"}'),
    ("PUT", "/emulator/v1/projects/{bad}/clock", b'{"mode": "frozen"}'),
]

# Well-formed callable requests whose `data` cannot be decoded (callable protocol): 400 INVALID_ARGUMENT.
INT64 = b'"type.googleapis.com/google.protobuf.Int64Value"'
BAD_CALLABLE_DATA = {
    "extra-key": b'{"data": 1, "extra": 2}',
    "no-data": b'{"date": 1}',
    "unknown-type-wrapper": b'{"data": {"@type": "type.googleapis.com/google.protobuf.Any", "value": "1"}}',
    "wrapper-without-value": b'{"data": {"@type": ' + INT64 + b'}}',
    "wrapper-number-value": b'{"data": {"@type": ' + INT64 + b', "value": 5}}',
    "wrapper-not-a-number": b'{"data": [{"@type": ' + INT64 + b', "value": "twelve"}]}',
    "deep-data": b'{"data": ' + DEEP_ARRAY + b'}',
}
# A body larger than the socket buffers that the HTTP function never reads (it answers GET).
UNREAD_BODY = b'"' + b"x" * (24 * 1024 * 1024) + b'"'

# Every table of (method, path) rows, by name: test_route_coverage.py proves together they reach
# every registered route.
# Streaming routes (Server-Sent Events): answered with a 200 head at once and kept open; hostile
# bodies change nothing, an unknown project is a 404 that ends the response.
STREAM_ROUTES = [
    ("GET", "/emulator/v1/projects/{p}/events"),
]

# Storage (docs/storage.md): uploads take any bytes, so a hostile body is data there; every
# answer must still be below 500, or 501 naming the operation. XML-path errors are XML.
B = "{p}.appspot.com"
STORAGE_ROUTES = [
    ("GET", "/v0/"),
    ("GET", "/v0/b/" + B + "/o"),
    ("GET", "/v0/b/" + B + "/o/a%2Fb.txt"),
    ("POST", "/v0/b/" + B + "/o?name=robust.txt"),
    ("POST", "/v0/b/" + B + "/o/robust2.txt"),
    ("PUT", "/v0/b/" + B + "/o?name=robust3.txt"),
    ("PUT", "/v0/b/" + B + "/o/robust4.txt"),
    ("PATCH", "/v0/b/" + B + "/o/robust.txt"),
    ("DELETE", "/v0/b/" + B + "/o/none.txt"),
    ("GET", "/download/storage/v1/b/" + B + "/o/robust.txt?alt=media"),
    ("POST", "/upload/storage/v1/b/" + B + "/o?uploadType=media&name=u.txt"),
    ("PUT", "/upload/storage/v1/b/" + B + "/o?upload_id=nope"),
    ("DELETE", "/upload/storage/v1/b/" + B + "/o?upload_id=nope"),
    ("GET", "/emulator/v1/projects/{p}/storage/buckets"),
    ("DELETE", "/emulator/v1/projects/{p}/storage/buckets/" + B + "/objects"),
    ("GET", "/emulator/v1/projects/{p}/storage/buckets/" + B + ":ruleCoverage"),
    ("GET", "/emulator/v1/projects/{p}/storage/buckets/" + B + ":ruleCoverage.html"),
    ("GET", "/" + B + "/robust.txt"),
    ("POST", "/" + B),
] + [row for prefix in ("", "/storage/v1") for row in (
    ("GET", prefix + "/b?project={p}"),
    ("POST", prefix + "/b?project={p}"),
    ("GET", prefix + "/b/" + B),
    ("DELETE", prefix + "/b/no-such-robust-bucket"),
    ("PUT", prefix + "/b/" + B),
    ("GET", prefix + "/b/" + B + "/o"),
    ("GET", prefix + "/b/" + B + "/o/robust.txt"),
    ("PATCH", prefix + "/b/" + B + "/o/robust.txt"),
    ("PUT", prefix + "/b/" + B + "/o/robust.txt"),
    ("DELETE", prefix + "/b/" + B + "/o/none.txt"),
    ("POST", prefix + "/b/" + B + "/o/robust.txt/copyTo/b/" + B + "/o/copy.txt"),
    ("GET", prefix + "/b/" + B + "/iam"),
    ("POST", prefix + "/b/" + B + "/o?uploadType=media&name=u2.txt"),
    ("PUT", prefix + "/b/" + B + "/o?upload_id=nope"),
    ("DELETE", prefix + "/b/" + B + "/o?upload_id=nope"),
)] + [("GET", "/storage/v1/projects/{p}/serviceAccount")]

# WebChannel (docs/webchannel.md): form bodies, not JSON. Whatever the body, never a 5xx; a forward
# POST or backchannel GET naming a session that does not exist is `400 Unknown SID`.
WEBCHANNEL_ROUTES = [(m, "/google.firestore.v1.Firestore/" + s + "/channel") for s in ("Listen", "Write") for m in ("POST", "GET")]

ROUTE_TABLES = {
    "STORAGE_ROUTES": STORAGE_ROUTES, "WEBCHANNEL_ROUTES": WEBCHANNEL_ROUTES,
    "STREAM_ROUTES": STREAM_ROUTES,
    "BODY_ROUTES": BODY_ROUTES, "OTHER_ROUTES": OTHER_ROUTES, "BAD_QUERY_ROUTES": BAD_QUERY_ROUTES,
    "UNIMPLEMENTED_ROUTES": UNIMPLEMENTED_ROUTES, "ACTION_PAGE_ROUTES": ACTION_PAGE_ROUTES,
    "GLOBAL_RESET_ROUTES": GLOBAL_RESET_ROUTES, "CALLABLE_ROUTES": CALLABLE_ROUTES,
    "HTTP_FUNCTION_ROUTES": HTTP_FUNCTION_ROUTES, "UNKNOWN_FUNCTION_ROUTES": UNKNOWN_FUNCTION_ROUTES,
}
