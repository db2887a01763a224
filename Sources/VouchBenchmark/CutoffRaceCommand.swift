import Foundation
import Logging
import VouchCutoffRace
import VouchStorePostgres

/// `vouch-benchmark cutoff-race`: the long cutoff race (the test suite runs a short one). The
/// database must be one the race may migrate and fill: a throwaway one.
enum CutoffRaceCommand {
    static func run(database: String?, rounds: Int, perPhase: Int, skew: Int64) async throws {
        guard let database else { throw BenchmarkError("cutoff-race needs --database postgres://…") }
        var logger = Logger(label: "vouch.benchmark.cutoff-race")
        logger.logLevel = .error
        let started = ContinuousClock.now
        let report = try await CutoffRace(rounds: rounds, signInsPerPhase: perPhase, skewSeconds: skew)
            .run(databaseURL: try PostgresDatabaseURL(database), logger: logger)
        print(report)
        print("took \(ContinuousClock.now - started)")
        if !report.passed { exit(1) }
    }
}

/// `vouch-benchmark live-reach`: the live channel across two instances (the test suite runs a
/// short one): the time from a revocation answered by one instance to the challenge on the other
/// instance's socket, then endings made while the listeners are terminated.
enum LiveReachCommand {
    static func run(database: String?, endings: Int, whileAway: Int) async throws {
        guard let database else { throw BenchmarkError("live-reach needs --database postgres://…") }
        var logger = Logger(label: "vouch.benchmark.live-reach")
        logger.logLevel = .error
        let report = try await LiveReach(endings: endings, endingsWhileAway: whileAway)
            .run(databaseURL: try PostgresDatabaseURL(database), options: PostgresStoreOptions(), logger: logger)
        print(report)
        if !report.passed { exit(1) }
    }
}
