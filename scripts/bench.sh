#!/usr/bin/env bash
# The benchmark command of docs/PERFORMANCE.md. Builds `vouch` and `vouch-benchmark` in release
# mode (in .build-release, so the tests' debug build is left alone), then runs scripts/bench.py:
# floors and Vouch's figures in one run on one machine. Needs wrk (apt-get install wrk).
#
#   ./scripts/bench.sh [--seconds 10] [--signins 40000] [--connections 64] [--rounds 3]
#   ./scripts/bench.sh --smoke      # tiny counts on the debug build: proves it runs (CI)
#   ./scripts/bench.sh --live-sockets 10000   # the live channel's sockets instead (docs/PERFORMANCE.md)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "bench.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
if [[ " $* " == *" --smoke "* ]]; then
  swift build --product vouch-benchmark >/dev/null
  exec python3 scripts/bench.py --bin .build/debug "$@"
fi
swift build -c release --scratch-path .build-release --product vouch
swift build -c release --scratch-path .build-release --product vouch-benchmark
exec python3 scripts/bench.py --bin .build-release/release "$@"
