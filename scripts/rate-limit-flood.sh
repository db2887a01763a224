#!/usr/bin/env bash
# The rate limiter under a flood of new client addresses (docs/PERFORMANCE.md, "The request
# path"): builds `vouch` in release mode (in .build-release) and runs scripts/rate_limit_flood.py,
# the limiter off and on, alternating. Needs wrk (apt-get install wrk).
#
#   ./scripts/rate-limit-flood.sh [--seconds 10] [--pairs 2]
#   ./scripts/rate-limit-flood.sh --smoke   # one second each on the debug build (CI): it measures
#                                           # nothing, but fails if a new address is ever refused
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "rate-limit-flood.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
if [[ " $* " == *" --smoke "* ]]; then
  swift build --product vouch >/dev/null
  exec python3 scripts/rate_limit_flood.py --bin .build/debug "$@"
fi
swift build -c release --scratch-path .build-release --product vouch >/dev/null
exec python3 scripts/rate_limit_flood.py --bin .build-release/release "$@"
