import Logging
import ServiceLifecycle

/// Checks the signing keys at start and on the schedule's interval: adds a due successor,
/// deletes keys no longer published, and picks up what other instances added.
struct SigningKeyRotationService: Service, CustomStringConvertible {
    let ring: SigningKeyRing
    /// The machine's clock's sleep: the schedule's checks are real time whatever `ServerClocks`
    /// says, since the ring reads `clock` for what is due.
    let sleep: @Sendable (Duration) async throws -> Void
    let logger: Logger

    var description: String { "SigningKeyRotationService(every \(ring.schedule.checkIntervalSeconds) s)" }

    func run() async throws {
        await check()
        await Periodically.run(every: ring.schedule.checkIntervalSeconds, sleep: sleep) { await check() }
    }

    private func check() async {
        do {
            try await ring.rotate()
        } catch {
            logger.warning("The signing keys could not be checked; will retry", metadata: ["error.type": "\(type(of: error))"])
        }
    }
}
