import Foundation
import Logging
import Testing
import VouchCutoffRace
import VouchPostgresTestSupport
import VouchStorePostgres

/// The short cutoff race (the benchmark runs a long one, docs/PERFORMANCE.md): two instances on
/// one PostgreSQL database, the second's clock two seconds ahead, sign-ins through both racing a
/// cutoff of each scope in turn.
@Suite(
    "cutoffs across instances whose clocks disagree",
    .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5))
)
struct CutoffRaceTests {
    @Test("no stale accept and no false refusal on either instance, every scope twice")
    func race() async throws {
        try await PostgresTestDatabase.with { url in
            var logger = Logger(label: "vouch.tests.cutoff-race")
            logger.logLevel = .error
            // The deadline the other PostgreSQL tests give a loaded two-core machine.
            let report = try await CutoffRace(rounds: 8, signInsPerPhase: 16)
                .run(databaseURL: url, options: PostgresStoreOptions(poolSize: 4, timeout: .seconds(60)), logger: logger)
            #expect(report.passed, "\(report)")
            #expect(report.cutoffs == 8)
            #expect(report.sessionsChecked == report.signIns)
            #expect(report.signIns >= 8 * 16 * 2, "\(report)")
        }
    }
}
