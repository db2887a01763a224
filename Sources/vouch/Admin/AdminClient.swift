import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import VouchProtocol

/// The options every admin command shares: where the server is, how to find the admin token,
/// and whether to print JSON.
struct AdminOptions: ParsableArguments {
    @Option(name: .long, help: "The server's base URL.")
    var server = "http://127.0.0.1:8080"

    @Option(name: .long, help: "File holding the admin token (default: VOUCH_ADMIN_TOKEN).")
    var adminTokenFile: String?

    @Flag(name: .long, help: "Print the server's answer as JSON.")
    var json = false

    /// The admin token: from `--admin-token-file`, else `VOUCH_ADMIN_TOKEN`. Never an argument,
    /// which any user of the machine could read in the process list.
    func adminToken() throws -> String {
        if let adminTokenFile {
            let token = try CLIError.readFile(adminTokenFile).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw CLIError("\(adminTokenFile) is empty") }
            return token
        }
        if let token = ProcessInfo.processInfo.environment["VOUCH_ADMIN_TOKEN"], !token.isEmpty { return token }
        throw CLIError("no admin token: set VOUCH_ADMIN_TOKEN or pass --admin-token-file <data-dir>/admin-token")
    }

    func client() throws -> AdminClient {
        guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https", base.host != nil else {
            throw CLIError("--server must be an http:// or https:// URL")
        }
        return AdminClient(base: base.absoluteString.trimmingSuffix("/"), adminToken: try adminToken())
    }
}

/// One admin API call over HTTP. A refusal becomes a `CLIError` quoting the server's message
/// (exit 1); a server that cannot be reached exits 2, as `vouch token validate` does.
struct AdminClient {
    let base: String
    let adminToken: String

    /// The answer's body, for a 2xx status; throws otherwise.
    @discardableResult
    func call(_ method: HTTPMethod, _ path: String, body: (some Encodable)? = Optional<Empty>.none) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        }
        let (status, data) = try await ServerExchange.send(request, to: base)
        guard (200..<300).contains(status) else {
            let detail =
                (try? JSONDecoder().decode(ErrorBody.self, from: data)).map { "\($0.id): \($0.message)" }
                ?? String(decoding: data.prefix(300), as: UTF8.self)
            throw CLIError("the server answered \(status): \(detail)")
        }
        return data
    }

    func decode<T: Decodable>(
        _ type: T.Type, _ method: HTTPMethod, _ path: String,
        body: (some Encodable)? = Optional<Empty>.none
    ) async throws -> (T, Data) {
        let data = try await call(method, path, body: body)
        guard let value = try? JSONDecoder().decode(T.self, from: data) else {
            throw CLIError("the server's answer to \(method.rawValue) \(path) was not what this vouch expects")
        }
        return (value, data)
    }

    struct Empty: Encodable {}
}

/// One request to a vouch server with a CLI's patience: a short connect timeout (a refused
/// connection is otherwise retried until it), a bounded answer, and exit 2 when the server
/// cannot be reached.
enum ServerExchange {
    static func send(_ request: HTTPClientRequest, to server: String) async throws -> (UInt, Data) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3), read: .seconds(30))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 22)
            try await client.shutdown()
            return (response.status.code, Data(buffer: body))
        } catch {
            try? await client.shutdown()
            FileHandle.standardError.write(Data("error: cannot reach \(server): \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// Ids as the commands take them: `layer:///apps/<uuid>` or the bare UUID, in any case.
enum AdminPath {
    static func app(_ text: String) throws -> String {
        guard let id = LayerID.parseApp(text) else { throw CLIError("not an app id: \(text) (layer:///apps/<uuid> or a UUID)") }
        return id.lowercased
    }

    static func provider(_ text: String) throws -> String {
        guard let id = LayerID.parseProvider(text) else {
            throw CLIError("not a provider id: \(text) (layer:///providers/<uuid> or a UUID)")
        }
        return id.lowercased
    }

    static func key(_ text: String) throws -> String {
        guard let id = LayerID.parseKey(text) else { throw CLIError("not a key id: \(text) (layer:///keys/<uuid> or a UUID)") }
        return id.lowercased
    }

    /// A user id as one path segment (PROTOCOL §4: percent-encoded).
    static func user(_ text: String) throws -> String {
        guard (1...255).contains(text.utf8.count) else { throw CLIError("a user id is 1…255 bytes") }
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

/// Prints an answer: the server's JSON as it sent it with `--json`, else `text`'s lines.
enum AdminOutput {
    static func print(_ data: Data, json: Bool, _ text: () -> [String]) {
        if json {
            Swift.print(String(decoding: data, as: UTF8.self))
        } else {
            for line in text() { Swift.print(line) }
        }
    }
}
