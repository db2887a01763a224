import Testing
@testable import VouchClient

/// The backoff's arithmetic: doubling, jitter within half, the cap, Retry-After honoured within it.
@Suite struct RetryPolicyTests {
    @Test func delaysDoubleWithJitterAndStayUnderTheCap() {
        let policy = RetryPolicy(maximumAttempts: 6, initialDelaySeconds: 1, maximumDelaySeconds: 5)
        for _ in 0..<200 {
            #expect((0.5...1).contains(policy.delay(beforeAttempt: 1)))
            #expect((1...2).contains(policy.delay(beforeAttempt: 2)))
            #expect((2...4).contains(policy.delay(beforeAttempt: 3)))
            #expect((2.5...5).contains(policy.delay(beforeAttempt: 4)))
            #expect((2.5...5).contains(policy.delay(beforeAttempt: 40)))
        }
    }

    @Test func retryAfterIsHonouredButCapped() {
        let policy = RetryPolicy(maximumAttempts: 3, initialDelaySeconds: 0.1, maximumDelaySeconds: 8)
        #expect(policy.delay(beforeAttempt: 1, retryAfterSeconds: 3) == 3)
        #expect(policy.delay(beforeAttempt: 1, retryAfterSeconds: 3_600) == 8)
    }

    @Test func nonsenseSettingsAreClamped() {
        let policy = RetryPolicy(maximumAttempts: 0, initialDelaySeconds: -1, maximumDelaySeconds: -5)
        #expect(policy.maximumAttempts == 1)
        #expect(policy.delay(beforeAttempt: 1) == 0)
    }

    @Test func onlyFixableFailuresAreRetried() {
        let retried: [VouchClientError] = [
            .network(message: "x"), .serverUnavailable(status: 503), .rateLimited(retryAfterSeconds: 1),
            .tokenProviderFailed(message: "x"), .tokenProviderTimedOut(seconds: 1), rejection("eit_nonce_not_found"),
        ]
        let final: [VouchClientError] = [
            rejection("eit_signature_verification_failed"), rejection("eit_key_not_found"),
            rejection("eit_provider_not_bound_to_app"), rejection("eit_user_suspended"),
            rejection("eit_malformed_json"), rejection("eit_expired"), .superseded,
            .invalidAppID(message: "x"), .alreadyAuthenticated(userID: "a"),
        ]
        for error in retried { #expect(VouchClient.isWorthRetrying(error), "\(error)") }
        for error in final { #expect(!VouchClient.isWorthRetrying(error), "\(error)") }
    }

    private func rejection(_ reason: String) -> VouchClientError {
        .invalidIdentityToken(IdentityTokenRejection(reason: reason, message: "", serverTime: nil, clockSkewSeconds: nil))
    }
}
