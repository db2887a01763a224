import Foundation
import Logging
import Synchronization
import Testing

/// The request log line: request id, method, route pattern, status and duration, and never a
/// path's token, read from the records the server's own logger received.
@Suite("Structured request log")
struct RequestLogTests {
    /// Whether lines are written is decided once from the server's level (`info` or more verbose),
    /// so the more verbose levels are held to it too.
    @Test(
        "one line per request with request id, route pattern, status and duration; no token",
        arguments: [Logger.Level.info, .debug, .trace])
    func requestLine(level: Logger.Level) async throws {
        let records = LogRecords()
        var logger = Logger(label: "vouch-request-log-test") { _ in CapturingLogHandler(records: records) }
        logger.logLevel = level
        let token = "tok-\(UUID().uuidString)-secret"
        try await LiveServer.run(logger: logger) { (server: LiveServer) async throws in
            #expect(try await server.request(.DELETE, "/sessions/\(token)").status == 204)
            #expect(try await server.request(.GET, "/admin/apps").status == 403)
        }
        let lines = records.all.filter { $0.message == "request" }
        let revoke = try #require(lines.first { $0.metadata["method"] == "DELETE" })
        #expect(revoke.metadata["route"] == "/sessions/{token}")
        #expect(revoke.metadata["status"] == "204")
        #expect(Int(revoke.metadata["ms"] ?? "") != nil)
        let admin = try #require(lines.first { $0.metadata["route"] == "/admin/apps" })
        #expect(admin.metadata["status"] == "403")
        let ids = lines.compactMap { $0.metadata["hb.request.id"] }
        #expect(ids.count == lines.count && Set(ids).count == lines.count, "each line has its own request id")
        for record in records.all {
            #expect(!record.message.contains(token) && !record.metadata.values.contains { $0.contains(token) })
        }
    }
}

/// Everything logged, with metadata flattened to text (the handler's own and the call's).
final class LogRecords: Sendable {
    struct Record: Sendable {
        let message: String
        let metadata: [String: String]
    }

    private let records = Mutex<[Record]>([])

    func append(_ record: Record) { records.withLock { $0.append(record) } }
    var all: [Record] { records.withLock { $0 } }
}

struct CapturingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        records.append(.init(message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}
