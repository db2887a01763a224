import Foundation

/// Where the package and its built `vouch` binary are, for the test targets that run the binary
/// as an operator would (the CLI tests, the process tests).
public enum TestPackage {
    /// Sources/VouchTestSupport/TestPackage.swift → the package root is three folders up.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Sources/VouchTestSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()  // package root

    /// The binary the tests run: `swift build` (or `swift build --build-tests`) puts it here.
    public static let vouchBinary: URL = root.appendingPathComponent(".build/debug/vouch")

    public static var vouchBinaryExists: Bool { FileManager.default.isExecutableFile(atPath: vouchBinary.path) }

    public static let missingBinaryMessage =
        "the vouch binary is missing at .build/debug/vouch: build it with `swift build --product vouch` (or `swift build --build-tests`) to run these tests"
}
