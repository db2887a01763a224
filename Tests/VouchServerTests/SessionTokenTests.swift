import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchTokens
@testable import VouchServer

/// Session tokens lead with their second, so that their store keys are written in time order; the
/// keys still hold nothing but a hash of the token, and tokens made before still work.
@Suite("Session tokens")
struct SessionTokenTests {
    @Test("a token is its second and 256 random bits; its key is that second and the token's SHA-256")
    func shape() throws {
        let now: Int64 = 1_800_000_000
        let (token, key) = SessionToken.generate(now: now)
        let bytes = try #require(Base64URL.decodeCanonical(token))
        #expect(bytes.count == 40)
        #expect(Array(bytes[..<8]) == withUnsafeBytes(of: UInt64(now).bigEndian, Array.init))
        #expect(key == Array(bytes[..<8]) + Array(SHA256.hash(data: Array(token.utf8))))
        #expect(SessionToken.storageKey(token) == key)
        #expect(!key.contains(subsequence: Array(bytes[8...])), "the random part is never stored")

        let (other, otherKey) = SessionToken.generate(now: now)
        #expect(other != token && otherKey != key)
        // Keys sort by the second they were made: new sessions go where the last ones went.
        let (later, laterKey) = SessionToken.generate(now: now + 1)
        #expect(later != token)
        #expect(laterKey.lexicographicallyPrecedes(key) == false)
        #expect(key.lexicographicallyPrecedes(laterKey))
    }

    @Test("a token without a second, or anything else presented, is looked up by its bare SHA-256")
    func otherTokens() {
        let legacy = Base64URL.encode(Array(repeating: 7, count: 32))
        #expect(SessionToken.storageKey(legacy) == Array(SHA256.hash(data: Array(legacy.utf8))))
        for presented in ["", "x", String(repeating: "A", count: 54), String(repeating: "!", count: 54), "é" + String(repeating: "A", count: 52)] {
            let key = SessionToken.storageKey(presented)
            #expect(key.count == 32 || key.count == 40, "\(presented)")
            #expect(Array(key.suffix(32)) == Array(SHA256.hash(data: Array(presented.utf8))), "\(presented)")
        }
    }

    @Test("a session made under a token without a second is still found, and still revoked")
    func legacySessionStillWorks() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let appID = try #require(LayerID.parseApp(fixture.appID))
            let legacy = Base64URL.encode(SecureRandom.bytes(32))
            let now = server.clock.now
            _ = try await server.store.createSession(NewSession(
                tokenHash: Array(SHA256.hash(data: Array(legacy.utf8))), appID: appID, userID: "old-timer",
                profile: IdentityProfile(displayName: "Old"), createdAt: now, expiresAt: now + 3600,
                nonce: .serverNonce(hash: SecureRandom.bytes(32), expiresAt: now + 600)))
            let headers = ["Authorization": "Layer session-token=\"\(legacy)\""]
            let me = try await server.request(.GET, "/users/me", headers: headers)
            #expect(me.status == 200, "\(me.text)")
            #expect(try me.decode(CurrentUserResponse.self).user.userID == "old-timer")

            #expect(try await server.request(.DELETE, "/sessions/\(legacy)").status == 204)
            #expect(try await server.request(.GET, "/users/me", headers: headers).status == 401)
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
