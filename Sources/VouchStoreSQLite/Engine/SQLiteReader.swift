import Dispatch
import Synchronization
import Logging
import VouchStore

/// A second connection, for reads, on its own serial queue.
///
/// The writer's queue is busy for the whole of a group commit, fsync included: reads sent there
/// (the app, the key and the claim look-ups of a sign-in, the session of every authenticated
/// request) would wait behind it. In WAL mode a reader never waits for the writer, so reads come
/// here instead. Each read runs inside one deferred transaction, so an operation of several
/// statements sees one snapshot; a read that starts after a write was answered sees that write
/// (its transaction starts later), which is what "visible on the next request" needs.
final class SQLiteReader: Sendable {
    private let queue = DispatchQueue(label: "vouch.store.sqlite.read")
    private let connection: ReaderConnection
    private let logger: Logger

    /// Opens the connection read-only in intent (`query_only`), with the writer's busy timeout.
    init(path: String, busyTimeoutMilliseconds: Int, logger: Logger) throws {
        connection = ReaderConnection(try SQLiteConnectionHandle.forReading(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds))
        self.logger = logger
    }

    /// Runs `body` on the read connection in one read transaction. Once queued it runs to its end
    /// even if the caller is cancelled.
    func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteRunner) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.inReadTransaction(body) })
            }
        }
    }

    private func inReadTransaction<T>(_ body: (SQLiteRunner) throws -> T) throws -> T {
        try ReadTransaction.run(on: connection.handle, logger: logger, body)
    }

    /// Closes the connection once every read queued before it has run.
    func close() async {
        await withCheckedContinuation { continuation in
            queue.async {
                self.connection.handle.close()
                continuation.resume()
            }
        }
    }
}

/// The read connection's handle, which only the reader's serial queue touches.
private final class ReaderConnection: @unchecked Sendable {
    let handle: SQLiteConnectionHandle
    init(_ handle: SQLiteConnectionHandle) { self.handle = handle }
}

/// The store's read connection, opened on first need and then kept.
final class SQLiteReaders: Sendable {
    private let path: String?
    private let busyTimeoutMilliseconds: Int
    private let logger: Logger
    private let state = Mutex<State>(.notOpened)

    private enum State {
        case notOpened
        case open(SQLiteReader)
        /// Opening failed once (or the store closed): reads stay on the writer's queue.
        case unavailable
    }

    /// - Parameter path: the database file; `nil` when a second connection would not see it.
    init(path: String?, busyTimeoutMilliseconds: Int, logger: Logger) {
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.logger = logger
    }

    /// Whether the read connection has been opened (and not closed).
    var isOpen: Bool {
        state.withLock { state in
            if case .open = state { return true }
            return false
        }
    }

    /// The read connection, opening it the first time; `nil` when there cannot be one.
    func reader() -> SQLiteReader? {
        state.withLock { state in
            switch state {
            case .open(let reader):
                return reader
            case .unavailable:
                return nil
            case .notOpened:
                guard let path else {
                    state = .unavailable
                    return nil
                }
                do {
                    let reader = try SQLiteReader(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, logger: logger)
                    state = .open(reader)
                    return reader
                } catch {
                    logger.warning("could not open a read connection; reads share the writer's", metadata: ["error": "\(error)"])
                    state = .unavailable
                    return nil
                }
            }
        }
    }

    func close() async {
        let opened = state.withLock { state -> SQLiteReader? in
            defer { state = .unavailable }
            if case .open(let reader) = state { return reader }
            return nil
        }
        await opened?.close()
    }
}
