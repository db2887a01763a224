#!/usr/bin/env bash
# The benchmark command of docs/PERFORMANCE.md: the floor (OpenSSL's RSA-2048) and Vouch's own
# figures, in one run on one machine, from a release build. With VOUCH_BENCH_DATABASE_URL set to a
# PostgreSQL server (e.g. from scripts/pg-cluster.sh), the HTTP figures are also measured on
# PostgreSQL, with one and with two server instances.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-3}"

# A scratch path of its own, so the release build never invalidates the debug build the tests use.
swift build -c release --scratch-path .build-release --product vouch-benchmark
echo "== machine"
uname -srm
grep -m1 "model name" /proc/cpuinfo 2>/dev/null || sysctl -n machdep.cpu.brand_string 2>/dev/null || true
echo "== floor: openssl speed rsa2048 (one core)"
openssl speed -seconds "$seconds" rsa2048 2>/dev/null | tail -n 2
echo "== vouch"
.build-release/release/vouch-benchmark "$seconds"
