#!/usr/bin/env bash
# Builds the DocC catalogues of the libraries apps, backends and their other services link
# (VouchClient and its WebSocket transport, VouchTokens, VouchStore, VouchResourceServer and its Hummingbird middleware) with
# warnings as errors: a broken symbol link or an undocumented topic fails the test command. Output
# in .build/docs/<target>.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .build/docs && mkdir -p .build/docs
for target in VouchClient VouchClientWebSocket VouchTokens VouchStore VouchResourceServer VouchResourceServerHummingbird; do
  swift package --allow-writing-to-directory .build/docs generate-documentation --target "$target" \
    --warnings-as-errors --output-path ".build/docs/$target" >/dev/null
  echo "docs: $target built without warnings"
done
