import Foundation
import Testing
import VouchResourceServer

@Suite("Fetching and keeping the issuer's key set")
struct KeySetTests {
    @Test("an unknown kid causes one refetch, and the token is accepted once its key is published")
    func unknownKeyRefetch() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            try await verifier.refreshKeys()
            #expect(vouch.jwksRequests == 1)
            let next = TestSigningKey("key-2")
            vouch.publish([vouch.signingKey, next])
            _ = try await verifier.verify(vouch.token(clock: clock, key: next))
            #expect(vouch.jwksRequests == 2)
            #expect(verifier.keySetStatus.keyIDs == ["key-1", "key-2"])
            // Another unknown kid within the minute: refused without a fetch.
            await expectRejection(.unknownKey, verifier, vouch.token(clock: clock, key: TestSigningKey("key-3")))
            #expect(vouch.jwksRequests == 2)
            // A minute later it may fetch again.
            clock.advance(by: 60)
            await expectRejection(.unknownKey, verifier, vouch.token(clock: clock, key: TestSigningKey("key-3")))
            #expect(vouch.jwksRequests == 3)
        }
    }

    @Test("50 tokens with unknown kids at once cause one fetch")
    func unknownKeyBurst() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            try await verifier.refreshKeys()
            let tokens = (0..<50).map { vouch.token(clock: clock, key: TestSigningKey("unknown-\($0)")) }
            let kinds = await withTaskGroup(of: AccessTokenRejection.Kind?.self) { group in
                for token in tokens {
                    group.addTask {
                        do throws(AccessTokenRejection) {
                            _ = try await verifier.verify(token)
                            return nil
                        } catch {
                            return error.kind
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(kinds.count == 50)
            #expect(kinds.allSatisfy { $0 == .unknownKey })
            #expect(vouch.jwksRequests == 2)
        }
    }

    @Test("concurrent first verifications share one fetch")
    func singleFlight() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let tokens = (0..<20).map { _ in vouch.token(clock: clock) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for token in tokens { group.addTask { _ = try await verifier.verify(token) } }
                try await group.waitForAll()
            }
            #expect(vouch.jwksRequests == 1)
        }
    }

    @Test("through an outage of the JWKS URL the last good keys keep verifying")
    func outage() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            try await verifier.refreshKeys()
            vouch.setFailing(true)
            clock.advance(by: 301)
            // Stale keys are used at once; the refresh runs behind and fails.
            _ = try await verifier.verify(vouch.token(clock: clock))
            try await eventually("the failed refresh") { verifier.keySetStatus.lastFailure != nil }
            #expect(verifier.keySetStatus.keyIDs == ["key-1"])
            #expect(verifier.keySetStatus.lastFailure == "status 503")
            let attempts = vouch.jwksRequests
            // Within the retry interval: no new attempt, still verifying, an unknown kid is unknown.
            _ = try await verifier.verify(vouch.token(clock: clock))
            await expectRejection(.unknownKey, verifier, vouch.token(clock: clock, key: TestSigningKey("key-2")))
            #expect(vouch.jwksRequests == attempts)
            await #expect(throws: AccessTokenRejection.keysUnavailable) { try await verifier.refreshKeys() }
            // Back up: the next refresh after the retry interval succeeds.
            vouch.setFailing(false)
            clock.advance(by: 10)
            _ = try await verifier.verify(vouch.token(clock: clock))
            try await eventually("the refresh after the outage") { verifier.keySetStatus.successfulFetches == 2 }
            #expect(verifier.keySetStatus.lastFailure == nil)
        }
    }

    @Test(
        "Cache-Control max-age is honoured within [60 s, 3600 s]",
        arguments: [
            ("public, max-age=300", 300.0), ("max-age=5", 60), ("max-age=100000", 3600), ("no-cache", 60), ("no-store, max-age=600", 60),
            (nil, 60), ("max-age=\"120\"", 120), ("max-age=-1", 60), ("private, MAX-AGE=900", 900),
        ] as [(String?, Double)])
    func cacheLifetime(cacheControl: String?, lifetime: Double) async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            vouch.setCacheControl(cacheControl)
            try await verifier.refreshKeys()
            let status = verifier.keySetStatus
            let fetchedAt = try #require(status.fetchedAt)
            #expect(try #require(status.refreshDueAt).timeIntervalSince(fetchedAt) == lifetime)
        }
    }

    @Test("the clamp is configurable, and the keys are fetched again when their lifetime is over")
    func refreshWhenDue() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock) {
                $0.minimumCacheLifetime = 10
                $0.maximumCacheLifetime = 100
            }
            vouch.setCacheControl("max-age=1000")
            try await verifier.refreshKeys()
            #expect(verifier.keySetStatus.refreshDueAt == verifier.keySetStatus.fetchedAt.map { $0 + 100 })
            clock.advance(by: 99)
            _ = try await verifier.verify(vouch.token(clock: clock))
            #expect(!verifier.keySetStatus.isRefreshing)
            #expect(vouch.jwksRequests == 1)
            clock.advance(by: 1)
            _ = try await verifier.verify(vouch.token(clock: clock))
            try await eventually("the refresh") { verifier.keySetStatus.successfulFetches == 2 }
            #expect(vouch.jwksRequests == 2)
        }
    }

    @Test("a key set document that is not usable keeps the keys held")
    func unusableDocument() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            try await verifier.refreshKeys()
            vouch.publish([])
            await #expect(throws: AccessTokenRejection.keysUnavailable) { try await verifier.refreshKeys() }
            #expect(verifier.keySetStatus.keyIDs == ["key-1"])
            #expect(verifier.keySetStatus.lastFailure == "no usable ES256 key")
        }
    }

    @Test("the fetch follows no redirect, reads no more than its bound, and gives up after its timeout")
    func boundedFetch() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let redirected = vouch.verifier(clock: clock) { $0.jwksURL = vouch.redirectingURL }
            await #expect(throws: AccessTokenRejection.keysUnavailable) { try await redirected.refreshKeys() }
            #expect(redirected.keySetStatus.lastFailure == "status 302")
            #expect(vouch.jwksRequests == 0)

            let bounded = vouch.verifier(clock: clock) { $0.maximumKeySetBytes = 4096 }
            vouch.setPadding(5000)
            await #expect(throws: AccessTokenRejection.keysUnavailable) { try await bounded.refreshKeys() }
            #expect(bounded.keySetStatus.lastFailure == "body over 4096 bytes")
            vouch.setPadding(1000)
            try await bounded.refreshKeys()

            let hanging = vouch.verifier(clock: clock) {
                $0.jwksURL = vouch.hangingURL
                $0.fetchTimeout = .milliseconds(200)
            }
            await expectRejection(.keysUnavailable, hanging, vouch.token(clock: clock))
            #expect(hanging.keySetStatus.lastFailure != nil)
        }
    }
}
