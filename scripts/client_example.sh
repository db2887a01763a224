#!/usr/bin/env bash
# Runs the client SDK's example program (Examples/SignIn) against a freshly started `vouch serve`
# and `vouch identity-provider`: sign in, /users/me, a revocation answered through the challenge,
# the user's devices, a user switch, sign out. Prints "client example: OK" on success.
#
#   bash scripts/client_example.sh [build dir]      (default: .build/debug)
set -euo pipefail
BIN="$(cd "${1:-.build/debug}" && pwd)"
for tool in vouch vouch-client-example; do
    [[ -x "$BIN/$tool" ]] || { echo "client example: no $BIN/$tool (swift build first)" >&2; exit 1; }
done
WORK="$(mktemp -d "${TMPDIR:-/tmp}/vouch-client-example.XXXXXX")"
PIDS=()
cleanup() {
    local status=$?
    for pid in ${PIDS[@]+"${PIDS[@]}"}; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    if [[ $status -ne 0 ]]; then tail -n 20 "$WORK"/*.log >&2 2>/dev/null || true; echo "client example: FAILED" >&2; fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
cd "$WORK"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {
    for _ in $(seq 300); do curl -s -o /dev/null --max-time 2 "$1" && return 0; sleep 0.1; done
    echo "client example: $1 did not answer within 30 s" >&2; return 1
}
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

export VOUCH_ADMIN_TOKEN="client-example-admin-token-0123456789"
VOUCH_URL="http://127.0.0.1:$(port)"
IDP_PORT="$(port)"
"$BIN/vouch" serve --port "${VOUCH_URL##*:}" --data-dir "$WORK/data" > serve.log 2>&1 &
PIDS+=($!)
wait_for "$VOUCH_URL/health"

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
wait_for "http://127.0.0.1:$IDP_PORT/"

"$BIN/vouch-client-example" --server "$VOUCH_URL" --app-id "$APP" --backend "http://127.0.0.1:$IDP_PORT" \
    --admin-token "$VOUCH_ADMIN_TOKEN" < /dev/null | tee example.log
grep -q "after revocation the server says: alice" example.log
grep -q "switched to bob - the server says: bob" example.log
grep -q "signed out: confirmed" example.log
grep -q "state: re-authenticating alice" example.log
grep -q "state: signed in as bob" example.log
grep -q "(this device)" example.log
echo "client example: OK"
