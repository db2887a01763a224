#!/usr/bin/env bash
# Proves the hand-written OpenAPI document (Sources/VouchServer/OpenAPI/openapi.json) against the
# running servers with schemathesis: every answer must have a documented status, content type,
# headers and body, and none may be a 5xx.
#
#   bash scripts/schemathesis.sh [path/to/vouch]      (default: .build/debug/vouch)
#
# Starts `vouch serve` on 127.0.0.1 (a free port, a temporary data directory, a known admin
# token), seeds an app, a provider bound to it with a generated key, a registration secret, a
# signed-in user and a dashboard session so that fuzzed requests reach more than 404s, starts
# `vouch identity-provider` with that key, runs schemathesis against each (the server's document
# fetched from the server itself, at /openapi.json), then stops both and removes the directory.
#
# Bounded: SCHEMATHESIS_MAX_EXAMPLES cases per operation and phase (default 100; about two
# minutes in all on two cores). SCHEMATHESIS_SEED fixes the generated data (default: a fixed
# seed, so that CI runs are reproducible; "random" explores). Without schemathesis installed it
# skips, except in CI (CI=true), where it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/background.sh
source scripts/lib/background.sh
begin_script schemathesis schemathesis 30

VOUCH_BIN="${1:-.build/debug/vouch}"
[[ -x "$VOUCH_BIN" ]] || fail "no executable vouch binary at $VOUCH_BIN (build it with: swift build --product vouch)"
VOUCH_BIN="$(cd "$(dirname "$VOUCH_BIN")" && pwd)/$(basename "$VOUCH_BIN")"
# Through the python3 whose pip installed it (.ci/run), whatever PATH holds.
if ! python3 -c "import schemathesis" 2>/dev/null; then
    [[ "${CI:-}" == "true" ]] && fail "schemathesis is not installed (python3 -m pip install schemathesis)"
    echo "schemathesis: SKIPPED: not installed (python3 -m pip install schemathesis); CI fails instead" >&2
    exit 0
fi
command -v curl >/dev/null || fail "curl is required"

MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-100}"
SEED="${SCHEMATHESIS_SEED:-20261123}"

# Waits (bounded) for a server's "listening on http://127.0.0.1:PORT" line and prints the port.
port_of() {
    local log="$1" pid="$2" port=""
    for _ in $(seq 600); do
        port="$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)"
        [[ -n "$port" ]] && { echo "$port"; return 0; }
        kill -0 "$pid" 2>/dev/null || fail "the server exited before listening (see $(basename "$log"))"
        sleep 0.1
    done
    fail "the server did not start listening within 60 s"
}

# JSON member of the answer on standard input.
member() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

ADMIN_TOKEN="vat_schemathesis_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export VOUCH_ADMIN_TOKEN="$ADMIN_TOKEN"
# A low rate limit, so that the fuzzer also meets the 429s of POST /nonces and POST /sessions.
"$VOUCH_BIN" serve --host 127.0.0.1 --port 0 --data-dir "$WORK/data" --rate-limit 10 --log-level warning \
    > "$WORK/serve.log" 2>&1 &
PIDS+=($!)
PORT="$(port_of "$WORK/serve.log" "${PIDS[0]}")"
BASE="http://127.0.0.1:$PORT"

admin() {
    local method="$1" path="$2" body="${3:-}"
    curl -sS --fail-with-body -X "$method" -H "Authorization: Bearer $ADMIN_TOKEN" \
        ${body:+-H "Content-Type: application/json" --data "$body"} "$BASE$path"
}
bare() { sed 's|^layer:///[a-z]*/||'; }

APP_ID="$(admin POST /admin/apps '{"name": "Schemathesis"}' | member id)"
APP="$(bare <<< "$APP_ID")"
PROVIDER_ID="$(admin POST /admin/providers '{"name": "Schemathesis backend"}' | member id)"
PROVIDER="$(bare <<< "$PROVIDER_ID")"
admin PUT "/admin/providers/$PROVIDER/apps/$APP" >/dev/null
admin POST "/admin/providers/$PROVIDER/keys" '{"generate": true}' > "$WORK/key.json"
KEY_ID="$(member id < "$WORK/key.json")"
KEY="$(bare <<< "$KEY_ID")"
member private_key < "$WORK/key.json" > "$WORK/private.pem"
admin POST "/admin/apps/$APP/registration-secrets" > "$WORK/secret.json"
APPLICATION_KEY="$(member application_key < "$WORK/secret.json")"
APPLICATION_SECRET="$(member application_secret < "$WORK/secret.json")"

# A signed-in user, for the session-token scheme (GET /users/me).
NONCE="$(curl -sS --fail-with-body -X POST -H "Content-Type: application/json" --data "{\"app_id\": \"$APP_ID\"}" "$BASE/nonces" | member nonce)"
IDENTITY_TOKEN="$("$VOUCH_BIN" token mint --provider-id "$PROVIDER_ID" --key-id "$KEY_ID" --private-key "$WORK/private.pem" \
    --user-id schemathesis-user --nonce "$NONCE")"
SESSION_TOKEN="$(curl -sS --fail-with-body -X POST -H "Content-Type: application/json" \
    --data "{\"identity_token\": \"$IDENTITY_TOKEN\", \"app_id\": \"$APP_ID\"}" "$BASE/sessions" | member session_token)"
admin PATCH "/admin/apps/$APP/users/schemathesis-suspended" '{"suspended": true}' >/dev/null
# The erasure gets a user of its own: erasing the session's user would leave the fuzzer nothing signed in.
admin PATCH "/admin/apps/$APP/users/schemathesis-erased" '{"suspended": true}' >/dev/null

# A dashboard session (the sign-in form's double-submit cookie and token, then the session
# cookie and the CSRF token its pages carry), so that the dashboard's forms are fuzzed signed in.
JAR="$WORK/cookies.txt"
csrf_of() { sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -n 1; }
SIGN_IN_CSRF="$(curl -sS --fail-with-body -c "$JAR" "$BASE/dashboard/sign-in" | csrf_of)"
curl -sS -o /dev/null -b "$JAR" -c "$JAR" --data-urlencode "csrf=$SIGN_IN_CSRF" --data-urlencode "admin_token=$ADMIN_TOKEN" \
    "$BASE/dashboard/sign-in"
DASHBOARD_COOKIE="$(awk '$6 == "vouch_dashboard" { print $7 }' "$JAR")"
[[ -n "$DASHBOARD_COOKIE" ]] || fail "could not sign in to the dashboard"
DASHBOARD_CSRF="$(curl -sS --fail-with-body -b "$JAR" "$BASE/dashboard/apps" | csrf_of)"
[[ -n "$DASHBOARD_CSRF" ]] || fail "no CSRF token on the dashboard's apps page"

"$VOUCH_BIN" identity-provider --provider-id "$PROVIDER_ID" --key-id "$KEY_ID" --private-key "$WORK/private.pem" \
    --registration-key "$APPLICATION_KEY" --registration-secret "$APPLICATION_SECRET" --port 0 > "$WORK/identity-provider.log" 2>&1 &
PIDS+=($!)
IDP_PORT="$(port_of "$WORK/identity-provider.log" "${PIDS[1]}")"

# Every security scheme gets a real credential; path parameters are usually (not always) the
# seeded objects, so that the fuzzer reaches the 2xx answers and their bodies, not only 404s.
# Dashboard posts carry the session's CSRF token, except sign-out, which would end the session
# the other operations use (it gets a wrong token: 403, and the session lives on).
export SCHEMATHESIS_ADMIN_TOKEN="$ADMIN_TOKEN" SCHEMATHESIS_SESSION_TOKEN="$SESSION_TOKEN" \
    SCHEMATHESIS_DASHBOARD_COOKIE="$DASHBOARD_COOKIE" SCHEMATHESIS_DASHBOARD_CSRF="$DASHBOARD_CSRF"
cat > "$WORK/schemathesis.toml" <<EOF
# Nothing kept between runs (and nothing written into the repository).
cache = { enabled = false }

[auth.openapi.AdminToken]
bearer = "\${SCHEMATHESIS_ADMIN_TOKEN}"

[auth.openapi.SessionToken]
bearer = "\${SCHEMATHESIS_SESSION_TOKEN}"

[auth.openapi.DashboardSession]
api_key = "\${SCHEMATHESIS_DASHBOARD_COOKIE}"

[dictionaries.apps]
values = ["$APP"]
[dictionaries.providers]
values = ["$PROVIDER"]
[dictionaries.users]
values = ["schemathesis-user", "schemathesis-suspended"]
[dictionaries.erased_users]
values = ["schemathesis-erased"]
[dictionaries.keys]
values = ["$KEY"]
[dictionaries.application_keys]
values = ["$APPLICATION_KEY"]
[dictionaries.assets]
values = ["dashboard.css", "keygen.js"]
[dictionaries.provider_ids]
values = ["$PROVIDER_ID", "$PROVIDER"]
[dictionaries.app_ids]
values = ["$APP_ID", "$APP"]

[parameters]
"path.app" = { dictionary = "apps", probability = 0.7 }
"path.provider" = { dictionary = "providers", probability = 0.7 }
"path.user" = { dictionary = "users", probability = 0.5 }
"body.app_id" = { dictionary = "app_ids", probability = 0.7 }
"path.file" = { dictionary = "assets", probability = 0.7 }
"query.id" = { dictionary = "provider_ids", probability = 0.7 }
"query.app" = { dictionary = "apps", probability = 0.7 }
"query.user" = { dictionary = "users", probability = 0.7 }
"body.app" = { dictionary = "apps", probability = 0.7 }
"body.user" = { dictionary = "users", probability = 0.7 }
"body.user_id" = { dictionary = "users", probability = 0.5 }

[[operations]]
include-tag = "dashboard"
exclude-name = "POST /dashboard/sign-out"
headers = { X-CSRF-Token = "\${SCHEMATHESIS_DASHBOARD_CSRF}" }

[[operations]]
include-name = "POST /dashboard/sign-out"
headers = { X-CSRF-Token = "not-the-session-token" }

[[operations]]
include-name = "DELETE /admin/apps/{app}/users/{user}"
parameters = { "path.user" = { dictionary = "erased_users", probability = 0.7 } }

[[operations]]
include-path-regex = '/keys/\{key\}'
parameters = { "path.key" = { dictionary = "keys", probability = 0.7 } }

[[operations]]
include-path-regex = 'secrets/\{key\}'
parameters = { "path.key" = { dictionary = "application_keys", probability = 0.7 } }
EOF

CHECKS="not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance"
SEED_ARGS=()
[[ "$SEED" != "random" ]] && SEED_ARGS=(--seed "$SEED")
# One worker: with two, hypothesis describes its filters by parsing their source on two threads
# at once, and CPython's parser can fail doing that ("AST constructor recursion depth mismatch",
# a runtime error of the tool, not an answer outside the document), which failed a CI run.
run_schemathesis() {
    local name="$1"; shift
    echo "schemathesis: $name" >&2
    python3 -m schemathesis.cli --no-color --config-file "$WORK/schemathesis.toml" run \
        --checks "$CHECKS" --max-examples "$MAX_EXAMPLES" ${SEED_ARGS[@]+"${SEED_ARGS[@]}"} \
        --workers 1 --request-timeout 10 --max-redirects 0 --suppress-health-check all \
        --output-truncate true --report junit --report-dir "$WORK/report" "$@" \
        || fail "$name: schemathesis reported responses outside the OpenAPI document (above)"
}

# vouch serve, its document as it serves it (which is also what proves it serves the repo's file).
run_schemathesis "vouch serve at $BASE" "$BASE/openapi.json" --exclude-tag identity-provider
# schemathesis leaves out the operation a document was fetched from: GET /openapi.json, from the file.
run_schemathesis "GET /openapi.json" "Sources/VouchServer/OpenAPI/openapi.json" --url "$BASE" --include-path /openapi.json
# vouch identity-provider, from the same document (its paths name their own server).
run_schemathesis "vouch identity-provider" "Sources/VouchServer/OpenAPI/openapi.json" \
    --url "http://127.0.0.1:$IDP_PORT" --include-tag identity-provider

echo "schemathesis: OK"
