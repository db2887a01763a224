import ChatWire
import ServiceLifecycle
import VouchResourceServer

/// Fetches Vouch's keys at start (the server is ready once it has them), hands the hub each
/// ending the stream applied, and sweeps the hub four times a second for expired tokens and fresh
/// tokens that did not come.
struct HubWatch: Service {
    let hub: ChatHub
    let verifier: AccessTokenVerifier
    let events: EventLine

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled, (try? await verifier.refreshKeys()) == nil {
                        try? await Task.sleep(for: .seconds(1))
                    }
                }
                group.addTask {
                    for await ending in verifier.endings.applied() {
                        let whom = ending.userID.map { "\($0)'s" } ?? "an \(ending.scope.rawValue)'s"
                        events.print("vouch", "\(whom) sessions ended (\(ending.kind.rawValue), \(ending.scope.rawValue))")
                        await hub.endingApplied(ending)
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(250))
                        await hub.sweep()
                    }
                }
            }
        }
    }
}
