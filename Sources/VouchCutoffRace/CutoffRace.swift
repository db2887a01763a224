import Foundation
import Logging
import VouchStorePostgres

/// The proof that cutoffs compare generations, not clocks: two `vouch serve` instances in this
/// process on one PostgreSQL database, the second with its clock `skewSeconds` ahead, and sign-ins
/// through both racing cutoffs of every scope made through either.
///
/// Each round makes one cutoff (key, provider, user, app in turn) and checks every session of the
/// round on both instances afterwards:
/// - a session whose sign-in had returned before the cutoff was sent must be refused (else a
///   *stale accept*), unless it is outside the cutoff's scope, when it must still work;
/// - a session whose sign-in began after the cutoff returned must work (else a *false refusal*);
/// - a sign-in that overlapped the cutoff may land on either side; the report counts them.
///
/// The test suite runs a short race, the benchmark (`vouch-benchmark cutoff-race`) a long one.
public struct CutoffRace: Sendable {
    /// One cutoff per round, the scopes in turn.
    public var rounds: Int
    /// Sign-ins in scope before the cutoff, and again while it runs; half as many after it.
    public var signInsPerPhase: Int
    /// How far ahead the second instance's clock runs.
    public var skewSeconds: Int64
    /// Requests in flight at once.
    public var concurrency: Int

    public init(rounds: Int = 8, signInsPerPhase: Int = 24, skewSeconds: Int64 = 2, concurrency: Int = 16) {
        self.rounds = rounds
        self.signInsPerPhase = signInsPerPhase
        self.skewSeconds = skewSeconds
        self.concurrency = concurrency
    }

    /// Starts both instances on `databaseURL` (whose schema they migrate), races, stops them.
    ///
    /// - Parameter options: each instance's pool and deadline (a test on a loaded machine gives a
    ///   generous deadline, as the other PostgreSQL tests do).
    public func run(
        databaseURL: PostgresDatabaseURL, options: PostgresStoreOptions = PostgresStoreOptions(), logger: Logger
    ) async throws -> CutoffRaceReport {
        try await TwoInstances.run(databaseURL: databaseURL, options: options, skewSeconds: skewSeconds, logger: logger) {
            instances in
            let client = RaceClient(instances: instances)
            defer { client.shutdown() }
            let catalogue = try await RaceCatalogue.make(client)
            var report = CutoffRaceReport(skewSeconds: skewSeconds)
            for round in 0..<rounds {
                try await RaceRound(
                    client: client, catalogue: catalogue, scope: RaceScope.allCases[round % RaceScope.allCases.count],
                    signIns: signInsPerPhase, concurrency: concurrency, index: round
                ).run(into: &report)
            }
            return report
        }
    }
}

/// What a race found. `staleAccepts` and `falseRefusals` must both be empty.
public struct CutoffRaceReport: Sendable, CustomStringConvertible {
    public var skewSeconds: Int64
    public var cutoffs = 0
    public var signIns = 0
    /// Sessions checked on both instances after their round's cutoff.
    public var sessionsChecked = 0
    /// Sign-ins that overlapped a cutoff, and how many of those the cutoff ended.
    public var overlapping = 0
    public var overlappingEnded = 0
    public var staleAccepts: [String] = []
    public var falseRefusals: [String] = []
    /// The slowest cutoff, from sending it to its answer.
    public var slowestCutoff: Duration = .zero

    public var passed: Bool { staleAccepts.isEmpty && falseRefusals.isEmpty }

    public var description: String {
        """
        cutoff race: \(cutoffs) cutoffs, \(signIns) sign-ins over two instances (one clock \(skewSeconds) s ahead), \
        \(sessionsChecked) sessions checked on both; \(overlapping) sign-ins overlapped a cutoff (\(overlappingEnded) ended by it); \
        stale accepts: \(staleAccepts.count), false refusals: \(falseRefusals.count); slowest cutoff \(slowestCutoff)
        """
            + (staleAccepts + falseRefusals).prefix(10).map { "\n  " + $0 }.joined()
    }
}
