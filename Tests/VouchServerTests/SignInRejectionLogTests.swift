import Foundation
import Logging
import Testing
import VouchProtocol
import VouchStore
import VouchStoreSQLite
@testable import VouchServer

@Suite("Rejected sign-ins are tallied in bounded memory and written in one batch")
struct SignInRejectionLogTests {
    @Test("a tally per (app, reason); past capacity a new pair is dropped and counted, known pairs still count")
    func boundedTally() throws {
        let metrics = ServerMetrics()
        let log = SignInRejectionLog(capacity: 2, metrics: metrics)
        let (appA, appB) = (UUID(), UUID())
        for _ in 0..<1000 { log.record(appID: appA, reason: .expired, at: 100) }
        log.record(appID: appB, reason: .signatureVerificationFailed, at: 101)
        // A third pair does not fit; the two known ones keep counting.
        log.record(appID: appB, reason: .expired, at: 102)
        log.record(appID: appA, reason: .expired, at: 103)
        log.record(appID: appB, reason: .signatureVerificationFailed, at: 104)

        let drained = log.drain()
        #expect(drained.map(\.appID) == [appA, appB])
        #expect(drained.map(\.outcome) == ["eit_expired", RejectionReason.signatureVerificationFailed.rawValue])
        #expect(drained.map(\.count) == [1001, 2])
        #expect(drained.map(\.at) == [100, 101], "an event is stamped with its first rejection")
        #expect(drained.allSatisfy { $0.kind == .signInRejected && $0.actor == nil && $0.objectID == nil })
        #expect(
            String(decoding: metrics.exposition(), as: UTF8.self)
                .contains(#"vouch_audit_dropped_total{kind="sign_in_rejected"} 1"#))
        // Drained means empty: room for new pairs again.
        #expect(log.drain().isEmpty)
        log.record(appID: appB, reason: .expired, at: 200)
        #expect(log.drain().count == 1)
    }

    @Test("flush writes one batch to the store and empties the tally; a closed store drops and counts it")
    func flush() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-tally-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "vouch-test")
        logger.logLevel = .critical
        let store = try await SQLiteStore.open(path: directory.appendingPathComponent("vouch.sqlite").path, logger: logger)
        let metrics = ServerMetrics()
        let log = SignInRejectionLog(metrics: metrics)
        let app = UUID()
        for _ in 0..<5 { log.record(appID: app, reason: .expired, at: 10) }
        await log.flush(to: store, logger: logger)
        await log.flush(to: store, logger: logger)
        let written = try await store.auditEntries(AuditQuery())
        #expect(written.map(\.entry.count) == [5])
        try await store.close()

        for _ in 0..<3 { log.record(appID: app, reason: .expired, at: 20) }
        await log.flush(to: store, logger: logger)
        #expect(log.drain().isEmpty, "a failed batch is not kept to grow memory")
        #expect(
            String(decoding: metrics.exposition(), as: UTF8.self)
                .contains(#"vouch_audit_dropped_total{kind="sign_in_rejected"} 3"#))
    }
}
