#!/usr/bin/env bash
# A flood of POST /nonces from a new client address every request (X-Forwarded-For from a trusted
# proxy), against the release `vouch serve` with and without its rate limiter: what the limiter's
# table of clients costs when it is always full and always turning over (docs/PERFORMANCE.md,
# "2026-11-26, night"). Needs wrk; prints, for each run, the server's CPU a request (utime +
# stime from /proc), its resident memory before and after, and wrk's latency distribution.
#
#   ./scripts/rate-limit-flood.sh [SECONDS (10)] [PAIRS (2)]
#   ./scripts/rate-limit-flood.sh --smoke   # one second each on the debug build (CI): it measures
#                                           # nothing, but fails if a new address is ever refused
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "rate-limit-flood.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
if [[ "${1:-}" == "--smoke" ]]; then
  seconds=1 pairs=1 bin=.build/debug
  swift build --product vouch >/dev/null
else
  seconds=${1:-10} pairs=${2:-2} bin=.build-release/release
  swift build -c release --scratch-path .build-release --product vouch >/dev/null
fi
ticks_per_second=$(getconf CLK_TCK)
# A run that stops half-way (set -e) leaves no server behind.
server=""
trap '[[ -n "$server" ]] && kill "$server" 2>/dev/null; true' EXIT

run() {  # RATE_LIMIT PORT
  local data pid before after rss_before rss_after requests
  data=$(mktemp -d)
  "$bin/vouch" serve --port "$2" --data-dir "$data" --rate-limit "$1" \
      --trusted-proxy 127.0.0.1 --log-level error >"$data/server.log" 2>&1 &
  pid=$!
  server=$pid
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$2/health" && break; sleep 0.1; done
  before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  rss_before=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  wrk -t2 -c64 -d"${seconds}s" --latency -s scripts/bench/new-address-each-request.lua \
      "http://127.0.0.1:$2/" >"$data/wrk.txt"
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  rss_after=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  requests=$(awk '/requests in/ {print $1}' "$data/wrk.txt")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  server=""
  python3 -c "print(f'--rate-limit $1: {$requests} requests, {($after - $before) * 1e6 / $ticks_per_second / $requests:.1f} µs CPU a request, resident {$rss_before // 1024} -> {$rss_after // 1024} MB')"
  grep -E 'Latency  |  50%|  99%' "$data/wrk.txt" || true
  # Every request comes from an address never seen before, so none may be refused, limiter or not.
  if [[ "${requests:-0}" -eq 0 ]] || grep -qE 'Non-2xx|Socket errors' "$data/wrk.txt"; then
    echo "rate-limit-flood.sh: requests were refused or failed:" >&2
    cat "$data/wrk.txt" >&2
    rm -rf "$data"
    exit 1
  fi
  rm -rf "$data"
}

for pair in $(seq 1 "$pairs"); do
  run 0 $((8400 + 2 * pair))
  run 50 $((8401 + 2 * pair))
done
