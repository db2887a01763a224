#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import VouchStore

/// Keeps the database file readable and writable by its owner only (mode 0600).
///
/// The file holds secrets: Vouch's private signing keys, the apps' registration secrets, the
/// server's own secrets. A file made under a common umask (0022) would be readable by every user
/// of the machine, and with it every token Vouch could mint. So the store, before its first
/// connection, creates the file with mode 0600 if it does not exist yet and sets 0600 on one
/// that does, and on its `-wal` and `-shm` companions when they exist (a database left by an
/// earlier server, or copied in): SQLite gives the companions it creates the main file's mode,
/// so from then on every file of the database is the owner's alone.
enum SQLiteFilePermissions {
    /// Owner read and write, nothing for the group or others.
    static let mode: mode_t = 0o600

    /// The files SQLite keeps beside the database in WAL mode.
    static func companions(ofDatabase path: String) -> [String] {
        [path + "-wal", path + "-shm"]
    }

    /// Creates the database file at `path` with mode 0600 if it is missing, and sets 0600 on it
    /// and on its existing companions.
    /// - Throws: `StoreError.unavailable` when a file cannot be made or its mode cannot be set
    ///   (a file owned by another user): the store does not open a database it cannot keep private.
    static func restrict(databasePath path: String) throws {
        // A missing file is made here, exclusively, and the mode set on that very descriptor (the
        // umask may have taken bits off). An existing one is changed by its path and never opened:
        // closing a descriptor of a database file drops every POSIX lock this process holds on it,
        // SQLite's included.
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if descriptor >= 0 {
            defer { close(descriptor) }
            guard fchmod(descriptor, mode) == 0 else { throw failure("could not set mode 0600 on", path, errno) }
        } else if errno == EEXIST {
            guard chmod(path, mode) == 0 else { throw failure("could not set mode 0600 on", path, errno) }
        } else {
            throw failure("could not create", path, errno)
        }
        for companion in companions(ofDatabase: path) where chmod(companion, mode) != 0 {
            let code = errno
            if code != ENOENT { throw failure("could not set mode 0600 on", companion, code) }
        }
    }

    private static func failure(_ what: String, _ path: String, _ code: Int32) -> StoreError {
        StoreError.unavailable("\(what) the database file \(path): \(String(cString: strerror(code)))")
    }
}
