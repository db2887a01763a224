// swift-tools-version:6.2
import PackageDescription

/// Every target is built in the Swift 6 language mode (strict concurrency checking is part of it).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// Everything but the client SDK depends on the server's packages only through the `Server` trait,
/// on by default: an app that links `VouchClient` declares this package with `traits: []` and
/// resolves none of them (VouchClient, VouchProtocol and VouchSupport need Foundation alone).
func server(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Server"]))
}

let package = Package(
    name: "vouch",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "VouchProtocol", targets: ["VouchProtocol"]),
        .library(name: "VouchTokens", targets: ["VouchTokens"]),
        .library(name: "VouchStore", targets: ["VouchStore"]),
        .library(name: "VouchStoreSQLite", targets: ["VouchStoreSQLite"]),
        .library(name: "VouchStorePostgres", targets: ["VouchStorePostgres"]),
        .library(name: "VouchServer", targets: ["VouchServer"]),
        .library(name: "VouchClient", targets: ["VouchClient"]),
        .library(name: "VouchResourceServer", targets: ["VouchResourceServer"]),
        .library(name: "VouchResourceServerHummingbird", targets: ["VouchResourceServerHummingbird"]),
        .library(name: "VouchClientWebSocket", targets: ["VouchClientWebSocket"]),
        .executable(name: "vouch", targets: ["vouch"]),
    ],
    traits: [
        .trait(name: "Server", description: "The server, its stores, CLI and tests: every dependency beyond Foundation."),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        // The example chat server's WebSocket routes (Examples/Chat).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // `swift package generate-documentation`: the DocC catalogues, built by scripts/docs.sh.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // What the package's modules share that is no part of any product's API: a lock, a bounded
        // table, byte-wise string comparison, UUID and hex text. The SDK re-exports VouchProtocol
        // only, so none of this reaches an app.
        .target(
            name: "VouchSupport",
            swiftSettings: strict
        ),
        .target(
            name: "VouchProtocol",
            dependencies: ["VouchSupport"],
            swiftSettings: strict
        ),
        .target(
            name: "VouchTokens",
            dependencies: [
                "VouchProtocol",
                "VouchSupport",
                server("Crypto", "swift-crypto"),
                server("_CryptoExtras", "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The storage contract alone: protocol, records, errors. No database, no crypto.
        .target(
            name: "VouchStore",
            dependencies: ["VouchProtocol"],
            swiftSettings: strict
        ),
        .target(
            name: "VouchStoreSQLite",
            dependencies: [
                "VouchStore",
                "VouchProtocol",
                "VouchSupport",
                server("SQLiteNIO", "sqlite-nio"),
                server("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "VouchStorePostgres",
            dependencies: [
                "VouchStore",
                "VouchProtocol",
                "VouchSupport",
                server("PostgresNIO", "postgres-nio"),
                server("Logging", "swift-log"),
                server("NIOCore", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOSSL", "swift-nio-ssl"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // Test-only libraries: the checks every backend must pass, and helpers shared by test targets.
        .target(
            name: "VouchTestSupport",
            swiftSettings: strict
        ),
        // A fresh PostgreSQL database per test: apart, so that a test target without PostgreSQL
        // links no database driver.
        .target(
            name: "VouchPostgresTestSupport",
            dependencies: [
                "VouchStorePostgres",
                server("PostgresNIO", "postgres-nio"),
                server("NIOSSL", "swift-nio-ssl"),
                server("NIOPosix", "swift-nio"),
                server("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Two instances on one PostgreSQL database, one clock ahead, sign-ins racing cutoffs: run
        // short by the tests, long by the benchmark.
        .target(
            name: "VouchCutoffRace",
            dependencies: [
                "VouchLiveTestSupport",
                "VouchServer",
                server("PostgresNIO", "postgres-nio"),
                "VouchStorePostgres",
                "VouchTokens",
                server("AsyncHTTPClient", "async-http-client"),
                server("Hummingbird", "hummingbird"),
                server("Logging", "swift-log"),
                server("NIOCore", "swift-nio"),
                server("NIOFoundationCompat", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // A real WebSocket client of the live channel, for the tests and the benchmark.
        // A provider's key source on 127.0.0.1 (a JWKS and a discovery document the test
        // changes) and the keys it publishes, for the server's and the SDK's tests.
        .target(
            name: "VouchKeySourceTestSupport",
            dependencies: [
                "VouchTestSupport",
                "VouchTokens",
                server("Hummingbird", "hummingbird"),
                server("Crypto", "swift-crypto"),
                server("_CryptoExtras", "swift-crypto"),
                server("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "VouchLiveTestSupport",
            dependencies: [
                server("WSClient", "swift-websocket"),
                server("NIOWebSocket", "swift-nio"),
                server("HTTPTypes", "swift-http-types"),
                server("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "VouchStoreConformance",
            dependencies: ["VouchStore", "VouchProtocol", "VouchTestSupport"],
            swiftSettings: strict
        ),
        .target(
            name: "VouchServer",
            dependencies: [
                "VouchProtocol",
                "VouchSupport",
                "VouchTokens",
                "VouchStore",
                server("Hummingbird", "hummingbird"),
                server("HummingbirdCore", "hummingbird"),
                server("Logging", "swift-log"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                // Webhook deliveries: TLS to the one address the outbound policy checked.
                server("NIOSSL", "swift-nio-ssl"),
                server("NIOWebSocket", "swift-nio"),
                // The WebSocket protocol (frames, pings, closing) under the live channel; its
                // `WebSocketHandler` is the one Hummingbird's own WebSocket server runs.
                server("WSCore", "swift-websocket"),
                server("NIOHTTPTypesHTTP1", "swift-nio-extras"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Crypto", "swift-crypto"),
                server("_CryptoExtras", "swift-crypto"),
                server("Mustache", "swift-mustache"),
                server("CoreMetrics", "swift-metrics"),
                server("Prometheus", "swift-prometheus"),
            ],
            // The OpenAPI document is compiled into the binary (`PackageResources.openapi_json`):
            // `GET /openapi.json` needs no file beside the executable, and cannot drift from the repo's copy.
            resources: [.embedInCode("OpenAPI/openapi.json")],
            swiftSettings: strict
        ),
        // The stand-in for an app's backend: it signs a token for any user it is asked for, so it
        // is kept out of every library product (a production server never links it).
        .target(
            name: "VouchDevelopmentIdentityProvider",
            dependencies: [
                "VouchProtocol",
                "VouchTokens",
                "VouchServer",
                server("Hummingbird", "hummingbird"),
                server("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "vouch",
            dependencies: [
                "VouchProtocol",
                "VouchTokens",
                "VouchServer",
                "VouchDevelopmentIdentityProvider",
                "VouchStore",
                "VouchStoreSQLite",
                "VouchStorePostgres",
                server("ArgumentParser", "swift-argument-parser"),
                server("AsyncHTTPClient", "async-http-client"),
                server("Hummingbird", "hummingbird"),
                server("Logging", "swift-log"),
                server("NIOCore", "swift-nio"),
                server("NIOFoundationCompat", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "vouch-benchmark",
            dependencies: [
                "VouchCutoffRace",
                "VouchResourceServer",
                "VouchLiveTestSupport",
                "VouchProtocol",
                "VouchTokens",
                "VouchServer",
                "VouchStore",
                "VouchStoreSQLite",
                "VouchStorePostgres",
                server("AsyncHTTPClient", "async-http-client"),
                server("Hummingbird", "hummingbird"),
                server("Logging", "swift-log"),
                server("NIOCore", "swift-nio"),
                server("NIOFoundationCompat", "swift-nio"),
                server("_CryptoExtras", "swift-crypto"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOEmbedded", "swift-nio"),
            ],
            path: "Sources/VouchBenchmark",
            swiftSettings: strict
        ),
        // The client SDK: Foundation and VouchProtocol only, so that it builds for Apple platforms too.
        .target(
            name: "VouchClient",
            dependencies: ["VouchProtocol"],
            swiftSettings: strict
        ),
        // For an app's other services (a chat server, a media relay): Vouch's access tokens verified
        // offline against its JWKS, and its stream of session endings followed. No other target of
        // this package, so that a service links it alone.
        .target(
            name: "VouchResourceServer",
            dependencies: [
                server("Crypto", "swift-crypto"),
                server("AsyncHTTPClient", "async-http-client"),
                server("Logging", "swift-log"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "VouchResourceServerHummingbird",
            dependencies: [
                "VouchResourceServer",
                server("Hummingbird", "hummingbird"),
                // Hummingbird's own lifecycle: the stream follower runs as one of the app's services.
                server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The client's live channel over swift-websocket (SwiftNIO), for Linux and for apps
        // that do not use URLSession: FoundationNetworking's WebSockets need a libcurl with them.
        .target(
            name: "VouchClientWebSocket",
            dependencies: [
                "VouchClient",
                server("WSClient", "swift-websocket"),
                server("NIOWebSocket", "swift-nio"),
                server("HTTPTypes", "swift-http-types"),
                server("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The example chat service (Examples/Chat, scripts/chat_demo.sh): what its server and
        // its terminal client say to each other, the server, and the client.
        .target(
            name: "ChatWire",
            path: "Examples/Chat/Wire",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "chat-server",
            dependencies: [
                "ChatWire",
                "VouchResourceServer",
                "VouchResourceServerHummingbird",
                server("Hummingbird", "hummingbird"),
                server("HummingbirdWebSocket", "hummingbird-websocket"),
                server("ArgumentParser", "swift-argument-parser"),
                server("Logging", "swift-log"),
                server("NIOCore", "swift-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            path: "Examples/Chat/Server",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "chat-client",
            dependencies: [
                "ChatWire",
                "VouchClient",
                "VouchClientWebSocket",
                server("WSClient", "swift-websocket"),
                server("NIOWebSocket", "swift-nio"),
                server("HTTPTypes", "swift-http-types"),
                server("ArgumentParser", "swift-argument-parser"),
                server("Logging", "swift-log"),
            ],
            path: "Examples/Chat/Client",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "vouch-client-example",
            dependencies: ["VouchClient"],
            path: "Examples/SignIn",
            swiftSettings: strict
        ),
        .testTarget(
            name: "VouchClientTests",
            dependencies: [
                "VouchClient",
                "VouchClientWebSocket",
                "VouchKeySourceTestSupport",
                "VouchDevelopmentIdentityProvider",
                "VouchProtocol",
                "VouchServer",
                "VouchStore",
                "VouchStoreSQLite",
                "VouchTestSupport",
                "VouchTokens",
                server("Hummingbird", "hummingbird"),
                server("HummingbirdTesting", "hummingbird"),
                // The live channel's tests speak real WebSocket to the server (the SDK's default
                // transport needs a libcurl with WebSockets).
                server("WSClient", "swift-websocket"),
                server("HTTPTypes", "swift-http-types"),
                server("NIOWebSocket", "swift-nio"),
                server("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VouchProtocolTests",
            dependencies: ["VouchProtocol", "VouchSupport", "VouchTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VouchTokensTests",
            dependencies: [
                "VouchTokens",
                "VouchProtocol",
                "VouchTestSupport",
                server("Crypto", "swift-crypto"),
                server("_CryptoExtras", "swift-crypto"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VouchStoreSQLiteTests",
            dependencies: ["VouchStore", "VouchStoreSQLite", "VouchStoreConformance", "VouchTestSupport", "VouchProtocol"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VouchStorePostgresTests",
            dependencies: [
                "VouchStore", "VouchStorePostgres", "VouchStoreConformance", "VouchTestSupport", "VouchPostgresTestSupport",
                "VouchProtocol",
                server("PostgresNIO", "postgres-nio"),
                server("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VouchServerTests",
            dependencies: [
                "VouchCutoffRace",
                "VouchResourceServer",
                "VouchLiveTestSupport",
                "VouchKeySourceTestSupport",
                "VouchDevelopmentIdentityProvider",
                "VouchPostgresTestSupport",
                "VouchServer",
                "VouchStore",
                "VouchStoreConformance",
                "VouchStoreSQLite",
                "VouchStorePostgres",
                "VouchTestSupport",
                "VouchTokens",
                "VouchProtocol",
                server("Hummingbird", "hummingbird"),
                server("HummingbirdTesting", "hummingbird"),
                server("AsyncHTTPClient", "async-http-client"),
                server("Crypto", "swift-crypto"),
                server("_CryptoExtras", "swift-crypto"),
                server("NIOCore", "swift-nio"),
                server("NIOFoundationCompat", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                // A TLS receiver for the webhook sender's test.
                server("NIOSSL", "swift-nio-ssl"),
                server("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VouchResourceServerTests",
            dependencies: [
                "VouchResourceServer",
                "VouchResourceServerHummingbird",
                server("Hummingbird", "hummingbird"),
                server("HummingbirdTesting", "hummingbird"),
                server("Crypto", "swift-crypto"),
                server("Logging", "swift-log"),
                server("NIOCore", "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VouchCLITests",
            dependencies: ["VouchTokens", "VouchProtocol", "VouchTestSupport"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
