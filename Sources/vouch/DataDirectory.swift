import Foundation

/// `vouch serve`'s data directory: created (mode 0700) on first start, holding the SQLite
/// database and the generated admin token.
struct DataDirectory {
    let url: URL

    init(path: String) throws {
        url = URL(fileURLWithPath: path, isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIError("\(path) exists and is not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError("cannot create the data directory \(path): \((error as NSError).localizedDescription)")
        }
        Console.line("created data directory \(url.path)")
    }

    var databasePath: String { url.appendingPathComponent("vouch.sqlite").path }
    var adminTokenURL: URL { url.appendingPathComponent("admin-token") }

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
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let token = "vat_" + bytes.map { String(format: "%02x", $0) }.joined()
        try SecretFile.write(token + "\n", to: adminTokenURL)
        Console.line("generated the admin token into \(adminTokenURL.path) (mode 0600); it is shown this once:")
        Console.line("  \(token)")
        return token
    }
}
