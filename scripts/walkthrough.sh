#!/usr/bin/env bash
# The README's end-to-end walkthrough (README.md, "Walkthrough"), run for real against a freshly
# started server: start `vouch serve`, set up an app, a provider and a key with the admin API,
# start the development identity provider, sign a user in, call an authenticated route, sign out
# and see the authentication challenge.
#
#   bash scripts/walkthrough.sh [path/to/vouch]      (default: .build/debug/vouch)
#
# Needs only curl, python3 and the vouch binary. Works in a temporary directory, which is removed
# on exit together with the servers it started. Prints "walkthrough: OK" when every step answered
# the HTTP status it should; otherwise exits non-zero naming the step that went wrong.
#
# The commands below are the ones in README.md, word for word (scripts/check_walkthrough.py checks). The only additions are the
# `step` lines (what the next request must answer), the `curl` wrapper that checks it, and the
# bookkeeping of background processes.
set -euo pipefail
# shellcheck source=lib/background.sh
source "$(cd "$(dirname "$0")" && pwd)/lib/background.sh"
begin_script walkthrough walkthrough

VOUCH_BIN="${1:-.build/debug/vouch}"
[[ -x "$VOUCH_BIN" ]] || fail "no executable vouch binary at $VOUCH_BIN (build it with: swift build --product vouch)"
VOUCH_BIN="$(cd "$(dirname "$VOUCH_BIN")" && pwd)/$(basename "$VOUCH_BIN")"
command -v curl >/dev/null || fail "curl is required"
command -v python3 >/dev/null || fail "python3 is required"

cd "$WORK"

# `vouch` in the commands below is the binary under test (a link on PATH rather than a shell
# function, so that `vouch serve &` leaves the server's own pid in $! for the cleanup to stop).
mkdir bin
ln -s "$VOUCH_BIN" bin/vouch
PATH="$WORK/bin:$PATH"

# The step being run and the HTTP status its request must answer.
STEP="(none)"
EXPECT=""
step() {
    EXPECT="$1"
    STEP="$2"
    echo "== $STEP (expect HTTP $EXPECT)" >&2
}

# Wraps curl so that each documented command also checks the status `step` announced: the body
# (with headers, for -i) is printed only when the status is the expected one.
curl() {
    local body status
    body="$(mktemp "$WORK/body.XXXXXX")"
    if ! status="$(command curl -sS --max-time 30 -o "$body" -w '%{http_code}' "$@")"; then
        fail "$STEP: the request did not complete (is the server still running?)"
    fi
    if [[ "$status" != "$EXPECT" ]]; then
        echo "the body was: $(cat "$body")" >&2
        fail "$STEP: expected HTTP $EXPECT, got $status"
    fi
    cat "$body"
    rm -f "$body"
}

# Waits (at most 30 s) until the process is listening, i.e. GET URL/health or any answer arrives.
wait_until_listening() {
    local pid="$1" url="$2" name="$3"
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || fail "$name exited before it listened"
        if command curl -s -o /dev/null --max-time 2 "$url"; then return 0; fi
        sleep 0.1
    done
    fail "$name did not listen on $url within 30 s"
}

PORT="$(free_port 18080)"
IDP_PORT="$(free_port 18090)"
[[ "$PORT" != "$IDP_PORT" ]] || IDP_PORT="$(free_port 0)"

# ---- 1. start the server ------------------------------------------------------------------
VOUCH_URL=http://127.0.0.1:$PORT
IDP_URL=http://127.0.0.1:$IDP_PORT
echo "== starting vouch serve on $VOUCH_URL" >&2
vouch serve --port $PORT > serve.log 2>&1 &
PIDS+=($!)
sleep 1
wait_until_listening "$!" "$VOUCH_URL/health" "vouch serve"

step 200 "health check"
curl -s $VOUCH_URL/health | python3 -m json.tool

# ---- 2. the admin token, generated on first start -----------------------------------------
[[ -f vouch-data/admin-token ]] || fail "vouch serve did not write vouch-data/admin-token"
ADMIN=$(cat vouch-data/admin-token)

# ---- 3. an app, a provider, bound together, and a key -------------------------------------
step 201 "create an app"
APP=$(curl -s -X POST $VOUCH_URL/admin/apps \
  -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
  -d '{"name": "Demo app"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"].split("/")[-1])')
echo "APP=$APP" >&2

step 201 "create a provider"
PROVIDER=$(curl -s -X POST $VOUCH_URL/admin/providers \
  -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
  -d '{"name": "Demo backend"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"].split("/")[-1])')
echo "PROVIDER=$PROVIDER" >&2

step 204 "bind the provider to the app"
curl -s -X PUT $VOUCH_URL/admin/providers/$PROVIDER/apps/$APP \
  -H "Authorization: Bearer $ADMIN"

step 201 "generate a key for the provider"
KEY=$(curl -s -X POST $VOUCH_URL/admin/providers/$PROVIDER/keys \
  -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
  -d '{"generate": true}' | python3 -c 'import json,os,sys; k=json.load(sys.stdin); f=os.open("private.pem", os.O_WRONLY|os.O_CREAT|os.O_TRUNC, 0o600); os.write(f, k["private_key"].encode()); print(k["id"].split("/")[-1])')
echo "KEY=$KEY" >&2
grep -q "BEGIN PRIVATE KEY" private.pem || fail "private.pem does not hold the generated private key"

# ---- 4. the development identity provider (the app's backend) -----------------------------
echo "== starting vouch identity-provider on $IDP_URL" >&2
vouch identity-provider --provider-id $PROVIDER --key-id $KEY --private-key private.pem --port $IDP_PORT > idp.log 2>&1 &
PIDS+=($!)
sleep 1
wait_until_listening "$!" "$IDP_URL/" "vouch identity-provider"

# ---- 5. sign in ---------------------------------------------------------------------------
step 201 "get a nonce"
NONCE=$(curl -s -X POST $VOUCH_URL/nonces | python3 -c 'import json,sys; print(json.load(sys.stdin)["nonce"])')

step 201 "ask the identity provider for an identity token"
EIT=$(curl -s -X POST $IDP_URL/identity_tokens -H 'Content-Type: application/json' \
  -d "{\"app_id\": \"$APP\", \"user_id\": \"alice\", \"nonce\": \"$NONCE\", \"display_name\": \"Alice\"}" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["identity_token"])')

step 201 "exchange it for a session"
SESSION=$(curl -s -X POST $VOUCH_URL/sessions -H 'Content-Type: application/json' \
  -d "{\"identity_token\": \"$EIT\", \"app_id\": \"$APP\"}" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["session_token"])')

# ---- 6. an authenticated request ----------------------------------------------------------
step 200 "who am I"
curl -s $VOUCH_URL/users/me -H "Authorization: Layer session-token=\"$SESSION\"" | python3 -m json.tool

# ---- 7. sign out, and the challenge that follows ------------------------------------------
step 204 "sign out"
curl -s -X DELETE $VOUCH_URL/sessions/$SESSION

step 401 "the ended session is answered with the authentication challenge"
curl -s -i $VOUCH_URL/users/me -H "Authorization: Layer session-token=\"$SESSION\""
echo

echo "walkthrough: OK"
