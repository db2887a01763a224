import Synchronization
import VouchStore
import VouchSupport

/// Whether the store takes its database for reachable. While the circuit is open every operation
/// fails at once with `StoreError.unavailable` instead of waiting out its deadline, so a request
/// gets its 503 in a moment and nothing piles up behind a database that is down.
///
/// It opens on a connection-level failure (`PostgresFailure.isConnectionLevel`), and only while a
/// probe watches it (`PostgresCircuitProbe`): without one nothing would close it again. Only the
/// probe closes it, once the database answers; no request is let through to find out, so at most
/// the probe waits on a database that does not answer.
final class Circuit: Sendable {
    /// The closed spell an operation was admitted in. A failure counts only against the spell it
    /// began in: an operation admitted before the probe closed the circuit, and given up after,
    /// says nothing about the database the probe has just reached.
    struct Spell: Sendable {
        fileprivate let number: UInt64
    }

    private struct State {
        var watched = false
        var openSince: ContinuousClock.Instant?
        var reason = ""
        var spell: UInt64 = 0
        var openings = 0
        /// The probe, waiting for the circuit to open.
        var probe = ParkingSlot()
    }

    private let state = Mutex(State())

    /// The spell an operation runs in.
    ///
    /// - Throws: `StoreError.unavailable` at once while the circuit is open.
    func admit() throws -> Spell {
        let admitted = state.withLock { state -> Result<Spell, StoreError> in
            guard state.openSince == nil else {
                return .failure(.unavailable("the database is unreachable (\(state.reason)); waiting for it to answer again"))
            }
            return .success(Spell(number: state.spell))
        }
        return try admitted.get()
    }

    /// Opens the circuit for a connection-level failure of an operation admitted in `spell`.
    ///
    /// - Returns: whether this call opened it (its caller logs the outage once).
    func trip(in spell: Spell, reason: String) -> Bool {
        let (opened, probe) = state.withLock { state -> (Bool, ParkedTask?) in
            guard state.watched, state.openSince == nil, state.spell == spell.number else { return (false, nil) }
            state.openSince = .now
            state.reason = reason
            state.openings += 1
            return (true, state.probe.release())
        }
        probe?.resume()
        return opened
    }

    /// Closes the circuit: operations run again, in a new spell.
    ///
    /// - Returns: how long it was open, or nil when it was not.
    @discardableResult
    func close() -> Duration? {
        state.withLock { state in
            guard let since = state.openSince else { return nil }
            state.openSince = nil
            state.spell += 1
            return .now - since
        }
    }

    var isOpen: Bool { state.withLock { $0.openSince != nil } }

    /// How often the circuit has opened (tests and diagnostics).
    var openings: Int { state.withLock { $0.openings } }

    var isWatched: Bool { state.withLock { $0.watched } }

    /// The probe starts watching: from now on failures may open the circuit.
    ///
    /// - Returns: false when another probe watches it already (one probe a store).
    func watch() -> Bool {
        state.withLock { state in
            guard !state.watched else { return false }
            state.watched = true
            return true
        }
    }

    /// The probe stops watching: the circuit closes and stays closed, so operations try the
    /// database again, each within its own deadline.
    func unwatch() {
        state.withLock { state -> ParkedTask? in
            state.watched = false
            if state.openSince != nil {
                state.openSince = nil
                state.spell += 1
            }
            return state.probe.release()
        }?.resume()
    }

    /// Suspends until the circuit is open or the task is cancelled; only the watching probe calls it.
    func waitUntilOpen() async {
        await state.park(in: \.probe) { $0.openSince != nil }
    }
}
