#!/usr/bin/env bash
# An app that links only VouchClient, as the README shows (`traits: []`): it must resolve no package
# besides this one, and build and run with nothing but Foundation. Part of ./scripts/test.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/App/Sources/App"
# A path dependency's identity is its folder's name (a clone may not be called "vouch").
identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
cat > "$work/App/Package.swift" <<EOF
// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(path: "$root", traits: [])],
    targets: [.executableTarget(name: "App", dependencies: [.product(name: "VouchClient", package: "$identity")])]
)
EOF
cat > "$work/App/Sources/App/main.swift" <<'EOF'
import Foundation
import VouchClient

let storage = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-sdk-package-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: storage) }
let client = try VouchClient(
    serverURL: URL(string: "https://vouch.example.com")!, appID: "layer:///apps/\(UUID().uuidString)",
    configuration: .init(storageDirectory: storage))
print("state:", client.currentState)
EOF
cd "$work/App"
swift package resolve >/dev/null
fetched=$(ls .build/checkouts 2>/dev/null | wc -l)
if [ "$fetched" != 0 ]; then
  echo "sdk package: an app linking VouchClient resolved $fetched other packages:" >&2
  ls .build/checkouts >&2
  exit 1
fi
swift build --product App >/dev/null
output=$(.build/debug/App)
[ "$output" = "state: signedOut" ] || { echo "sdk package: the app printed \"$output\"" >&2; exit 1; }
echo "sdk package: OK (an app linking VouchClient resolves no other package)"
