import Foundation
import Logging
import Testing
import VouchPostgresTestSupport
import VouchStore
import VouchStorePostgres
import VouchTestSupport

@testable import VouchServer

/// Vouch's signing keys with many instances on one PostgreSQL database (PROTOCOL §8.16): however
/// many instances find a rotation due at once, exactly one successor is added, and all of them
/// sign with it once it activates.
@Suite(
    "Signing keys across instances: exactly one rotation",
    .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5))
)
struct SigningKeyRaceTests {
    @Test("two instances rotating at the same moments, again and again, add one key per rotation and converge")
    func oneRotation() async throws {
        try await PostgresTestDatabase.with { url in
            var logger = Logger(label: "vouch.tests.signing-keys")
            logger.logLevel = .error
            let options = PostgresStoreOptions(poolSize: 4, timeout: .seconds(60))
            try await PostgresStore.open(url: url, options: options, logger: logger) { first in
                try await PostgresStore.open(url: url, options: options, logger: logger) { second in
                    let clock = ManualClock(1_000_000)
                    var schedule = SigningKeySchedule()
                    schedule.rotationIntervalSeconds = 100
                    schedule.publishLeadSeconds = 20
                    schedule.jwksMaxAgeSeconds = 10
                    let rings = [first, second].map { store in
                        SigningKeyRing(
                            store: store, schedule: schedule, issuer: "https://vouch.example.com", leewaySeconds: 60,
                            clock: clock.closure, uptime: { Double(clock.now) }, logger: logger)
                    }
                    for round in 0..<6 {
                        // Each instance checks several times at once, as a busy instance's first mints would.
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            for ring in rings {
                                for _ in 0..<4 { group.addTask { try await ring.rotate() } }
                            }
                            try await group.waitForAll()
                        }
                        let keys = try await first.signingKeys()
                        #expect(keys.map(\.sequence) == Array(1...Int64(keys.count)), "round \(round): one key per sequence")
                        // The first round makes the first key; each later one (a rotation's worth of
                        // time later) exactly one successor.
                        #expect(keys.count == round + 1, "round \(round): \(keys.count) keys")
                        try await rings[0].load()
                        try await rings[1].load()
                        #expect(rings[0].current.jwks == rings[1].current.jwks, "round \(round): both publish the same keys")
                        #expect(rings[0].current.signing?.keyID == rings[1].current.signing?.keyID)
                        clock.advance(by: 100)
                    }
                }
            }
        }
    }
}
