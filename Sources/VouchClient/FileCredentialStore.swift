import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The session in a file with mode 0600 inside a directory with mode 0700 (the Linux default;
/// on Apple platforms the Keychain is the default).
///
/// A file this process's user does not own, or cannot read, is reported as unavailable, never
/// silently taken for "no session": it may be a transient problem, or someone else's file.
public struct FileCredentialStore: CredentialStore {
    public let fileURL: URL

    public init(directory: URL) {
        fileURL = directory.appendingPathComponent("session.json")
    }

    public func load() throws(CredentialStoreError) -> Data? {
        let path = fileURL.path
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw .unavailable("cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        guard UInt32(info.st_mode) & UInt32(S_IFMT) == UInt32(S_IFREG) else { throw .unavailable("\(path) is not a regular file") }
        guard info.st_uid == getuid() else {
            throw .unavailable("\(path) belongs to user \(info.st_uid), not to this process's user \(getuid())")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .unavailable("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        do {
            return try handle.read(upToCount: 1 << 16) ?? Data()
        } catch {
            throw .unavailable("cannot read \(path)")
        }
    }

    public func save(_ data: Data) throws(CredentialStoreError) {
        let directory = fileURL.deletingLastPathComponent()
        try PrivateDirectory.ensure(directory)
        // Written to a private temporary file first and renamed, so that a crash never leaves half
        // a session and the file is never readable by others, not even for an instant.
        let temporary = directory.appendingPathComponent(".session-\(UUID().uuidString).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unavailable("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == data.count, synced == 0, rename(temporary, fileURL.path) == 0 else {
            unlink(temporary)
            throw .unavailable("cannot write \(fileURL.path)")
        }
    }

    /// Under an exclusive `flock` of a lock file beside the session: atomic between every
    /// client over this directory, in this process or another.
    public func replace(_ expected: Data?, with new: Data?) throws(CredentialStoreError) -> Bool {
        let directory = fileURL.deletingLastPathComponent()
        try PrivateDirectory.ensure(directory)
        let lockPath = directory.appendingPathComponent(".session.lock").path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unavailable("cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else { throw .unavailable("cannot lock \(lockPath): \(String(cString: strerror(errno)))") }
        defer { flock(descriptor, LOCK_UN) }
        guard try load() == expected else { return false }
        if let new { try save(new) } else { try remove() }
        return true
    }

    public func remove() throws(CredentialStoreError) {
        guard unlink(fileURL.path) == 0 || errno == ENOENT else {
            throw .unavailable("cannot remove \(fileURL.path): \(String(cString: strerror(errno)))")
        }
    }
}

/// A directory only this user can enter (0700), created when missing and tightened when looser.
enum PrivateDirectory {
    static func ensure(_ directory: URL) throws(CredentialStoreError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unavailable("cannot create \(directory.path)")
        }
        guard chmod(directory.path, 0o700) == 0 else {
            throw .unavailable("cannot make \(directory.path) private: \(String(cString: strerror(errno)))")
        }
    }
}
