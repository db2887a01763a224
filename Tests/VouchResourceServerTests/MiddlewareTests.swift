import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import VouchResourceServer
import VouchResourceServerHummingbird

struct TestContext: VouchAuthenticatedRequestContext {
    var coreContext: CoreRequestContextStorage
    var vouchUser: VerifiedAccessToken?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}

@Suite("The Hummingbird middleware")
struct MiddlewareTests {
    func app(verifier: AccessTokenVerifier) -> some ApplicationProtocol {
        let router = Router(context: TestContext.self)
        router.add(middleware: VouchAccessTokenMiddleware(verifier: verifier))
        router.get("/me") { _, context -> String in context.vouchUser?.userID ?? "nobody" }
        return Application(router: router)
    }

    @Test("a good token reaches the handler with its user on the context")
    func passes() async throws {
        try await TestVouch.run { vouch in
            let verifier = vouch.verifier(clock: TestClock(Date().timeIntervalSince1970))
            let token = vouch.token(clock: TestClock(Date().timeIntervalSince1970))
            try await app(verifier: verifier).test(.router) { client in
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "alice")
                }
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "bearer \(token)"]) { response in
                    #expect(response.status == .ok)
                }
            }
        }
    }

    @Test("a missing or refused token gets 401 with an RFC 6750 challenge")
    func refuses() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock(Date().timeIntervalSince1970)
            let verifier = vouch.verifier(clock: clock)
            let expired = vouch.token(clock: clock) { $0.issuedAt -= 1000 }
            try await app(verifier: verifier).test(.router) { client in
                try await client.execute(uri: "/me", method: .get) { response in
                    #expect(response.status == .unauthorized)
                    #expect(response.headers[.wwwAuthenticate] == "Bearer")
                }
                for header in ["Basic YWxpY2U6c2VjcmV0", "Bearer", "Bearer a b"] {
                    try await client.execute(uri: "/me", method: .get, headers: [.authorization: header]) { response in
                        #expect(response.status == .unauthorized)
                        #expect(response.headers[.wwwAuthenticate] == "Bearer")
                    }
                }
                for (token, reason) in [(expired, "expired"), ("not.a.token", "malformed")] {
                    try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                        #expect(response.status == .unauthorized)
                        #expect(response.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
                        #expect(response.headers[.contentType] == "application/json")
                        #expect(String(buffer: response.body) == #"{"error":"invalid_token","reason":"\#(reason)"}"#)
                    }
                }
            }
        }
    }

    @Test("without keys ever fetched the answer is 503, not 401")
    func keysUnavailable() async throws {
        try await TestVouch.run { vouch in
            vouch.setFailing(true)
            let clock = TestClock(Date().timeIntervalSince1970)
            let verifier = vouch.verifier(clock: clock)
            try await app(verifier: verifier).test(.router) { client in
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(vouch.token(clock: clock))"]) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.wwwAuthenticate] == nil)
                }
            }
        }
    }
}
