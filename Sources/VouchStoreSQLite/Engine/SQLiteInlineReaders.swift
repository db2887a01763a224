import Foundation
import Logging
import Synchronization
import VouchStore

/// Read connections used on the calling thread, one per concurrent reader up to a small limit.
///
/// A read sent to a queue costs a hop there and a hop back: a wake-up and a context switch each
/// way, more CPU than most of Vouch's reads themselves (a session and its user, a sign-in's
/// look-ups). In WAL mode a read never waits for the writer, so it can run where the request's
/// task already is, as the RSA verification does: each such read takes an idle connection, runs
/// in one deferred transaction (one snapshot) and gives the connection back.
///
/// These connections never wait: their busy timeout is zero, so the rare read that finds the
/// database busy (a WAL restart, another process's recovery) is handed back (`nil`) and goes to
/// the queued reader, whose timeout is the writer's. So is a read that finds every connection in
/// use and the limit reached.
final class SQLiteInlineReaders: Sendable {
    private let path: String
    private let limit: Int
    private let logger: Logger
    private let pool = Mutex(Pool())
    private let busy = Atomic<Int>(0)

    private struct Pool: ~Copyable {
        var idle: [PooledHandle] = []
        var opened = 0
        var closed = false
        /// Opening failed once: no more attempts, every read goes to the queue.
        var failed = false
    }

    /// - Parameter limit: the most connections at once; the concurrency pool has one thread per
    ///   core, so more than that would never all be in use from tasks.
    init(path: String, limit: Int = max(2, ProcessInfo.processInfo.activeProcessorCount), logger: Logger) {
        self.path = path
        self.limit = limit
        self.logger = logger
    }

    /// Runs `body` in one read transaction on the calling thread, or returns `nil` without having
    /// changed anything when no connection is free or SQLite answered busy: the caller then reads
    /// elsewhere. Any other failure is thrown.
    func run<T>(_ body: (SQLiteRunner) throws -> T) throws -> T? {
        guard let connection = take() else { return nil }
        defer { giveBack(connection) }
        do {
            return try ReadTransaction.run(on: connection.handle, logger: logger, body)
        } catch let failure as SQLiteFailure where failure.isBusy {
            busy.add(1, ordering: .relaxed)
            return nil
        }
    }

    /// How many connections are open (in use or idle).
    var openedCount: Int { pool.withLock { $0.opened } }
    /// How many reads were handed back because SQLite answered busy.
    var busyCount: Int { busy.load(ordering: .relaxed) }

    private func take() -> PooledHandle? {
        let reserved = pool.withLock { pool -> PooledHandle?? in
            if pool.closed || pool.failed { return .some(nil) }
            if let handle = pool.idle.popLast() { return .some(handle) }
            guard pool.opened < limit else { return .some(nil) }
            pool.opened += 1
            return .none
        }
        if let reserved { return reserved }
        // Opened outside the lock: opening reads the schema from disk.
        do {
            return PooledHandle(try SQLiteConnectionHandle.forReading(path: path, busyTimeoutMilliseconds: 0))
        } catch {
            pool.withLock { pool in
                pool.opened -= 1
                pool.failed = true
            }
            logger.warning("could not open an inline read connection; reads go to the queued reader", metadata: ["error": "\(error)"])
            return nil
        }
    }

    private func giveBack(_ connection: PooledHandle) {
        let keep = pool.withLock { pool -> Bool in
            if pool.closed {
                pool.opened -= 1
                return false
            }
            pool.idle.append(connection)
            return true
        }
        if !keep { connection.handle.close() }
    }

    /// Closes the idle connections now and each one in use when it is given back.
    func close() {
        let idle = pool.withLock { pool -> [PooledHandle] in
            pool.closed = true
            defer {
                pool.opened -= pool.idle.count
                pool.idle.removeAll()
            }
            return pool.idle
        }
        for connection in idle { connection.handle.close() }
    }
}

/// A connection of the inline pool: used by one thread at a time, the one that took it.
private final class PooledHandle: @unchecked Sendable {
    let handle: SQLiteConnectionHandle
    init(_ handle: SQLiteConnectionHandle) { self.handle = handle }
}
