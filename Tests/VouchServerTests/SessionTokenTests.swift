import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchTokens
@testable import VouchServer

/// Session tokens lead with the microsecond they were made, so that their store keys are written in
/// time order; the keys still hold nothing but a hash of the token, and tokens made before still work.
@Suite("Session tokens")
struct SessionTokenTests {
    @Test("a token is its microsecond and 256 random bits; its key is that stamp and the token's SHA-256")
    func shape() throws {
        let now: Int64 = 1_800_000_000
        let (token, key) = SessionToken.generate(now: now, microsecond: 250_000)
        let bytes = try #require(Base64URL.decodeCanonical(token))
        #expect(bytes.count == 40)
        #expect(Array(bytes[..<8]) == withUnsafeBytes(of: UInt64(1_800_000_000_250_000).bigEndian, Array.init))
        #expect(key == Array(bytes[..<8]) + Array(SHA256.hash(data: Array(token.utf8))))
        #expect(SessionToken.storageKey(token) == key)
        #expect(!key.contains(subsequence: Array(bytes[8...])), "the random part is never stored")

        let (other, otherKey) = SessionToken.generate(now: now, microsecond: 250_000)
        #expect(other != token && otherKey != key)
    }

    @Test("keys sort by the microsecond their tokens were made, and after keys that led with a second")
    func order() throws {
        let now: Int64 = 1_800_000_000
        // Within one second: the reason for the stamp (keys by second alone landed at random among
        // the second's pages).
        let keys = [0, 1, 499_999, 999_999].map { SessionToken.generate(now: now, microsecond: $0).key }
        let nextSecond = SessionToken.generate(now: now + 1, microsecond: 0).key
        for (earlier, later) in zip(keys, keys.dropFirst() + [nextSecond]) {
            #expect(earlier.lexicographicallyPrecedes(later))
        }
        // A token of the day before, which led with its second: its key sorts before every new one,
        // and it is still looked up under that second and its hash.
        let secondLed = withUnsafeBytes(of: UInt64(now).bigEndian, Array.init) + SecureRandom.bytes(32)
        let oldToken = Base64URL.encode(secondLed)
        let oldKey = SessionToken.storageKey(oldToken)
        #expect(oldKey == Array(secondLed[..<8]) + Array(SHA256.hash(data: Array(oldToken.utf8))))
        #expect(oldKey.lexicographicallyPrecedes(try #require(keys.first)))
        // The machine's microsecond is within its second, and clocks far off do not trap.
        #expect((0..<1_000_000).contains(MicrosecondStamp.currentMicrosecondWithinSecond()))
        #expect(SessionToken.generate(now: .max).key.prefix(8).allSatisfy { $0 == 0xFF })
        #expect(SessionToken.generate(now: -1).key.prefix(8).allSatisfy { $0 == 0 })
    }

    @Test("a token without a stamp, or anything else presented, is looked up by its bare SHA-256")
    func otherTokens() {
        let legacy = Base64URL.encode(Array(repeating: 7, count: 32))
        #expect(SessionToken.storageKey(legacy) == Array(SHA256.hash(data: Array(legacy.utf8))))
        for presented in ["", "x", String(repeating: "A", count: 54), String(repeating: "!", count: 54), "é" + String(repeating: "A", count: 52)] {
            let key = SessionToken.storageKey(presented)
            #expect(key.count == 32 || key.count == 40, "\(presented)")
            #expect(Array(key.suffix(32)) == Array(SHA256.hash(data: Array(presented.utf8))), "\(presented)")
        }
    }

    @Test("sessions made under tokens of the earlier layouts (no stamp; a leading second) are still found, and still revoked")
    func earlierLayoutsStillWork() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let appID = try #require(LayerID.parseApp(fixture.appID))
            let now = server.clock.now
            let bare = Base64URL.encode(SecureRandom.bytes(32))
            let secondLedBytes = withUnsafeBytes(of: UInt64(now).bigEndian, Array.init) + SecureRandom.bytes(32)
            let secondLed = Base64URL.encode(secondLedBytes)
            let layouts = [
                (bare, Array(SHA256.hash(data: Array(bare.utf8)))),
                (secondLed, Array(secondLedBytes[..<8]) + Array(SHA256.hash(data: Array(secondLed.utf8)))),
            ]
            for (index, (token, storedKey)) in layouts.enumerated() {
                _ = try await server.store.createSession(
                    NewSession(
                        tokenHash: storedKey, appID: appID, userID: "old-timer-\(index)",
                        profile: IdentityProfile(displayName: "Old"), createdAt: now, expiresAt: now + 3600,
                        nonce: .serverNonce(hash: SecureRandom.bytes(32), expiresAt: now + 600)))
                let headers = ["Authorization": "Layer session-token=\"\(token)\""]
                let me = try await server.request(.GET, "/users/me", headers: headers)
                #expect(me.status == 200, "\(me.text)")
                #expect(try me.decode(CurrentUserResponse.self).user.userID == "old-timer-\(index)")

                #expect(try await server.request(.DELETE, "/sessions/\(token)").status == 204)
                #expect(try await server.request(.GET, "/users/me", headers: headers).status == 401)
            }
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
