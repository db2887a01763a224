import Dispatch
import Foundation
import Logging
import Testing
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

// Serialized: several of these tests block a thread of Swift's pool on purpose (a committer
// behind a held queue, a write's body held inside its commit), and together they could block
// every thread of it.
@Suite("Group commit gathering", .serialized, .timeLimit(.minutes(1)))
struct GroupGatheringTests {
    private static func insert(_ store: SQLiteStore, _ x: Int) async throws {
        try await store.transaction("insert \(x)") { db in try db.execute("INSERT INTO t (x) VALUES (?)", [.int64(Int64(x))]) }
    }

    /// Waits until the writer holds a group back for more writes to join it (the suite's time
    /// limit ends the wait should it never do so).
    private static func waitUntilHolding(_ worker: SQLiteWorker) async throws {
        while !worker.isHoldingGroup {
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Two writes queued while the queue is held, so that they are committed as one group.
    private static func groupOfTwo(_ store: SQLiteStore, _ first: Int, _ second: Int) async throws {
        try await groupOfTwo(store.worker, first, second)
    }

    private static func groupOfTwo(_ worker: SQLiteWorker, _ first: Int, _ second: Int) async throws {
        let gate = DispatchSemaphore(value: 0)
        let held = try await holdQueue(worker, until: gate)
        async let one: Void = insert(worker, first)
        async let two: Void = insert(worker, second)
        try await waitUntilWaiting(worker, 2)
        gate.signal()
        try await held.value
        _ = try await (one, two)
    }

    private static func insert(_ worker: SQLiteWorker, _ x: Int) async throws {
        try await worker.transaction { db in try db.execute("INSERT INTO t (x) VALUES (?)", [.int64(Int64(x))]) }
    }

    /// A fresh store with `gathering` and a table `t` to write into.
    private static func withStore(_ gathering: GroupGathering, _ body: (SQLiteStore) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(
                path: directory.file("vouch.sqlite"), unvalidated: .init(groupGathering: gathering), logger: Logger(label: "test"))
            try await closing(store) { store in
                try await store.exclusive("setup") { db in try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY) STRICT") }
                try await body(store)
            }
        }
    }

    @Test("after a group of several, a small group waits for more to join; after a lone write, none waits")
    func gathersUnderLoadOnly() async throws {
        try await Self.withStore(GroupGathering(maximumWait: .seconds(20), enough: 3)) { store in
            let worker = store.worker

            // A lone write, with no group before it: committed at once, not held.
            try await Self.insert(store, 1)
            #expect(worker.committedGroups == 1 && worker.heldBackGroups == 0)

            // Two writes queued behind a held queue: one group of two.
            try await Self.groupOfTwo(store, 2, 3)
            #expect(worker.committedGroups == 2)

            // Now a write alone is held back until two more join it: one group of three. The
            // two join only once it is held, or they could join it before it was taken.
            async let fourth: Void = Self.insert(store, 4)
            try await waitUntilWaiting(worker, 1)
            try await Self.waitUntilHolding(worker)
            async let fifth: Void = Self.insert(store, 5)
            async let sixth: Void = Self.insert(store, 6)
            _ = try await (fourth, fifth, sixth)
            #expect(worker.committedGroups == 3, "three writes, one commit")
            #expect(worker.heldBackGroups == 1)
            #expect(worker.filledHeldGroups == 1, "woken by the write that filled it, not by the end of its wait")
            let rows = try await store.exclusive("read") { db in try db.rows("SELECT count(*) AS n FROM t").first?.int64("n") }
            #expect(rows == 6)
        }
    }

    @Test("a held group is committed when the wait is over, however few it holds")
    func waitIsBounded() async throws {
        try await Self.withStore(GroupGathering(maximumWait: .milliseconds(300), enough: 100)) { store in
            try await Self.groupOfTwo(store, 1, 2)
            // Alone, far from `enough`: held, then committed by itself.
            try await Self.insert(store, 3)
            #expect(store.worker.heldBackGroups == 1)
            #expect(store.worker.filledHeldGroups == 0)
            #expect(store.worker.committedGroups == 2)
        }
    }

    /// Writes that queue together schedule one commit between them (the first to find the list
    /// empty), and that commit takes everything, group after group.
    @Test("more writes than a group holds, queued together, are all committed before what was queued after them")
    func moreThanOneGroup() async throws {
        try await Self.withStore(.none) { store in
            let worker = store.worker
            let groupsBefore = worker.committedGroups
            let count = SQLiteWorker.maximumGroupSize + 36

            // The queue is held while every write joins the list: only the first of them
            // schedules a commit, so that one commit has to take them all.
            let gate = DispatchSemaphore(value: 0)
            let held = try await holdQueue(worker, until: gate)
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
            try await waitUntilWaiting(worker, count)
            // Queued after every write (and so after the one commit they scheduled): it must find
            // them all committed, whenever it gets to run.
            async let seen = worker.run { db in try db.rows("SELECT count(*) AS n FROM t").first?.int64("n") }
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

    /// With nobody committing, a write commits on its own task's thread: no hop to another thread
    /// and back (a writer thread of its own would cost a wake-up per group and one per caller).
    @Test("a lone write is committed on the thread of the task that asked for it")
    func loneWriteCommitsInline() async throws {
        try await Self.withStore(.none) { store in
            let caller = pthread_self()
            let committer = try await store.transaction("insert") { db in
                try db.execute("INSERT INTO t (x) VALUES (1)")
                return pthread_self()
            }
            #expect(committer == caller, "the body ran on another thread than its caller's")
            #expect(store.worker.committedGroups == 1)
        }
    }

    /// The baton: writes that arrive while a commit runs wait for it, then the first of them
    /// commits them all in one group; a `close` asked for meanwhile waits until they have been.
    @Test("writes arriving during a commit are committed together by the first of them, before a close asked for meanwhile")
    func batonHandedOver() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let store = try await SQLiteStore.open(path: path)
            try await store.exclusive("setup") { db in try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY) STRICT") }
            let worker = store.worker
            let groupsBefore = worker.committedGroups
            let inBody = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            // The first write's body waits inside its commit, on its own thread, until released.
            let first = Task {
                try await store.transaction("insert 1") { db in
                    inBody.signal()
                    _ = gate.wait(timeout: .now() + 30)
                    try db.execute("INSERT INTO t (x) VALUES (1)")
                }
            }
            while inBody.wait(timeout: .now()) != .success { try await Task.sleep(for: .milliseconds(5)) }
            let later = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for x in 2...9 { group.addTask { try await Self.insert(store, x) } }
                    try await group.waitForAll()
                }
            }
            try await waitUntilWaiting(worker, 8)
            let closeTask = Task { await worker.close() }
            // A close that does not wait for the baton never shows here: give up after ten
            // seconds, and let the writes it would then fail say so too.
            let deadline = ContinuousClock.now + .seconds(10)
            while worker.waitingCloses < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(worker.waitingCloses == 1, "the close did not wait for the baton to be put down")
            gate.signal()
            try await first.value
            try await later.value
            #expect(await closeTask.value, "the close found the connection open: it ran after the writes")
            #expect(worker.committedGroups - groupsBefore == 2, "the first write alone, then the eight that waited")
            try await store.close()
            let reopened = try await SQLiteStore.open(path: path)
            try await closing(reopened) { store in
                let rows = try await store.exclusive("read") { db in try db.rows("SELECT count(*) AS n FROM t").first?.int64("n") }
                #expect(rows == 9)
            }
        }
    }

    /// With one thread in the pool, the committer's hold would block the only thread that could
    /// run the writes it waits for: it would always last its whole wait, with nothing else running.
    @Test("where the concurrency pool has one thread, a committer never holds a group back")
    func noHoldOnOneThread() async throws {
        try await withTemporaryDirectory { directory in
            let worker = SQLiteWorker(
                handle: try SQLiteConnectionHandle(path: directory.file("vouch.sqlite")), logger: Logger(label: "test"),
                gathering: GroupGathering(maximumWait: .seconds(20), enough: 3), poolThreads: 1)
            try await worker.run { db in try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY) STRICT") }
            try await Self.groupOfTwo(worker, 1, 2)
            // After a group of two, a lone write would be held for 20 s with more than one thread.
            try await Self.insert(worker, 3)
            #expect(worker.heldBackGroups == 0)
            #expect(worker.committedGroups == 2)
            _ = await worker.close()
        }
    }

    @Test("the defaults: vouch serve gathers briefly, .none never")
    func defaults() {
        #expect(GroupGathering.standard.maximumWait == .microseconds(200) && GroupGathering.standard.enough == 16)
        #expect(GroupGathering.none.maximumWait == .zero)
        #expect(throws: ConfigurationError.self) {
            try SQLiteStore.Configuration(groupGathering: GroupGathering(maximumWait: .zero, enough: 0)).validate()
        }
    }
}
