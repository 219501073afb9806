#!/usr/bin/env bash
# The MakeItSo story with curl, against a running emulator:
#   swift build && swift run emulator start --config Examples/MakeItSo/emulator.json
#   Examples/MakeItSo/story.sh            # in another terminal (EMULATOR=host:port to override)
set -euo pipefail
E="http://${EMULATOR:-127.0.0.1:9099}"
P=demo-makeitso
KEY=any-api-key
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
auth() { curl -sf -X POST "$E/identitytoolkit.googleapis.com/v1/accounts:$1?key=$KEY" -H 'Content-Type: application/json' -d "$2"; }
b64() { printf '%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
apple="$(b64 '{"alg":"none"}').$(b64 '{"sub":"apple-alice","email":"alice@privaterelay.appleid.com"}')."
add_task() { # token uid title
  curl -sf -X POST "$E/v1/projects/$P/databases/(default)/documents/tasks" -H "Authorization: Bearer $1" \
    -d "{\"fields\":{\"title\":{\"stringValue\":\"$3\"},\"completed\":{\"booleanValue\":false},\"userId\":{\"stringValue\":\"$2\"}}}" >/dev/null
}

echo "1. Phone: anonymous sign-in, two tasks"
r=$(auth signUp '{"returnSecureToken":true}'); A_TOKEN=$(echo "$r" | json '["idToken"]'); A_UID=$(echo "$r" | json '["localId"]')
add_task "$A_TOKEN" "$A_UID" "buy milk"; add_task "$A_TOKEN" "$A_UID" "call mum"
echo "   uid $A_UID"

echo "2. Phone: link Sign in with Apple (the uid stays)"
r=$(auth signInWithIdp "{\"idToken\":\"$A_TOKEN\",\"postBody\":\"id_token=$apple&providerId=apple.com\",\"requestUri\":\"http://localhost\",\"returnSecureToken\":true}")
echo "   uid $(echo "$r" | json '["localId"]')"

echo "3. Tablet: a new anonymous user with a task"
r=$(auth signUp '{"returnSecureToken":true}'); B_TOKEN=$(echo "$r" | json '["idToken"]'); B_UID=$(echo "$r" | json '["localId"]')
add_task "$B_TOKEN" "$B_UID" "water plants"
echo "   uid $B_UID"

echo "4. Tablet: linking the same Apple credential fails"
curl -s -X POST "$E/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=$KEY" -H "Content-Type: application/json" \
  -d "{\"idToken\":\"$B_TOKEN\",\"postBody\":\"id_token=$apple&providerId=apple.com\",\"requestUri\":\"http://localhost\"}" | json '["error"]["message"]'

echo "5. Tablet: sign in with Apple instead (becoming the phone's account) and migrate"
r=$(auth signInWithIdp "{\"postBody\":\"id_token=$apple&providerId=apple.com\",\"requestUri\":\"http://localhost\",\"returnSecureToken\":true}")
T_TOKEN=$(echo "$r" | json '["idToken"]')
curl -s -X POST "$E/$P/us-central1/migrateTasks" -H 'Content-Type: application/json' -H "Authorization: Bearer $T_TOKEN" \
  -d "{\"data\":{\"idToken\":\"$B_TOKEN\"}}"; echo

echo "6. Wait for the triggers, then read what the tablet sees"
curl -sf "$E/emulator/v1/projects/$P:idle?timeoutMs=10000" >/dev/null
curl -s -X POST "$E/v1/projects/$P/databases/(default)/documents:runQuery" -H "Authorization: Bearer $T_TOKEN" \
  -d "{\"structuredQuery\":{\"from\":[{\"collectionId\":\"tasks\"}],\"where\":{\"fieldFilter\":{\"field\":{\"fieldPath\":\"userId\"},\"op\":\"EQUAL\",\"value\":{\"stringValue\":\"$A_UID\"}}}}}" \
  | python3 -c "import json,sys; print('   tasks:', sorted(e['document']['fields']['title']['stringValue'] for e in json.load(sys.stdin) if 'document' in e))"
curl -s "$E/v1/projects/$P/databases/(default)/documents/users/$A_UID" -H 'Authorization: Bearer owner' | json '["fields"]["taskCount"]'
