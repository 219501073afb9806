"""The bad-input catalogue: every public route and the hostile bodies, paths and numbers sent to it.

Kept apart from the tests so the lists read as a table. `{p}` is the project the bad inputs
target (registered by the tests), `{db}` the database. Global resets (`POST /reset`,
`POST /emulator/v1/reset`) are left out on purpose: a valid call clears every project,
including the canary, and they take no body to attack.
"""

TARGET = "robust-target"
CANARY = "robust-canary"
API_KEY = "robust-key"
DOCS = "/v1/projects/{p}/databases/(default)/documents"
ITK = "/identitytoolkit.googleapis.com"

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
    ("POST", DOCS + ":listCollectionIds"),
    ("POST", DOCS + "/tasks/t1:listCollectionIds"),
] + [("POST", ITK + "/v1/accounts:" + verb + "?key=" + API_KEY) for verb in (
    "signUp", "signInWithPassword", "signInWithIdp", "signInWithCustomToken", "signInWithEmailLink",
    "signInWithPhoneNumber", "sendVerificationCode", "sendOobCode", "resetPassword", "update",
    "lookup", "delete", "createAuthUri")
] + [("POST", "/www.googleapis.com/identitytoolkit/v3/relyingparty/" + name + "?key=" + API_KEY) for name in (
    "verifyPassword", "signupNewUser", "verifyAssertion", "verifyCustomToken", "setAccountInfo",
    "getAccountInfo", "deleteAccount")
] + [("POST", ITK + "/v1/projects/{p}/accounts:" + verb) for verb in (
    "batchCreate", "batchDelete", "query", "lookup", "update", "delete", "sendOobCode")
] + [
    ("POST", ITK + "/v1/projects/{p}/accounts"),
    ("POST", ITK + "/v1/projects/{p}:queryAccounts"),
    ("POST", ITK + "/v1/projects/{p}:createSessionCookie"),
    ("PATCH", ITK + "/v2/projects/{p}/config"),
]

# Routes that take no body: a hostile body must be ignored or refused, never a 5xx.
OTHER_ROUTES = [
    ("GET", "/"),
    ("GET", "/emulators"),
    ("GET", "/emulator/v1/status"),
    ("GET", "/emulator/v1/openapi.json"),
    ("GET", "/emulator/v1/jwks.json"),
    ("GET", "/emulator/v1/projects"),
    ("GET", "/emulator/v1/projects/{p}/clock"),
    ("GET", "/emulator/v1/projects/{p}/seed"),
    ("GET", "/emulator/v1/projects/{p}/faults"),
    ("GET", "/emulator/v1/projects/{p}/snapshots"),
    ("GET", "/emulator/v1/projects/{p}/config"),
    ("GET", "/emulator/v1/projects/{p}:securityRules"),
    ("GET", "/emulator/v1/projects/{p}:ruleCoverage"),
    ("GET", "/emulator/v1/projects/{p}/oobCodes"),
    ("GET", "/emulator/v1/projects/{p}/verificationCodes"),
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
    ("GET", "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"),
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
                      "a\x00b"]
