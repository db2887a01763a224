import Dispatch
import Foundation
import Testing
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// Writes that queue together schedule one commit between them: the first to find the list
/// empty schedules it, and that commit takes everything, group after group.
@Suite("Group commit scheduling", .timeLimit(.minutes(1)))
struct GroupSchedulingTests {
    @Test("more writes than a group holds, queued together, are all committed before what was queued after them")
    func moreThanOneGroup() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(path: directory.file("vouch.sqlite"), groupGathering: .none)
            try await closing(store) { store in
                try await store.exclusive("setup") { db in try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY) STRICT") }
                let worker = store.worker
                let groupsBefore = worker.committedGroups
                let count = SQLiteWorker.maximumGroupSize + 36

                // The queue is held while every write joins the list: only the first of them
                // schedules a commit, so that one commit has to take them all.
                let gate = DispatchSemaphore(value: 0)
                let held = Task { try await worker.run { _ in gate.wait() } }
                try await Task.sleep(for: .milliseconds(50))
                let writes = Task {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for x in 0..<count {
                            group.addTask {
                                try await store.transaction("insert \(x)") { db in
                                    try db.execute("INSERT INTO t (x) VALUES (?)", [.int64(Int64(x))])
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                while worker.waitingOperations < count {
                    try await Task.sleep(for: .milliseconds(10))
                }
                // Queued after every write: it must find them all committed.
                async let seen = worker.run { db in try db.rows("SELECT count(*) AS n FROM t").first?.int64("n") }
                try await Task.sleep(for: .milliseconds(50))
                gate.signal()
                try await held.value
                let rows = try await seen
                #expect(rows == Int64(count))
                // Writes that no commit took would never be answered: do not wait for them then.
                guard rows == Int64(count) else { return }
                try await writes.value
                #expect(worker.committedGroups - groupsBefore == 2, "a full group, then the rest")
            }
        }
    }
}
