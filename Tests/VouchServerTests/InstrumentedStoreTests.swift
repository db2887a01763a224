import Foundation
import Testing
import VouchStore
import VouchStoreConformance
import VouchStoreSQLite
import VouchTestSupport
@testable import VouchServer

/// The timing wrapper changes nothing a store does: the whole conformance suite passes through
/// it (over SQLite), so every forwarded method reaches the same method with the same arguments.
@Suite("InstrumentedStore", .timeLimit(.minutes(2)))
struct InstrumentedStoreTests {
    @Test("conformance through the wrapper", arguments: StoreConformance.checks)
    func conformance(_ check: StoreConformance.Check) async throws {
        let metrics = ServerMetrics()
        try await withTemporaryDirectory { directory in
            let conformance = StoreConformance { count, body in
                let store = InstrumentedStore(base: try await SQLiteStore.open(path: directory.file("\(UUID().uuidString).sqlite")), metrics: metrics)
                try await closing(store) { try await body(Array(repeating: $0, count: count)) }
            }
            try await check.run(conformance)
        }
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains("vouch_store_operation_duration_seconds_count{operation="))
        #expect(!text.contains(#"kind="other""#), "\(text)")
    }
}
