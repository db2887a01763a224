import Foundation
import Synchronization

/// What the stream of endings has said so far, in the form a verification asks about: the
/// sessions ended lately, and the highest cutoff generation of each app, user, provider and key.
///
/// The rule (issue 42, "The stream of endings"): a token is ended when its `sid` was named by a
/// session entry or a suspension's `sids`, or when a cutoff's generation is above the token's
/// generation for that scope. An ended `sid` is remembered for the longest a token can live plus
/// the leeway (6 minutes by default): past that no token of the session verifies anyway. A
/// generation is remembered for ever (one number per object). A `generation` is applied whatever
/// the entry's kind, and `sids` whatever its scope: an entry read too widely refuses a token that
/// is over anyway, one read too narrowly would let an ended session through.
public final class SessionEndings: Sendable {
    private struct UserKey: Hashable, Sendable {
        let appID: UUID
        let userID: String
    }

    private struct State: Sendable {
        /// Ended sessions and when each may be forgotten.
        var sessions: [UUID: Double] = [:]
        var appCutoffs: [UUID: Int64] = [:]
        var userCutoffs: [UserKey: Int64] = [:]
        var providerCutoffs: [UUID: Int64] = [:]
        var keyCutoffs: [UUID: Int64] = [:]
        var nextPurge = -Double.infinity
        var isEmpty: Bool {
            sessions.isEmpty && appCutoffs.isEmpty && userCutoffs.isEmpty && providerCutoffs.isEmpty && keyCutoffs.isEmpty
        }
    }

    /// How long an ended session is remembered after its entry arrives, in seconds.
    public let sessionMemory: Double
    private let now: @Sendable () -> Double
    private let state = Mutex(State())
    private let observers = Mutex<[UUID: AsyncStream<SessionEnding>.Continuation]>([:])

    /// - Parameters:
    ///   - sessionMemory: at least the longest token lifetime (300 s) plus the verifier's leeway.
    ///   - now: Unix seconds; the verifier passes its own clock, so that tests move both together.
    public init(sessionMemory: Double = 360, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.sessionMemory = sessionMemory
        self.now = now
    }

    /// Records an entry of the log; entries may come again (a reconnection replays recent ones)
    /// and in any order: applying one twice, or an older generation after a newer one, changes nothing.
    public func apply(_ ending: SessionEnding) {
        let now = self.now()
        state.withLock { state in
            let forgetAt = now + sessionMemory
            if ending.scope == .session, let sessionID = ending.sessionID {
                state.sessions[sessionID] = max(state.sessions[sessionID] ?? forgetAt, forgetAt)
            }
            for sessionID in ending.sessionIDs {
                state.sessions[sessionID] = max(state.sessions[sessionID] ?? forgetAt, forgetAt)
            }
            if let generation = ending.generation {
                switch ending.scope {
                case .app: if let appID = ending.appID { Self.raise(&state.appCutoffs, appID, to: generation) }
                case .user:
                    if let appID = ending.appID, let userID = ending.userID {
                        Self.raise(&state.userCutoffs, UserKey(appID: appID, userID: userID), to: generation)
                    }
                case .provider: if let providerID = ending.providerID { Self.raise(&state.providerCutoffs, providerID, to: generation) }
                case .key: if let keyID = ending.keyID { Self.raise(&state.keyCutoffs, keyID, to: generation) }
                default: break
                }
            }
            if now >= state.nextPurge {
                state.sessions = state.sessions.filter { $0.value > now }
                state.nextPurge = now + 60
            }
        }
        for observer in observers.withLock({ Array($0.values) }) { observer.yield(ending) }
    }

    /// Every ending applied from now on, just after it is applied, so that a service holding
    /// long-lived connections (a chat server's sockets) closes those whose session ended at once
    /// instead of at their next request: on each, ask ``hasEnded(_:)`` of every token held. An
    /// observer that falls behind keeps the newest 1 024; since ``hasEnded(_:)`` answers for every
    /// ending applied so far, a re-check after any of them catches the ones dropped.
    ///
    /// The stream ends when the task iterating it is cancelled.
    public func applied() -> AsyncStream<SessionEnding> {
        let (stream, continuation) = AsyncStream<SessionEnding>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        observers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.observers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether the token's session is over by what the stream said; cheap when nothing ended.
    public func hasEnded(_ token: VerifiedAccessToken) -> Bool {
        state.withLock { state in
            if state.isEmpty { return false }
            if let forgetAt = state.sessions[token.sessionID], forgetAt > now() { return true }
            if let cutoff = state.appCutoffs[token.appID], cutoff > token.generations.app { return true }
            if !state.userCutoffs.isEmpty, let cutoff = state.userCutoffs[UserKey(appID: token.appID, userID: token.userID)],
                cutoff > token.generations.user
            {
                return true
            }
            if let providerID = token.providerID, let generation = token.generations.provider,
                let cutoff = state.providerCutoffs[providerID], cutoff > generation
            {
                return true
            }
            if let keyID = token.keyID, let generation = token.generations.key, let cutoff = state.keyCutoffs[keyID], cutoff > generation {
                return true
            }
            return false
        }
    }

    /// How many ended sessions are remembered now (entries past their memory are not counted).
    public var rememberedSessionCount: Int {
        let now = self.now()
        return state.withLock { state in state.sessions.values.count(where: { $0 > now }) }
    }

    private static func raise<Key: Hashable>(_ table: inout [Key: Int64], _ key: Key, to generation: Int64) {
        table[key] = max(table[key] ?? generation, generation)
    }
}
