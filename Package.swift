// swift-tools-version:6.2
import PackageDescription

/// Every target is built in the Swift 6 language mode (strict concurrency checking is part of it).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

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
        .executable(name: "vouch", targets: ["vouch"]),
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
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
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
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
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
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "VouchStorePostgres",
            dependencies: [
                "VouchStore",
                "VouchProtocol",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
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
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
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
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
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
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
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
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "vouch-benchmark",
            dependencies: [
                "VouchProtocol",
                "VouchTokens",
                "VouchServer",
                "VouchStore",
                "VouchStoreSQLite",
                "VouchStorePostgres",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
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
                "VouchDevelopmentIdentityProvider",
                "VouchProtocol",
                "VouchServer",
                "VouchStore",
                "VouchStoreSQLite",
                "VouchTestSupport",
                "VouchTokens",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
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
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
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
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VouchServerTests",
            dependencies: [
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
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
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
