import Foundation
import Logging
import Testing
import VouchCutoffRace
import VouchPostgresTestSupport
import VouchStorePostgres

/// The live channel across instances (the benchmark runs a long one, docs/PERFORMANCE.md): two
/// instances on one PostgreSQL database, sockets on one, endings through the other, and the
/// listening connections terminated by the database in the middle of the run.
@Suite(
    "the live channel across instances, through a lost listener",
    .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5))
)
struct LiveReachTests {
    @Test("every socket hears its ending within a second across instances, and after its listener's loss from the log")
    func reach() async throws {
        try await PostgresTestDatabase.with { url in
            var logger = Logger(label: "vouch.tests.live-reach")
            logger.logLevel = .error
            // The listener waits 2 s before reconnecting, so that the endings below are made while it is away.
            let options = PostgresStoreOptions(
                poolSize: 4, timeout: .seconds(60), feedReconnectDelay: .seconds(2))
            let report = try await LiveReach(endings: 12, endingsWhileAway: 6).run(databaseURL: url, options: options, logger: logger)
            #expect(report.passed, "\(report)")
            #expect(report.latencies.count == 12)
            #expect(report.catchUpLatencies.count == 6)
            #expect(report.endedWhileAway, "\(report)")
            #expect(LiveReachReport.quantile(report.latencies, 1.0) < .seconds(1), "\(report)")
        }
    }
}
