import Foundation
import VouchTokens

// MARK: - A burst of sign-ins with a kill in the middle

enum ProcessBurst {
    /// Runs `total` whole sign-ins (nonce, mint, POST /sessions), `width` at a time, the i-th
    /// through `servers[i % servers.count]`, and calls `kill` once `killAfter` were answered 201.
    /// With `stopAfterKill` no sign-in starts after the kill (they could only fail).
    static func signIns(
        total: Int, killAfter: Int, width: Int, through servers: [ProcessServer], app: String,
        minter: LayerTokenMinter, stopAfterKill: Bool, kill: @escaping @Sendable () -> Void
    ) async throws -> ProcessBurstTally.Snapshot {
        let tally = ProcessBurstTally(killAfter: killAfter, kill: kill)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var started = 0
            func startOne() {
                let index = started
                started += 1
                let server = servers[index % servers.count]
                group.addTask {
                    do {
                        let nonce = try await server.nonce()
                        let token = try minter.mint(userID: "burst-\(index)", nonce: nonce)
                        let response = try await server.signIn(token, app: app)
                        if response.status == 201, let session = response.json["session_token"].string {
                            await tally.created(session, user: "burst-\(index)")
                        } else {
                            await tally.answered(response.status)
                        }
                    } catch {
                        await tally.failed()
                    }
                }
            }
            for _ in 0..<width { startOne() }
            while try await group.next() != nil {
                let killed = await tally.killed
                if started < total, !(stopAfterKill && killed) { startOne() }
            }
        }
        return await tally.snapshot
    }
}

// MARK: - Bookkeeping of the burst

/// What the burst saw: the sessions answered 201, and kills the server once `killAfter` of them
/// have arrived.
actor ProcessBurstTally {
    struct Snapshot: Sendable {
        var sessions: [(token: String, user: String)] = []
        var unexpectedStatuses: [Int] = []
        var failures = 0
    }

    private let killAfter: Int
    private let kill: @Sendable () -> Void
    private var state = Snapshot()
    private(set) var killed = false

    init(killAfter: Int, kill: @escaping @Sendable () -> Void) {
        self.killAfter = killAfter
        self.kill = kill
    }

    func created(_ session: String, user: String) {
        state.sessions.append((session, user))
        if !killed, state.sessions.count >= killAfter {
            killed = true
            kill()
        }
    }

    func answered(_ status: Int) { state.unexpectedStatuses.append(status) }
    func failed() { state.failures += 1 }
    var snapshot: Snapshot { state }
}

actor ProcessBurstLost {
    private(set) var entries: [String] = []
    func add(_ entry: String) { entries.append(entry) }
}
