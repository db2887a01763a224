#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import Synchronization
import VouchStore

/// Holds a database file for one store at a time, across processes.
///
/// SQLite would let a second `vouch serve` open the same file, and each would keep its own
/// `SessionCache`: a revocation through one would never reach the other's. The SQLite store is
/// one instance by design (many instances share PostgreSQL), so the second is refused at start,
/// with a message that says why, instead of serving stale sessions.
///
/// The lock is `flock` on a file beside the database (`<database>-vouch.lock`), never on the
/// database itself: SQLite's own locks are POSIX record locks, which a process loses when it
/// closes any descriptor of that file. The kernel drops the lock when the process ends, however
/// it ends, so a `kill -9` leaves nothing to clean up; the empty file stays.
final class SQLiteFileLock: Sendable {
    private let descriptor: Mutex<Int32?>

    private init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    /// The lock file of the database at `databasePath`.
    static func lockPath(forDatabase databasePath: String) -> String {
        databasePath + "-vouch.lock"
    }

    /// Takes the lock, waiting up to `patience` for a holder that is on its way out: a server
    /// restarted while the old process is still exiting, or a store just closed in this process
    /// while a child process it forked had not yet reached `exec` (a forked child shares the lock
    /// until then).
    /// - Throws: `StoreError.unavailable` when another store still holds it after that, or when
    ///   the lock file cannot be opened (a directory that is not writable).
    static func acquire(databasePath: String, patience: Duration = .seconds(2)) async throws -> SQLiteFileLock {
        let path = lockPath(forDatabase: databasePath)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw StoreError.unavailable("could not open the lock file \(path): \(reason)")
        }
        let deadline = ContinuousClock.now + patience
        while true {
            var result: Int32
            repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
            if result == 0 { return SQLiteFileLock(descriptor: descriptor) }
            let code = errno
            if code == EWOULDBLOCK, ContinuousClock.now < deadline {
                do {
                    try await Task.sleep(for: .milliseconds(20))
                    continue
                } catch {
                    close(descriptor)
                    throw StoreError.unavailable("cancelled while waiting for the lock on \(path)")
                }
            }
            close(descriptor)
            if code == EWOULDBLOCK {
                throw StoreError.unavailable(
                    "the database \(databasePath) is in use by another vouch serve (it holds \(path)); "
                        + "SQLite serves one instance: stop the other, or use PostgreSQL for several")
            }
            throw StoreError.unavailable("could not lock \(path): \(String(cString: strerror(code)))")
        }
    }

    /// Gives the lock up; releasing twice is harmless.
    func release() {
        let held = descriptor.withLock { descriptor -> Int32? in
            defer { descriptor = nil }
            return descriptor
        }
        if let held { close(held) }
    }

    deinit { release() }
}
