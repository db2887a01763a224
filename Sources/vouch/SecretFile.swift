import Foundation

/// Files that hold secrets (private keys, the admin token) are created with mode 0600 from the
/// start, never widened after the fact, so no other user can read them even for an instant; a
/// symbolic link in their place is refused rather than followed.
enum SecretFile {
    static func write(_ text: String, to url: URL) throws {
        let path = url.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { throw CLIError("cannot set mode 0600 on \(path)") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw CLIError("cannot write \(path): short write") }
    }
}
