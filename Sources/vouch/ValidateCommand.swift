import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import VouchProtocol

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Ask a server whether it would accept a token, and exactly why not.",
        discussion: """
            Calls POST /admin/tools/validate-identity-token, which never consumes the token's nonce. \
            Needs the admin token: --admin-token, VOUCH_ADMIN_TOKEN, or ./vouch-data/admin-token. \
            Exits 0 when the token is valid, 1 when it is not (the reasons are printed), and 2 when \
            the server could not be asked.
            """
    )

    @Argument(help: "The token (or - to read it from standard input).")
    var token: String

    @Option(name: .long, help: "The server's base URL, e.g. http://127.0.0.1:8080.")
    var server: String

    @Option(name: .long, help: "The app the token is meant for (layer:///apps/<uuid> or the UUID).")
    var appId: String

    @Option(name: .long, help: "The admin token (default: VOUCH_ADMIN_TOKEN, then ./vouch-data/admin-token).")
    var adminToken: String?

    @Flag(name: .long, help: "Print the server's answer as JSON.")
    var json = false

    func run() async throws {
        let tokenText = try TokenArgument.read(token)
        guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https" else {
            throw CLIError("--server must be an http:// or https:// URL")
        }
        let admin = try resolveAdminToken()
        var request = HTTPClientRequest(url: base.absoluteString.trimmingSuffix("/") + "/admin/tools/validate-identity-token")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(admin)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(ValidateTokenRequest(identityToken: tokenText, appID: appId))))

        let (status, body) = try await ServerExchange.send(request, to: server)
        guard status == 200, let answer = try? JSONDecoder().decode(ValidateTokenResponse.self, from: body) else {
            let detail =
                (try? JSONDecoder().decode(ErrorBody.self, from: body)).map { "\($0.id): \($0.message)" }
                ?? String(decoding: body.prefix(300), as: UTF8.self)
            FileHandle.standardError.write(Data("error: the server answered \(status): \(detail)\n".utf8))
            throw ExitCode(2)
        }
        if json {
            // The server's own bytes: decoding and re-encoding would rewrite the token's number
            // literals (`1700000000.0` → `1700000000`) that the answer echoes exactly.
            print(String(decoding: body, as: UTF8.self))
        } else if answer.valid {
            print("valid: the server would accept this token for \(appId)")
        } else {
            print("invalid: \(answer.reasons.count) problem(s), the first is what POST /sessions answers")
            for finding in answer.reasons {
                let detail = [finding.param.map { "param \($0)" }, finding.claim.map { "claim \($0)" }, finding.hint]
                    .compactMap { $0 }.joined(separator: "; ")
                print("  \(finding.reason.rawValue): \(finding.message)" + (detail.isEmpty ? "" : " [\(detail)]"))
            }
        }
        if !answer.valid { throw ExitCode(1) }
    }

    private func resolveAdminToken() throws -> String {
        if let adminToken { return adminToken }
        if let token = ProcessInfo.processInfo.environment["VOUCH_ADMIN_TOKEN"], !token.isEmpty { return token }
        let path = "./vouch-data/admin-token"
        if FileManager.default.fileExists(atPath: path) {
            return try CLIError.readFile(path).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        throw CLIError("no admin token: pass --admin-token or set VOUCH_ADMIN_TOKEN")
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
