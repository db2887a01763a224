import Foundation

/// Runs `body` with a fresh directory that is removed afterwards, whatever happens.
public func withTemporaryDirectory<T>(
    prefix: String = "vouch-tests", _ body: (URL) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

extension URL {
    /// The path of the file `name` in this directory.
    public func file(_ name: String) -> String { appendingPathComponent(name).path }
}
