import Dispatch
import Foundation
import Logging
import Synchronization
import VouchStore

/// Runs the store's operations on its one SQLite connection, one at a time: reads and single
/// operations on a serial queue (one hop there and one back, whatever their number of
/// statements), durable writes on the thread of the write that carries the baton (below).
///
/// **Group commit.** Writes that must be durable (`transaction`) join a list, and one commit takes
/// every write waiting at that moment in one `BEGIN IMMEDIATE … COMMIT`. With `synchronous=FULL`
/// the commit's fsync is the dominant cost of a sign-in; a storm of sign-ins shares it, and
/// still no operation is answered before the commit that holds it is on disk. An operation that
/// throws leaves nothing behind and takes nothing of the others with it; a COMMIT that fails
/// fails every operation of the group, which then has written nothing.
///
/// **The baton.** The write that finds nobody committing commits, on its own task's thread
/// (`queue.sync`, which runs there when the queue is idle and keeps the connection confined to
/// the queue's order): a lone write costs no hop and no wake-up of another thread. Writes that
/// arrive meanwhile wait; once its commit is answered, the committer hands the baton to the first
/// of them, whose task wakes to commit them all (it had to wake for its answer anyway), or puts
/// it down when none wait. Under a storm a group is what arrived during one commit and the
/// hand-over. The committer's thread is blocked for its commit, sync included (a pool thread, as
/// an RSA verification occupies one); a dedicated writer thread would cost a sleep and a wake-up
/// for every group and its callers instead (docs/PERFORMANCE.md, "The durable write").
final class SQLiteWorker: Sendable {
    /// The most operations one commit carries: bounds the latency a group adds to its first member.
    static let maximumGroupSize = 64

    private let queue = DispatchQueue(label: "vouch.store.sqlite")
    private let connection: Confined
    private let waiting = Mutex(WaitingWrites())
    /// Signalled once by the write that makes a held group big enough (`WaitingWrites.wakeAt`).
    private let groupFilled = DispatchSemaphore(value: 0)
    private let gathering: GroupGathering
    /// Threads of Swift's concurrency pool, one per core: a committer's hold blocks one of them.
    private let poolThreads: Int
    /// Operations in the last group committed: more than one means others are on their way.
    private let lastGroupSize = Atomic<Int>(0)
    /// Groups committed so far, and how many of them were held back for more (for tests).
    private let groups = Atomic<Int>(0)
    private let holds = Atomic<Int>(0)
    /// Of those, the ones woken by the write that filled them rather than by the end of the wait.
    private let fills = Atomic<Int>(0)
    /// Whether a group is being held back right now (for tests: what a write must wait for to be
    /// sure it joins a held group rather than one that has not yet been taken).
    private let holding = Atomic<Bool>(false)
    /// Blocks queued or running on the queue (`run`, `close`, a commit handed to the queue): while
    /// there are any, a committer would wait for them with its thread blocked, so the commit is
    /// handed to the queue instead.
    private let queued = Atomic<Int>(0)
    private let logger: Logger
    /// Told how many operations each successful commit carried, with the connection (the
    /// background checkpointer, which may copy the log's last frames on it).
    private let afterCommit: (@Sendable (Int, SQLiteRunner) -> Void)?
    /// Told whenever a group's transaction is given up (rolled back, by the worker or by SQLite
    /// itself), before any write runs again: what the store keeps of rows written in the
    /// transaction (`WriterUserCache`) may describe rows that no longer exist.
    private let afterRollback: (@Sendable () -> Void)?

    /// Writes waiting for their group to be taken (for tests).
    var waitingOperations: Int { waiting.withLock { $0.operations.count } }

    /// `close` calls waiting for the baton to be put down (for tests).
    var waitingCloses: Int { waiting.withLock { $0.idleWaiters.count } }

    /// Group commits carried out so far.
    var committedGroups: Int { groups.load(ordering: .relaxed) }
    /// Of those, the ones held back for more operations to join.
    var heldBackGroups: Int { holds.load(ordering: .relaxed) }
    /// Of those, the ones that a write filled before the wait was over.
    var filledHeldGroups: Int { fills.load(ordering: .relaxed) }
    /// Whether a committer is holding a group back for more operations at this moment.
    var isHoldingGroup: Bool { holding.load(ordering: .acquiring) }

    init(
        handle: SQLiteConnectionHandle, logger: Logger, gathering: GroupGathering = .none,
        poolThreads: Int = ProcessInfo.processInfo.activeProcessorCount,
        afterCommit: (@Sendable (Int, SQLiteRunner) -> Void)? = nil,
        afterRollback: (@Sendable () -> Void)? = nil
    ) {
        self.connection = Confined(handle)
        self.gathering = gathering
        self.poolThreads = poolThreads
        self.logger = logger
        self.afterCommit = afterCommit
        self.afterRollback = afterRollback
    }

    /// Runs `body` alone on the connection. Once queued it runs to its end even if the caller is
    /// cancelled, so a statement is never abandoned halfway.
    func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteRunner) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue { done in
                let result = Result { try body(SQLiteRunner(handle: self.connection.handle)) }
                done()
                continuation.resume(with: result)
            }
        }
    }

    /// Runs `body` inside a transaction, committed (possibly together with other operations) before
    /// this returns; on any throw, nothing `body` wrote remains.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteRunner) throws -> T) async throws -> T {
        let operation = PendingWrite(body: body)
        // Unchecked: every path of `commitGroup` answers each operation exactly once and the baton
        // is handed to a waiting write once (the worker's tests hold each path to it), and a
        // checked continuation is one more allocation a write.
        let turn = try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<WriteTurn<T>, any Error>) in
            let (leads, fillsHeldGroup) = waiting.withLock { waiting -> (Bool, Bool) in
                operation.continuation = continuation
                waiting.operations.append(operation)
                var fills = false
                if let wakeAt = waiting.wakeAt, waiting.operations.count >= wakeAt {
                    waiting.wakeAt = nil
                    fills = true
                }
                guard !waiting.committing else { return (false, fills) }
                waiting.committing = true
                return (true, fills)
            }
            if fillsHeldGroup { groupFilled.signal() }
            // With nobody committing, this write takes the baton: usually by resuming itself at
            // once (no suspension, no hop), then committing below on this thread.
            if leads { carryBaton(from: operation) }
        }
        switch consume turn {
        case .done(let value):
            return value
        case .lead:
            lead()
            return try operation.takeOutcome()
        }
    }

    /// Gives the baton to `operation`'s task, whose write is waiting: it commits on its own thread
    /// (`lead`). When the queue has work of its own (a read or an operation queued there), that
    /// task would only block its thread waiting for it: the queue commits instead, and answers
    /// every write of the group as it would any waiting write.
    private func carryBaton(from operation: any GroupedOperation) {
        if queued.load(ordering: .relaxed) > 0 {
            enqueue { done in
                self.commitWaiting()
                done()
                self.passBaton()
            }
        } else {
            operation.markLeading()
            operation.handOver()
        }
    }

    /// On the calling thread, holding the baton: commits what waits (`queue.sync` runs it here
    /// when the queue is idle), then passes the baton on.
    private func lead() {
        queue.sync { commitWaiting() }
        passBaton()
    }

    /// Hands the baton to the first write that arrived during the last commit, or puts it down
    /// (and lets a waiting `close` run).
    private func passBaton() {
        let (next, idle) = waiting.withLock { waiting -> ((any GroupedOperation)?, [CheckedContinuation<Void, Never>]) in
            guard let first = waiting.operations.first else {
                waiting.committing = false
                defer { waiting.idleWaiters = [] }
                return (nil, waiting.idleWaiters)
            }
            return (first, [])
        }
        if let next { carryBaton(from: next) }
        for waiter in idle { waiter.resume() }
    }

    /// Runs `block` on the queue, counted in `queued` until it calls `done`: before it answers its
    /// caller, so that a caller's next write does not find its own finished block still counted.
    private func enqueue(_ block: @escaping @Sendable (_ done: () -> Void) -> Void) {
        queued.add(1, ordering: .relaxed)
        queue.async {
            block { self.queued.subtract(1, ordering: .relaxed) }
        }
    }

    /// Answers one operation of a settled group: its error, or the value it left.
    private func answer(_ operation: any GroupedOperation, _ error: (any Error)?) {
        operation.finish(error)
    }

    /// In the queue's order (on the baton holder's thread, or on the queue): the operations waiting
    /// now, in groups of up to `maximumGroupSize`, each in one transaction (`commitGroup`), until
    /// a group has left nothing behind, so that operations beyond one group's size are committed
    /// before anything queued after them.
    private func commitWaiting() {
        gather()
        while true {
            let (group, leftOver) = waiting.withLock { waiting -> ([any GroupedOperation], Bool) in
                let taken = Array(waiting.operations.prefix(Self.maximumGroupSize))
                waiting.operations.removeFirst(taken.count)
                return (taken, !waiting.operations.isEmpty)
            }
            guard !group.isEmpty else { return }
            commitGroup(group)
            guard leftOver else { return }
        }
    }

    /// One group in one transaction.
    ///
    /// Each operation runs bare first. One that fails having written nothing (a used nonce: its
    /// insert did nothing, and a failed statement undoes itself) needs nothing undone; one that
    /// fails after a write sends the whole group, rolled back, through `commitWithSavepoints`,
    /// where each operation runs in a savepoint of its own. The common group thus pays no
    /// savepoints.
    private func commitGroup(_ group: [any GroupedOperation]) {
        let db = SQLiteRunner(handle: connection.handle)
        guard begin(group, db) else { return }
        var failures: [(any Error)?] = []
        failures.reserveCapacity(group.count)
        for operation in group {
            let before = connection.handle.totalChanges
            do {
                try operation.run(db)
                failures.append(nil)
            } catch {
                guard connection.handle.inTransaction else {
                    // SQLite gave up the transaction by itself (a full disk): nothing is kept.
                    afterRollback?()
                    for operation in group { answer(operation, error) }
                    return
                }
                if connection.handle.totalChanges == before {
                    failures.append(error)
                    continue
                }
                rollback()
                commitWithSavepoints(group, db)
                return
            }
        }
        commit(group, failures, db)
    }

    /// Holds a small group back, on the committer's thread, while more operations are likely to
    /// join it (see `GroupGathering`). Never where the concurrency pool has a single thread: that
    /// thread is the committer's, and the writes the hold waits for could not arrive meanwhile.
    ///
    /// The committer sleeps once, until the write that makes the group big enough wakes it or the
    /// wait is over: no polling, so a held group costs the committer one sleep and one wake-up
    /// whatever its wait (each look of a poll costs a system call and two context switches, and
    /// under a storm most groups are held).
    private func gather() {
        guard gathering.maximumWait > .zero, poolThreads > 1, lastGroupSize.load(ordering: .relaxed) > 1 else { return }
        let enough = gathering.enough
        let willHold = waiting.withLock { waiting -> Bool in
            let count = waiting.operations.count
            guard count > 0, count < enough else { return false }
            waiting.wakeAt = enough
            return true
        }
        guard willHold else { return }
        holding.store(true, ordering: .releasing)
        defer {
            holds.add(1, ordering: .relaxed)
            holding.store(false, ordering: .releasing)
        }
        let (seconds, attoseconds) = gathering.maximumWait.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        let timedOut = groupFilled.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut
        let signalled = waiting.withLock { waiting -> Bool in
            defer { waiting.wakeAt = nil }
            return waiting.wakeAt == nil
        }
        guard signalled else { return }
        fills.add(1, ordering: .relaxed)
        // The group filled just as the wait ran out: its signal is on its way and must be taken
        // now, or it would cut the next group's wait short.
        if timedOut { groupFilled.wait() }
    }

    /// The group again, each operation in its own savepoint so that one that fails after writing
    /// is rolled back alone.
    private func commitWithSavepoints(_ group: [any GroupedOperation], _ db: SQLiteRunner) {
        guard begin(group, db) else { return }
        var failures: [(any Error)?] = []
        for operation in group {
            do {
                try db.execute("SAVEPOINT operation")
                do {
                    try operation.run(db)
                    try db.execute("RELEASE operation")
                    failures.append(nil)
                } catch {
                    try db.execute("ROLLBACK TO operation")
                    try db.execute("RELEASE operation")
                    failures.append(error)
                }
            } catch {
                // The savepoint machinery itself failed (SQLite may have rolled the whole
                // transaction back, e.g. on a full disk): nothing of the group is kept.
                rollback()
                for operation in group { answer(operation, error) }
                return
            }
        }
        commit(group, failures, db)
    }

    private func begin(_ group: [any GroupedOperation], _ db: SQLiteRunner) -> Bool {
        do {
            try db.execute("BEGIN IMMEDIATE")
            return true
        } catch {
            for operation in group { answer(operation, error) }
            return false
        }
    }

    /// Commits, then answers every operation: each caller hears only once its writes are on disk.
    private func commit(_ group: [any GroupedOperation], _ failures: [(any Error)?], _ db: SQLiteRunner) {
        do {
            try db.execute("COMMIT")
        } catch {
            rollback()
            for operation in group { answer(operation, error) }
            return
        }
        lastGroupSize.store(group.count, ordering: .relaxed)
        groups.add(1, ordering: .relaxed)
        for (operation, failure) in zip(group, failures) { answer(operation, failure) }
        afterCommit?(group.count, db)
    }

    /// Rolls back whatever transaction is open; SQLite may already have done so by itself.
    private func rollback() {
        afterRollback?()
        guard connection.handle.inTransaction else { return }
        do {
            _ = try connection.handle.rows("ROLLBACK", [])
        } catch {
            logger.debug("rollback failed", metadata: ["error": "\(error)"])
        }
    }

    /// Closes the connection once every operation queued before it has run and the baton is down
    /// (every write that joined the list before it has been committed or has failed).
    func close() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = waiting.withLock { waiting -> Bool in
                guard waiting.committing else { return true }
                waiting.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
        return await withCheckedContinuation { continuation in
            enqueue { done in
                let wasOpen = !self.connection.handle.isClosed
                self.connection.handle.close()
                done()
                continuation.resume(returning: wasOpen)
            }
        }
    }
}

/// The writes waiting for a commit to take them, and who commits.
private struct WaitingWrites {
    var operations: [any GroupedOperation] = []
    /// While a committer holds a group back: the count at which the write that reaches it wakes
    /// the committer (and clears this, so that exactly one write signals).
    var wakeAt: Int?
    /// Whether a write's task holds the baton: commits what waits, and hands it on.
    var committing = false
    /// `close` calls waiting for the baton to be put down.
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
}

/// What a write's task is woken for: its committed value, or the baton.
private enum WriteTurn<T: Sendable>: Sendable {
    case done(T)
    case lead
}

/// One queued write, as its committer sees it: run it (perhaps twice, the second time in a savepoint
/// of its own), then answer its caller once its group is settled.
private protocol GroupedOperation: AnyObject, Sendable {
    func run(_ db: SQLiteRunner) throws
    func finish(_ error: (any Error)?)
    /// Before `handOver`: this write's task will carry the baton, so its outcome is kept for it
    /// rather than sent.
    func markLeading()
    /// Wakes this write's task to carry the baton.
    func handOver()
}

/// A write, the value it returned and the caller waiting for it, in one object: one allocation
/// a write. Only the baton's holder runs and answers it, so its fields need no lock of their own
/// (the list's lock orders the hand-overs), and no access to one overlaps another, so they go
/// without Swift's dynamic exclusivity check (see `SQLiteConnectionHandle`).
private final class PendingWrite<T: Sendable>: GroupedOperation, @unchecked Sendable {
    private let body: @Sendable (SQLiteRunner) throws -> T
    @exclusivity(unchecked) var continuation: UnsafeContinuation<WriteTurn<T>, any Error>?
    @exclusivity(unchecked) var leads = false
    @exclusivity(unchecked) private var value: T?
    @exclusivity(unchecked) private var outcome: Result<T, any Error>?

    init(body: @escaping @Sendable (SQLiteRunner) throws -> T) {
        self.body = body
    }

    func run(_ db: SQLiteRunner) throws {
        value = try body(db)
    }

    func markLeading() { leads = true }

    func handOver() { continuation?.resume(returning: .lead) }

    /// The value is moved, never copied, from `run` to its caller: a copy of a sign-in's result
    /// (a user's record) is a retain and a release for each of its strings, and a generic
    /// `Result.map` and `get` on the way would copy it twice more.
    func finish(_ error: (any Error)?) {
        if let error {
            answer(throwing: error)
        } else if let value = value.take() {
            // `consume`: this code runs unspecialised (through `GroupedOperation`), where the
            // optimiser left a copy of the value (a user's record: a reference to each string).
            if leads {
                outcome = .success(consume value)
            } else {
                continuation?.resume(returning: .done(consume value))
            }
        } else {
            answer(throwing: StoreError.unavailable("a committed operation left no result"))
        }
    }

    private func answer(throwing error: any Error) {
        if leads {
            outcome = .failure(error)
        } else {
            continuation?.resume(throwing: error)
        }
    }

    func takeOutcome() throws -> T {
        switch outcome.take() {
        case .success(let value): return consume value
        case .failure(let error): throw error
        case nil: throw StoreError.unavailable("a committed operation left no result")
        }
    }
}

/// The connection handle, which only the worker's serial queue touches: that confinement, not a
/// lock, is what makes sharing the reference between tasks safe.
private final class Confined: @unchecked Sendable {
    let handle: SQLiteConnectionHandle
    init(_ handle: SQLiteConnectionHandle) { self.handle = handle }
}
