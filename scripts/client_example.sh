#!/usr/bin/env bash
# Runs the client SDK's example program (Examples/SignIn) against a freshly started `vouch serve`
# and `vouch identity-provider`: sign in, /users/me, a revocation answered through the challenge,
# the user's devices, a user switch, sign out. Prints "client example: OK" on success.
#
#   bash scripts/client_example.sh [build dir]      (default: .build/debug)
set -euo pipefail
# shellcheck source=lib/background.sh
source "$(cd "$(dirname "$0")" && pwd)/lib/background.sh"
begin_script "client example" client-example
BIN="$(cd "${1:-.build/debug}" && pwd)"
for tool in vouch vouch-client-example; do
    [[ -x "$BIN/$tool" ]] || fail "no $BIN/$tool (swift build first)"
done
cd "$WORK"

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

export VOUCH_ADMIN_TOKEN="client-example-admin-token-0123456789"
VOUCH_URL="http://127.0.0.1:$(free_port)"
IDP_PORT="$(free_port)"
"$BIN/vouch" serve --port "${VOUCH_URL##*:}" --data-dir "$WORK/data" > serve.log 2>&1 &
PIDS+=($!)
wait_until_answering "$VOUCH_URL/health" "vouch serve" 200

admin() { curl -sS --fail-with-body --max-time 30 -H "Authorization: Bearer $VOUCH_ADMIN_TOKEN" -H 'Content-Type: application/json' "$@"; }
APP=$(admin -X POST "$VOUCH_URL/admin/apps" -d '{"name": "Example"}' | json '["id"].split("/")[-1]')
PROVIDER=$(admin -X POST "$VOUCH_URL/admin/providers" -d '{"name": "Example backend"}' | json '["id"].split("/")[-1]')
admin -X PUT "$VOUCH_URL/admin/providers/$PROVIDER/apps/$APP" > /dev/null
admin -X POST "$VOUCH_URL/admin/providers/$PROVIDER/keys" -d '{"generate": true}' > key.json
python3 -c 'import json,os; k=json.load(open("key.json")); f=os.open("private.pem", os.O_WRONLY|os.O_CREAT|os.O_TRUNC, 0o600); os.write(f, k["private_key"].encode())'
KEY=$(json '["id"].split("/")[-1]' < key.json)
rm key.json

"$BIN/vouch" identity-provider --provider-id "$PROVIDER" --key-id "$KEY" --private-key private.pem --port "$IDP_PORT" > idp.log 2>&1 &
PIDS+=($!)
wait_until_answering "http://127.0.0.1:$IDP_PORT/" "the identity provider"

"$BIN/vouch-client-example" --server "$VOUCH_URL" --app-id "$APP" --backend "http://127.0.0.1:$IDP_PORT" \
    --admin-token "$VOUCH_ADMIN_TOKEN" < /dev/null | tee example.log
printed() { grep -q -- "$1" example.log || fail "the example did not print \"$1\""; }
printed "after revocation the server says: alice"
printed "switched to bob - the server says: bob"
printed "signed out: confirmed"
printed "state: re-authenticating alice"
printed "state: signed in as bob"
printed "(this device)"
echo "client example: OK"
