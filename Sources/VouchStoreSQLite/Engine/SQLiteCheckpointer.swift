import Dispatch
import Logging
import Synchronization

/// Copies the write-ahead log back into the database file on a connection of its own, so that
/// the writer never stops to do it.
///
/// Left to itself, SQLite checkpoints inside whichever commit takes the WAL past 1 000 pages:
/// that commit (and every sign-in grouped into it) waits while pages are copied and the database
/// file is flushed. Here the writer only counts what it commits, and once enough has been written
/// a PASSIVE checkpoint runs on this queue, beside the writer and the readers (it never blocks
/// either; what it cannot copy yet waits for the next one). Checkpointing less often also copies
/// a page written by many commits (the last pages of the session and nonce tables) once, not once
/// per 1 000 pages of log. The writer keeps a far larger automatic limit as a backstop, should
/// this connection fall behind or fail to open.
///
/// **Starting the log over.** SQLite writes a commit at the start of the `-wal` file again only
/// when, as that commit's transaction begins, every frame of the log has been copied back. Beside
/// a writer that never pauses that is never true: while a checkpoint copies, the writer commits
/// more, so the copy always lags by a few commits and the log grew to the writer's backstop (80 MB)
/// in every storm, where the backstop's checkpoint then stalled a group inside its commit. So once
/// a checkpoint here has copied everything the log held when it began, the writer copies the few
/// frames committed meanwhile itself, on its own connection, right after its next commit (whose
/// callers have already been answered): nothing more can be committed during that copy, the next
/// transaction finds the log fully copied, and it starts the log over. The log then stays at
/// about what `operationsPerCheckpoint` writes fill.
final class SQLiteCheckpointer: Sendable {
    /// Committed write operations between two checkpoints (a sign-in writes one or two pages).
    static let operationsPerCheckpoint = 2_000
    /// The writer's own automatic checkpoint, in pages: only reached when this one falls behind.
    static let writerBackstopPages = 20_000

    private let path: String
    private let busyTimeoutMilliseconds: Int
    private let logger: Logger
    private let queue = DispatchQueue(label: "vouch.store.sqlite.checkpoint")
    private let connection = Mutex<ConnectionState>(.notOpened)
    private let written = Atomic<Int>(0)
    private let scheduled = Atomic<Bool>(false)
    private let completed = Atomic<Int>(0)
    /// Set when a checkpoint here copied the whole log as it found it: the writer copies the rest.
    private let caughtUp = Atomic<Bool>(false)
    private let tails = Atomic<Int>(0)

    /// Background checkpoints run so far (diagnostics and tests).
    var completedCheckpoints: Int { completed.load(ordering: .relaxed) }
    /// Log tails the writer copied after a background checkpoint caught up (diagnostics and tests).
    var copiedTails: Int { tails.load(ordering: .relaxed) }

    private enum ConnectionState {
        case notOpened
        case open(CheckpointConnection)
        case closed
    }

    init(path: String, busyTimeoutMilliseconds: Int, logger: Logger) {
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.logger = logger
    }

    /// Called by the writer after each commit with the number of operations it carried, on the
    /// writer's queue and connection.
    func committed(operations: Int, on writer: SQLiteRunner) {
        if caughtUp.exchange(false, ordering: .acquiringAndReleasing) {
            copyTail(on: writer)
        }
        let total = written.add(operations, ordering: .relaxed).newValue
        guard total >= Self.operationsPerCheckpoint,
            scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        written.store(0, ordering: .relaxed)
        queue.async {
            self.checkpoint()
            self.scheduled.store(false, ordering: .releasing)
        }
    }

    /// Runs one PASSIVE checkpoint now, on the checkpoint queue; returns the log's size and the
    /// pages copied (for tests and diagnostics), or nil when there is no connection.
    @discardableResult
    func checkpointNow() async -> (logPages: Int, checkpointedPages: Int)? {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.checkpoint()) }
        }
    }

    /// On the queue.
    @discardableResult
    private func checkpoint() -> (logPages: Int, checkpointedPages: Int)? {
        guard let handle = openedHandle() else { return nil }
        do {
            // (busy, log, checkpointed): a busy checkpoint copied what it could.
            let row = try handle.rows("PRAGMA wal_checkpoint(PASSIVE)", []).first
            let busy = try row?.int64("busy") ?? 1
            let log = try row?.int64("log") ?? 0
            let checkpointed = try row?.int64("checkpointed") ?? 0
            completed.add(1, ordering: .relaxed)
            if busy == 0, log > 0, checkpointed == log { caughtUp.store(true, ordering: .releasing) }
            return (Int(log), Int(checkpointed))
        } catch {
            logger.warning("background checkpoint failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// On the writer's queue, between two of its transactions: the frames committed while the
    /// last background checkpoint ran (a PASSIVE checkpoint never waits for a lock; a reader still
    /// on an older snapshot only keeps the log from starting over this time).
    private func copyTail(on writer: SQLiteRunner) {
        do {
            _ = try writer.rows("PRAGMA wal_checkpoint(PASSIVE)")
            tails.add(1, ordering: .relaxed)
        } catch {
            logger.warning("copying the log's last frames failed", metadata: ["error": "\(error)"])
        }
    }

    private func openedHandle() -> SQLiteConnectionHandle? {
        connection.withLock { state in
            switch state {
            case .open(let connection):
                return connection.handle
            case .closed:
                return nil
            case .notOpened:
                do {
                    let handle = try SQLiteConnectionHandle(path: path)
                    _ = try handle.rows("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)", [])
                    // The database file is flushed before the log it copied may be reused.
                    _ = try handle.rows("PRAGMA synchronous = FULL", [])
                    state = .open(CheckpointConnection(handle))
                    return handle
                } catch {
                    logger.warning(
                        "could not open the checkpoint connection; the writer checkpoints by itself",
                        metadata: ["error": "\(error)"])
                    state = .closed
                    return nil
                }
            }
        }
    }

    /// Waits for a running checkpoint, then closes the connection.
    func close() async {
        await withCheckedContinuation { continuation in
            queue.async {
                self.connection.withLock { state in
                    if case .open(let connection) = state { connection.handle.close() }
                    state = .closed
                }
                continuation.resume()
            }
        }
    }
}

/// The checkpoint connection, touched only on the checkpointer's queue.
private final class CheckpointConnection: @unchecked Sendable {
    let handle: SQLiteConnectionHandle
    init(_ handle: SQLiteConnectionHandle) { self.handle = handle }
}
