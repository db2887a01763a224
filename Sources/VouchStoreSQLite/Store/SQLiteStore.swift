import Foundation
import Logging
import VouchStore

/// The single-instance `Store`: one SQLite file, one writer connection.
///
/// The writer is used by one operation at a time on the `SQLiteWorker`'s serial queue, because
/// SQLite allows a single writer anyway and a transaction must not have another operation's
/// statements run in the middle of it. Every guarantee of `Store` (a nonce used once, a suspension
/// visible at once) then follows from SQLite's transactions, not from in-process state. Reads may
/// run on a second connection (`SQLiteReadConnection`), so that they do not wait behind a commit.
///
/// Call ``close()`` before dropping the store, so that the last operations finish first.
public final class SQLiteStore: Store {
    /// How long a statement waits for another process's write lock before failing as unavailable.
    static let busyTimeoutMilliseconds = 5_000
    /// How many sessions' look-ups `open` keeps in memory unless told otherwise (what that holds
    /// at most: docs/OPERATIONS.md, "Caches").
    public static let defaultSessionCacheCapacity = 16_384

    let worker: SQLiteWorker
    /// Reads, on their own connection so that they never wait behind a commit: opened the first
    /// time a read needs it, so a store that is never busy keeps one connection.
    /// Never opened for an in-memory database, which a second connection would not see.
    let readers: SQLiteReaders
    /// Reads on the calling thread (`.inline`); nil otherwise and for an in-memory database.
    let inlineReaders: SQLiteInlineReaders?
    /// Copies the WAL into the database beside the writer; nil when only one connection is allowed.
    let checkpointer: SQLiteCheckpointer?
    let logger: Logger

    let readConnection: SQLiteReadConnection
    /// Authenticated requests' look-ups, dropped by the writes that change them.
    let sessionCache: SessionCache
    /// The catalogue rows a sign-in reads (app, binding, key, secret), dropped likewise.
    let catalogueCache: CatalogueCache
    /// The users' rows as the writer's transactions last saw them, kept and dropped inside those
    /// transactions (see there why that is exact).
    let writerUsers: WriterUserCache
    /// The catalogue's cutoff generations as the writer last saw them, under the same rule.
    let writerGenerations: WriterCutoffGenerations
    /// The apps' subscribed event kinds as the writer sees them (`WriterSubscriptions`).
    let writerSubscriptions: WriterSubscriptions
    /// Keeps other processes' stores off the file (nil for an in-memory database).
    private let fileLock: SQLiteFileLock?

    private init(
        worker: SQLiteWorker, readers: SQLiteReaders, inlineReaders: SQLiteInlineReaders?,
        checkpointer: SQLiteCheckpointer?, readConnection: SQLiteReadConnection,
        sessionCache: SessionCache, catalogueCache: CatalogueCache, writerUsers: WriterUserCache,
        writerGenerations: WriterCutoffGenerations, writerSubscriptions: WriterSubscriptions, fileLock: SQLiteFileLock?,
        logger: Logger
    ) {
        self.worker = worker
        self.readers = readers
        self.inlineReaders = inlineReaders
        self.checkpointer = checkpointer
        self.readConnection = readConnection
        self.sessionCache = sessionCache
        self.catalogueCache = catalogueCache
        self.writerUsers = writerUsers
        self.writerGenerations = writerGenerations
        self.writerSubscriptions = writerSubscriptions
        self.fileLock = fileLock
        self.logger = logger
    }

    /// Opens (creating if needed) the database file at `path` and migrates it to the current schema.
    ///
    /// The file runs in WAL mode so that readers (a backup, the sqlite3 shell) do not block the
    /// server, with `synchronous=FULL` so that a committed sign-in survives a power loss, and with
    /// foreign keys enforced so that a session cannot name an app that does not exist. The file
    /// and its `-wal` and `-shm` companions are made mode 0600, or set to it when they exist
    /// (`SQLiteFilePermissions`): it holds secrets.
    ///
    /// - Throws: `ConfigurationError` for a configuration out of its ranges; `StoreError.unavailable`
    ///   when the file cannot be opened, made private or migrated, or when another store (in this
    ///   process or another) has it open; the connection is then closed again.
    public static func open(
        path: String,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "vouch.store.sqlite")
    ) async throws -> SQLiteStore {
        try configuration.validate()
        return try await open(path: path, unvalidated: configuration, logger: logger)
    }

    /// `open` without the ranges: for the engine's own tests, which hold groups back far longer
    /// than an operator may configure so that what they wait for is certain to arrive.
    static func open(path: String, unvalidated configuration: Configuration, logger: Logger) async throws -> SQLiteStore {
        let (readConnection, groupGathering, sessionCacheCapacity) =
            (configuration.readConnection, configuration.groupGathering, configuration.sessionCacheCapacity)
        let started = ContinuousClock.now
        // Before anything touches the file: a second store would serve from a cache that the
        // first one's writes never reach.
        let fileLock = isInMemory(path) ? nil : try await SQLiteFileLock.acquire(databasePath: path)
        // Before the first connection too: the file and its companions are the owner's alone
        // (it holds the signing keys and the registration secrets), and SQLite makes the
        // companions with the file's mode.
        if fileLock != nil {
            do {
                try SQLiteFilePermissions.restrict(databasePath: path)
            } catch {
                fileLock?.release()
                throw error
            }
        }
        // Connections beside the writer (reads, checkpoints) exist only for a file that others
        // can open, and only when the caller allows more than one.
        let sharedPath = Self.isInMemory(path) || readConnection == .never ? nil : path
        let checkpointer = sharedPath.map {
            SQLiteCheckpointer(path: $0, busyTimeoutMilliseconds: busyTimeoutMilliseconds, logger: logger)
        }
        var afterCommit: (@Sendable (Int, SQLiteRunner) -> Void)?
        if let checkpointer { afterCommit = { operations, db in checkpointer.committed(operations: operations, on: db) } }
        let writerUsers = WriterUserCache(capacity: sessionCacheCapacity == 0 ? 0 : WriterUserCache.defaultCapacity)
        let writerGenerations = WriterCutoffGenerations()
        let writerSubscriptions = WriterSubscriptions()
        let worker: SQLiteWorker
        do {
            worker = SQLiteWorker(
                handle: try SQLiteConnectionHandle(path: path, gathersWALWrites: true), logger: logger,
                gathering: groupGathering, afterCommit: afterCommit,
                afterRollback: {
                    writerUsers.forgetAll()
                    writerGenerations.forgetAll()
                    writerSubscriptions.forgetAll()
                })
        } catch {
            fileLock?.release()
            throw StoreError.from(sqlite: error)
        }
        // From here on the connection must be closed on every failure. The worker runs the
        // migration to its end even if the caller is cancelled meanwhile.
        do {
            let (from, to) = try await worker.run { db in
                try configure(db)
                if checkpointer != nil {
                    try db.execute("PRAGMA wal_autocheckpoint = \(SQLiteCheckpointer.writerBackstopPages)")
                }
                return try SQLiteMigrations.apply(on: db, now: Int64(Date().timeIntervalSince1970), logger: logger)
            }
            logger.info(
                "opened SQLite store",
                metadata: [
                    "path": "\(path)",
                    "schema_version_found": "\(from)",
                    "schema_version": "\(to)",
                    "duration": "\(ContinuousClock.now - started)",
                ])
            let readers = SQLiteReaders(path: sharedPath, busyTimeoutMilliseconds: busyTimeoutMilliseconds, logger: logger)
            let inlineReaders = readConnection == .inline ? sharedPath.map { SQLiteInlineReaders(path: $0, logger: logger) } : nil
            return SQLiteStore(
                worker: worker, readers: readers, inlineReaders: inlineReaders, checkpointer: checkpointer,
                readConnection: readConnection, sessionCache: SessionCache(capacity: sessionCacheCapacity),
                catalogueCache: CatalogueCache(capacity: sessionCacheCapacity == 0 ? 0 : CatalogueCache.defaultCapacity),
                writerUsers: writerUsers, writerGenerations: writerGenerations, writerSubscriptions: writerSubscriptions,
                fileLock: fileLock, logger: logger)
        } catch {
            _ = await worker.close()
            fileLock?.release()
            let mapped = StoreError.from(sqlite: error)
            logger.error("could not open SQLite store", metadata: ["path": "\(path)", "error": "\(mapped)"])
            throw mapped
        }
    }

    /// `:memory:` and `file::memory:…` name a database only one connection sees.
    static func isInMemory(_ path: String) -> Bool {
        path.isEmpty || path == ":memory:" || path.hasPrefix("file::memory:") || path.contains("mode=memory")
    }

    /// The per-connection settings; all must hold before the first transaction.
    private static func configure(_ db: SQLiteRunner) throws {
        let mode = try db.rows("PRAGMA journal_mode = WAL").first?.text("journal_mode")
        guard mode?.lowercased() == "wal" else {
            throw StoreError.unavailable("could not switch to WAL mode (journal_mode is \(mode ?? "unknown"))")
        }
        try db.execute("PRAGMA synchronous = FULL")
        try db.execute("PRAGMA foreign_keys = ON")
        // A stuck lock becomes an error, not a hang.
        try db.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
    }

    /// Runs `body` alone on the connection, and maps what it throws to `StoreError`.
    ///
    /// Used for reads and for single statements, which SQLite runs atomically by themselves.
    /// `invalidating` says what the statement can change of what the caches keep; whatever `body`
    /// did, that is dropped before this returns or throws (a read says `.none`), and from the
    /// writer's users before `body` runs.
    func exclusive<T: Sendable>(
        _ operation: String, invalidating invalidation: CacheInvalidation = .everything,
        _ body: @escaping @Sendable (SQLiteRunner) throws -> T
    ) async throws -> T {
        defer { invalidate(invalidation) }
        do {
            return try await worker.run(forgettingWriterUsers(invalidation, body))
        } catch {
            throw mapped(error, operation)
        }
    }

    /// Runs a read-only `body` (in one snapshot) where `readConnection` says: on the calling
    /// thread (`.inline`, when a connection is free and the database not busy), on the queued read
    /// connection (`.always`, and `.inline`'s overflow), or on the writer's queue.
    ///
    /// A read that may take long (counting a user's sessions reads every live session,
    /// `UserSessionStatements`) passes `inline: false`: it never runs on the caller's thread, which
    /// is one of the few threads of Swift's pool that every request shares, and goes where the
    /// configuration sends the reads that do not run inline.
    func read<T: Sendable>(
        _ operation: String, inline: Bool = true,
        _ body: @escaping @Sendable (SQLiteRunner) throws -> T
    ) async throws -> T {
        if inline, let inlineReaders {
            do {
                if let value = try inlineReaders.run(body) { return value }
            } catch {
                throw mapped(error, operation)
            }
        }
        let wantsReader =
            switch readConnection {
            case .always, .inline: true
            case .never: false
            }
        guard wantsReader, let reader = readers.reader() else {
            return try await exclusive(operation, invalidating: .none, body)
        }
        do {
            return try await reader.run(body)
        } catch {
            throw mapped(error, operation)
        }
    }

    /// Runs `body` as one transaction: it commits entirely or, on any throw, rolls back entirely.
    /// It may share its commit (and its fsync) with other operations waiting at the same time.
    /// What it can change of the caches (`invalidating`) is dropped after the commit, before this
    /// returns or throws; of the writer's users, inside the transaction before `body` runs.
    func transaction<T: Sendable>(
        _ operation: String, invalidating invalidation: CacheInvalidation = .everything,
        _ body: @escaping @Sendable (SQLiteRunner) throws -> T
    ) async throws -> T {
        defer { invalidate(invalidation) }
        do {
            return try await worker.transaction(forgettingWriterUsers(invalidation, body))
        } catch {
            throw mapped(error, operation)
        }
    }

    /// `body`, preceded on the writer by dropping the users it can change from `writerUsers` (and,
    /// for `.everything`, the catalogue's generations from `writerGenerations`): the rows are read
    /// after that in the writer's order, so none kept from before the write is used after it (a
    /// write that says `.none`, `.session` or `.sessions` changes no user's or catalogue row).
    private func forgettingWriterUsers<T>(
        _ invalidation: CacheInvalidation, _ body: @escaping @Sendable (SQLiteRunner) throws -> T
    ) -> @Sendable (SQLiteRunner) throws -> T {
        switch invalidation {
        case .none, .session, .sessions:
            return body
        case .user, .everything:
            let (writerUsers, writerGenerations) = (writerUsers, writerGenerations)
            return { db in
                writerUsers.forget(invalidation)
                if invalidation == .everything { writerGenerations.forgetAll() }
                return try body(db)
            }
        }
    }

    /// Drops from both caches what a committed write may have changed.
    func invalidate(_ invalidation: CacheInvalidation) {
        sessionCache.invalidate(invalidation)
        catalogueCache.invalidate(invalidation)
    }

    private func mapped(_ error: any Error, _ operation: String) -> any Error {
        let mapped = StoreError.from(sqlite: error)
        if let failure = mapped as? StoreError, failure.kind == .unavailable {
            logger.error("store operation failed", metadata: ["operation": "\(operation)", "error": "\(failure.detail ?? "")"])
        }
        return mapped
    }

    // MARK: Store

    public func ping() async throws {
        try await exclusive("ping", invalidating: .none) { db in try db.execute("SELECT 1") }
    }

    /// Closes the connection once every operation queued before it has finished. Closing twice is
    /// harmless; any use afterwards throws `StoreError.unavailable`.
    public func close() async throws {
        inlineReaders?.close()
        await readers.close()
        await checkpointer?.close()
        if await worker.close() { logger.info("closed SQLite store") }
        fileLock?.release()
    }
}
