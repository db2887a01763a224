import Foundation
import Testing

/// The hardening review's process-level findings: who may read the data directory, and that no
/// client behaviour produces an error-level log line.
@Suite(
    "vouch serve hardening", .serialized, .enabled(if: ProcessHarness.binaryExists, ProcessHarness.missingBinaryMessage),
    .timeLimit(.minutes(5)))
struct ProcessHardeningTests {
    private static func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
    }

    @Test("every file in the data directory is 0600 whatever the umask, even in an existing 0700 directory")
    func dataFilesArePrivate() async throws {
        try await ProcessScratch.with { scratch in
            let directory = scratch.url("existing")
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            // A database file an earlier version left world-readable is narrowed too.
            _ = FileManager.default.createFile(
                atPath: directory.appendingPathComponent("vouch.sqlite").path, contents: nil,
                attributes: [.posixPermissions: 0o644])
            let server = try await scratch.startServer(dataDir: "existing")
            _ = try await server.makeAppAndProvider()
            for name in ["vouch.sqlite", "vouch.sqlite-wal", "vouch.sqlite-shm", "admin-token"] {
                let file = directory.appendingPathComponent(name)
                #expect(FileManager.default.fileExists(atPath: file.path), "\(name) exists")
                #expect(try Self.mode(file) == 0o600, "\(name) is 0600")
            }
            #expect(try await server.child.stop() == .exited(0))

            let fresh = try await scratch.startServer(dataDir: "fresh")
            #expect(try Self.mode(scratch.url("fresh")) == 0o700)
            #expect(try Self.mode(scratch.url("fresh").appendingPathComponent("vouch.sqlite")) == 0o600)
            #expect(try await fresh.child.stop() == .exited(0))
        }
    }

    @Test("a data directory that group or others can reach is refused, with the fix in the message")
    func openDirectoryRefused() async throws {
        try await ProcessScratch.with { scratch in
            for mode in [0o755, 0o750, 0o701] {
                let directory = scratch.url("open-\(String(mode, radix: 8))")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: directory.path)
                let result = try await scratch.run(["serve", "--port", "0", "--data-dir", directory.path])
                #expect(result.exit != .exited(0), "mode \(String(mode, radix: 8)): \(result)")
                #expect(result.stderr.contains("chmod 700"), "\(result)")
                #expect(
                    !FileManager.default.fileExists(atPath: directory.appendingPathComponent("vouch.sqlite").path),
                    "nothing is written into a refused directory")
            }
        }
    }

    @Test("a data directory owned by another user is refused")
    func foreignDirectoryRefused() async throws {
        guard geteuid() == 0 else { return }  // only root can give a directory away; CI runs as root
        try await ProcessScratch.with { scratch in
            let directory = scratch.url("foreign")
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            #expect(chown(directory.path, 65_534, 65_534) == 0)
            let result = try await scratch.run(["serve", "--port", "0", "--data-dir", directory.path])
            #expect(result.exit != .exited(0), "\(result)")
            #expect(result.stderr.contains("belongs to another user"), "\(result)")
        }
    }

    @Test("no client behaviour produces an error-level log line")
    func clientMisbehaviourIsNotAnError() async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer(arguments: [
                "--log-level", "trace", "--idle-timeout", "1",
                "--request-timeout", "2",
            ])
            let (app, _) = try await server.makeAppAndProvider()
            let head = "POST /sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            let abuse = [
                head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
                head + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}xx\r\n0\r\n\r\n",
                head + "Transfer-Encoding: xchunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
                head + "Content-Length: 100\r\n\r\n{",
                "GET /\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\n\r\n",
                "GET /health HTTP/1.1\r\nX: \(String(repeating: "a", count: 40_000))\r\n\r\n",
                "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}",
                head + "Content-Length: 17\r\n\r\n{\"app_id\":\"x\",}x",
                head + "Content-Length: 40\r\n\r\n{\"app_id\":\"\(app)\",\"app_id\":1}",
            ]
            for request in abuse {
                let connection = try RawConnection(port: server.port)
                await connection.send(request)
                _ = await connection.readUntilClosed(within: 20)
            }
            #expect(try await server.signIn("not.a.token", app: app).status == 422)
            #expect(try await server.request(.GET, "/users/me", headers: [("Authorization", "Layer session-token=\"x\"")]).status == 401)
            #expect(try await server.child.stop() == .exited(0))
            let lines = (server.child.stdout + server.child.stderr).split(separator: "\n")
            let errors = lines.filter { line in
                let words = line.split(separator: " ")
                return words.count > 1 && (words[1] == "error" || words[1] == "critical")
            }
            #expect(errors.isEmpty, "error-level lines: \(errors.joined(separator: "\n"))")
            #expect(lines.contains { $0.contains("trace") || $0.contains("debug") }, "the log is at trace level")
        }
    }
}
