import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization
import VouchServer
import VouchStore
import VouchTestSupport

/// A minimal browser for the dashboard over real HTTP: a cookie jar, form posts, no automatic
/// redirects (so tests see each 303 and its `Location`).
final class DashboardBrowser: Sendable {
    let baseURL: String
    private let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: .init(redirectConfiguration: .disallow))
    private let jar = Mutex<[String: String]>([:])

    init(baseURL: String) { self.baseURL = baseURL }

    func shutdown() async throws { try await client.shutdown() }

    /// Runs `body` with a browser against a live server, always shutting the browser down.
    static func run(
        configure: @escaping (inout ServerConfiguration) -> Void = { _ in }, _ body: @Sendable (LiveServer, DashboardBrowser) async throws -> Void
    ) async throws {
        try await LiveServer.run(configure: configure) { server in
            let browser = DashboardBrowser(baseURL: server.baseURL)
            do {
                try await body(server, browser)
            } catch {
                try? await browser.shutdown()
                throw error
            }
            try await browser.shutdown()
        }
    }

    /// Runs `body` signed in, with the CSRF token and an app made in the store ("Chat", an hour's
    /// sessions) for the page under test to act on.
    static func runSignedIn(
        configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (LiveServer, DashboardBrowser, _ csrf: String, AppRecord) async throws -> Void
    ) async throws {
        try await run(configure: configure) { server, browser in
            _ = try await browser.signIn(token: LiveServer.adminToken)
            guard let csrf = DashboardBrowser.csrf(in: try await browser.get("/dashboard/apps")) else {
                throw TestFailure("the apps page carries no CSRF token")
            }
            let app = AppRecord(id: UUID(), name: "Chat", sessionTTLSeconds: 3600, createdAt: server.clock.now)
            try await server.store.createApp(app)
            try await body(server, browser, csrf, app)
        }
    }

    var cookies: [String: String] { jar.withLock { $0 } }
    func setCookie(_ name: String, _ value: String?) { jar.withLock { $0[name] = value } }

    func get(_ path: String) async throws -> HTTPResult {
        try await send("GET", path, form: nil)
    }

    func post(_ path: String, _ form: [(String, String)], headers: [String: String] = [:]) async throws -> HTTPResult {
        try await send("POST", path, form: form, headers: headers)
    }

    private func send(_ method: String, _ path: String, form: [(String, String)]?, headers: [String: String] = [:]) async throws -> HTTPResult {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .init(rawValue: method)
        let cookieHeader = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        if !cookieHeader.isEmpty { request.headers.add(name: "Cookie", value: cookieHeader) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let form {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        for header in response.headers["Set-Cookie"] {
            guard let pair = header.split(separator: ";").first, let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals]), value = String(pair[pair.index(after: equals)...])
            setCookie(name, header.contains("Max-Age=0") ? nil : value)
        }
        return HTTPResult(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Data(buffer: bytes))
    }

    /// The value of the first hidden `csrf` input on a page.
    static func csrf(in page: HTTPResult) -> String? {
        guard let range = page.text.range(of: #"name="csrf" value=""#) else { return nil }
        let rest = page.text[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// Signs in with `token`; returns the answer to the sign-in post.
    func signIn(token: String) async throws -> HTTPResult {
        let page = try await get("/dashboard/sign-in")
        return try await post("/dashboard/sign-in", [("csrf", Self.csrf(in: page) ?? ""), ("admin_token", token)])
    }
}
