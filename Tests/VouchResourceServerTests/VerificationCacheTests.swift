import Foundation
import Testing
import VouchResourceServer

@Suite("The verification cache")
struct VerificationCacheTests {
    @Test("a token verified before is accepted from the cache, even once its key is gone from the key set")
    func hitSkipsTheSignature() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let token = vouch.token(clock: clock)
            let first = try await verifier.verify(token)
            #expect(verifier.cachedTokenCount == 1)
            // Rotate key-1 out and fetch: a fresh verification would find no key-1.
            let next = TestSigningKey("key-2")
            vouch.publish([next])
            try await verifier.refreshKeys()
            await expectRejection(.unknownKey, verifier, vouch.token(clock: clock))
            #expect(try await verifier.verify(token) == first)
            #expect(verifier.cachedTokenCount == 1)
        }
    }

    @Test("an expired token is refused on a cache hit")
    func expiredOnHit() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let token = vouch.token(clock: clock) { $0.lifetime = 5 }
            _ = try await verifier.verify(token)
            clock.advance(by: 64)
            _ = try await verifier.verify(token)  // within the leeway
            #expect(verifier.cachedTokenCount == 1)
            clock.advance(by: 1)
            await expectRejection(.expired, verifier, token)
            #expect(verifier.cachedTokenCount == 0)
            await expectRejection(.expired, verifier, token)
        }
    }

    @Test("the cache holds at most its capacity, the oldest going first")
    func bounded() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock) { $0.verificationCacheCapacity = 3 }
            let tokens = (0..<5).map { _ in vouch.token(clock: clock) }
            for token in tokens { _ = try await verifier.verify(token) }
            #expect(verifier.cachedTokenCount == 3)
            // The two oldest were evicted: without their key they can no longer be verified.
            vouch.publish([TestSigningKey("key-2")])
            try await verifier.refreshKeys()
            await expectRejection(.unknownKey, verifier, tokens[0])
            await expectRejection(.unknownKey, verifier, tokens[1])
            for token in tokens[2...] { _ = try await verifier.verify(token) }
        }
    }

    @Test("refused tokens are not cached")
    func refusalsNotCached() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            await expectRejection(.wrongAudience, verifier, vouch.token(clock: clock) { $0.audience = "other" })
            await expectRejection(.badSignature, verifier, vouch.token(clock: clock, key: TestSigningKey("key-1")))
            #expect(verifier.cachedTokenCount == 0)
        }
    }
}
