#!/usr/bin/env bash
# The test command of the README's quick start: checks the formatting (.swift-format), builds
# everything once and the DocC catalogues without warnings, runs the README's
# end-to-end walkthrough against the built binary, the client example, the example chat service's
# scenarios, an app that links only the SDK (it must resolve no other package), then every test
# suite from that build, then
# the dashboard in a real browser (Chromium + selenium), then the OpenAPI document against the
# running servers (schemathesis); each of the last two skipped without its tools, failed in CI.
set -euo pipefail
cd "$(dirname "$0")/.."

swift format lint --strict --recursive --configuration .swift-format Sources Tests Examples Package.swift
swift build --build-tests
bash scripts/docs.sh
python3 scripts/check_walkthrough.py
bash scripts/walkthrough.sh .build/debug/vouch
bash scripts/client_example.sh .build/debug
# The example chat service's scenarios: two instances on a throwaway PostgreSQL cluster (skipped
# without PostgreSQL, failed in CI).
bash scripts/chat_demo.sh .build/debug
bash scripts/sdk_package.sh
# At most 24 tests at once: started all together, hundreds of tests share two cores and one
# PostgreSQL server, and a test's own time limits and timeouts run from its start while it waits.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=24 swift test --skip-build
python3 Tests/browser/test_dashboard.py .build/debug/vouch
bash scripts/schemathesis.sh .build/debug/vouch
