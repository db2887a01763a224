import Foundation
import VouchServer

/// `vouch serve`'s data directory: created (mode 0700) on first start, holding the generated
/// admin token and, unless `--database` names another, the SQLite database.
///
/// The database holds the registration secrets and the nonce MAC key, so the directory must be
/// the server's alone: one that other users can enter, or that another user owns, is refused
/// with a message saying how to fix it, and every file in it is created (or brought back to)
/// mode 0600 whatever the umask.
struct DataDirectory {
    let url: URL

    /// The files the server keeps here; SQLite's `-wal` and `-shm` copy the database's mode.
    static let fileNames = ["vouch.sqlite", "vouch.sqlite-wal", "vouch.sqlite-shm", "admin-token"]

    init(path: String) throws {
        url = URL(fileURLWithPath: path, isDirectory: true)
        var status = stat()
        if lstat(url.path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw CLIError("\(path) exists and is not a directory") }
            try Self.checkPrivate(path: url.path, status: status)
        } else {
            do {
                try FileManager.default.createDirectory(
                    at: url, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIError("cannot create the data directory \(path): \((error as NSError).localizedDescription)")
            }
            // The umask may have narrowed the mode further, never widened it; set it exactly.
            guard chmod(url.path, 0o700) == 0 else { throw CLIError("cannot set mode 0700 on \(path)") }
            Console.line("created data directory \(url.path)")
        }
        try restrictFiles()
    }

    var adminTokenURL: URL { url.appendingPathComponent("admin-token") }

    /// The SQLite database's path here, its file created 0600 before SQLite opens it (SQLite would
    /// use 0644 minus the umask, and give its `-wal` and `-shm` files the same). Only a server that
    /// keeps its database here asks: one on PostgreSQL leaves no empty database file behind.
    func sqliteDatabasePath() throws -> String {
        let path = url.appendingPathComponent("vouch.sqlite").path
        let database = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard database >= 0 else {
            throw CLIError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        close(database)
        return path
    }

    /// Narrows the files an earlier version left wider.
    private func restrictFiles() throws {
        for name in Self.fileNames {
            let file = url.appendingPathComponent(name).path
            var status = stat()
            guard lstat(file, &status) == 0 else { continue }
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw CLIError("\(file) is not a regular file; move it away and start again")
            }
            if status.st_mode & 0o077 != 0, chmod(file, 0o600) != 0 {
                throw CLIError("cannot set mode 0600 on \(file): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Refuses a directory that another user owns or that group or others may enter.
    private static func checkPrivate(path: String, status: stat) throws {
        guard status.st_uid == geteuid() else {
            throw CLIError(
                """
                the data directory \(path) belongs to another user (uid \(status.st_uid)); \
                it holds secrets, so it must be this user's: run `chown \(geteuid()) \(path)` or choose another --data-dir
                """)
        }
        guard status.st_mode & 0o077 == 0 else {
            let mode = String(status.st_mode & 0o777, radix: 8)
            throw CLIError(
                """
                the data directory \(path) has mode \(mode): group or others can reach the secrets it holds; \
                run `chmod 700 \(path)` and start again
                """)
        }
    }

    /// `VOUCH_ADMIN_TOKEN`, else the token file, else a new token written to the file (0600) and
    /// printed this once.
    func adminToken() throws -> String {
        if let token = ProcessInfo.processInfo.environment["VOUCH_ADMIN_TOKEN"], !token.isEmpty {
            guard token.utf8.count >= 16 else { throw CLIError("VOUCH_ADMIN_TOKEN must be at least 16 characters") }
            return token
        }
        if FileManager.default.fileExists(atPath: adminTokenURL.path) {
            let token = try CLIError.readFile(adminTokenURL.path).trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.utf8.count >= 16 else { throw CLIError("\(adminTokenURL.path) holds no usable admin token") }
            return token
        }
        let token = "vat_" + SecureRandom.bytes(32).map { String(format: "%02x", $0) }.joined()
        try SecretFile.write(token + "\n", to: adminTokenURL)
        Console.line("generated the admin token into \(adminTokenURL.path) (mode 0600); it is shown this once:")
        Console.line("  \(token)")
        return token
    }
}
