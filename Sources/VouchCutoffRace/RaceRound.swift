import Foundation

/// One round: sign-ins before a cutoff, sign-ins racing it, sign-ins after it, then every session
/// of the round checked on both instances against when it was made.
struct RaceRound: Sendable {
    let client: RaceClient
    let catalogue: RaceCatalogue
    let scope: RaceScope
    let signIns: Int
    let concurrency: Int
    let index: Int

    /// A session and when its sign-in was sent and answered (this process's monotonic clock).
    struct Made: Sendable {
        let session: String
        let started: ContinuousClock.Instant
        let returned: ContinuousClock.Instant
        let inScope: Bool
    }

    func run(into report: inout CutoffRaceReport) async throws {
        var made = try await signInMany(signIns, inScope: true)
        made += try await signInMany(max(2, signIns / 4), inScope: false)

        // The cutoff goes through the instances in turn, a little after the racing sign-ins start.
        let cutoffInstance = index % 2
        let (window, during) = try await withThrowingTaskGroup(
            of: ((ContinuousClock.Instant, ContinuousClock.Instant)?, [Made]).self
        ) { group in
            group.addTask { (nil, try await signInMany(signIns, inScope: true)) }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...30)))
                let started = ContinuousClock.now
                let answer = try await client.request(
                    .POST, scope.path(catalogue), on: cutoffInstance, body: ["reason": "race round \(index)"],
                    authorization: "Bearer \(client.adminToken)")
                guard answer.status == 200 else { throw RaceError("cutoff answered \(answer.status): \(answer.json)") }
                return ((started, ContinuousClock.now), [])
            }
            var window: (ContinuousClock.Instant, ContinuousClock.Instant)?
            var during: [Made] = []
            for try await (cut, sessions) in group {
                if let cut { window = cut }
                during += sessions
            }
            guard let window else { throw RaceError("no cutoff") }
            return (window, during)
        }
        made += during
        made += try await signInMany(max(2, signIns / 2), inScope: true)
        report.cutoffs += 1
        report.signIns += made.count
        report.slowestCutoff = max(report.slowestCutoff, window.1 - window.0)

        let outcomes = try await checkBoth(made)
        for (session, (first, second)) in zip(made, outcomes) {
            report.sessionsChecked += 1
            let label = "round \(index) (\(scope) cut off through \(client.instances[cutoffInstance].name))"
            let works = (first == 200, second == 200)
            if works.0 != works.1 {
                report.staleAccepts.append("\(label): the instances disagree on a session (\(first) vs \(second))")
            } else if !session.inScope || session.started > window.1 {
                if !works.0 {
                    report.falseRefusals.append("\(label): a session \(session.inScope ? "made after the cutoff" : "outside its scope") answered \(first)")
                }
            } else if session.returned < window.0 {
                if works.0 { report.staleAccepts.append("\(label): a session made before the cutoff still answers 200") }
            } else {
                report.overlapping += 1
                if !works.0 { report.overlappingEnded += 1 }
            }
        }
    }

    /// `count` sign-ins, in scope or as the scope's bystander, through the instances in turn,
    /// at most `concurrency` at once.
    private func signInMany(_ count: Int, inScope: Bool) async throws -> [Made] {
        let (signer, app, user) =
            inScope ? (catalogue.key, catalogue.app, RaceScope.racer) : scope.bystander(catalogue)
        return try await bounded(count) { number in
            let started = ContinuousClock.now
            let session = try await client.signIn(signer, app: app, user: user, on: number % 2)
            return Made(session: session, started: started, returned: ContinuousClock.now, inScope: inScope)
        }
    }

    /// Each session's `GET /users/me` status on both instances.
    private func checkBoth(_ made: [Made]) async throws -> [(Int, Int)] {
        try await bounded(made.count) { number in
            (try await client.check(made[number].session, on: 0).status, try await client.check(made[number].session, on: 1).status)
        }
    }

    /// `body(0..<count)` with at most `concurrency` running at once, results in order.
    private func bounded<Result: Sendable>(
        _ count: Int, _ body: @escaping @Sendable (Int) async throws -> Result
    ) async throws -> [Result] {
        try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var results = [Result?](repeating: nil, count: count)
            var next = 0
            while next < min(count, concurrency) {
                let number = next
                group.addTask { (number, try await body(number)) }
                next += 1
            }
            while let (number, result) = try await group.next() {
                results[number] = result
                if next < count {
                    let number = next
                    group.addTask { (number, try await body(number)) }
                    next += 1
                }
            }
            return results.compactMap { $0 }
        }
    }
}
