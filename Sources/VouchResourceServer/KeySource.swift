import Crypto
import Foundation
import Logging
import Synchronization

/// The issuer's keys, fetched from the JWKS URL and kept: the only place a verification can wait
/// on the network.
///
/// Invariants: at most one fetch is in flight, and every caller that needs one shares it (single
/// flight); a failed fetch keeps the last good keys and is not retried before `retryInterval`; an
/// unknown `kid` causes a fetch at most once per `unknownKeyRefetchInterval`, however many tokens
/// name unknown keys. Stale keys that still hold the token's `kid` are used at once while a fetch
/// runs in the background, so that a slow or failing JWKS URL never delays a request.
final class KeySource: Sendable {
    struct Settings: Sendable {
        let url: URL
        let lifetime: CacheLifetime
        let unknownKeyRefetchInterval: Double
        let retryInterval: Double
        let fetch: BoundedFetch
    }

    private struct State: Sendable {
        var keys: [String: P256.Signing.PublicKey] = [:]
        var fetchedAt: Double?
        var refreshDueAt = -Double.infinity
        var lastUnknownKeyFetch = -Double.infinity
        var retryAfter = -Double.infinity
        var inFlight: Task<Void, Never>?
        var lastFailure: String?
        var lastFailureAt: Double?
        var successfulFetches = 0
    }

    private enum Step {
        case found(P256.Signing.PublicKey)
        case wait(Task<Void, Never>)
        case refused(AccessTokenRejection)
    }

    private let settings: Settings
    private let now: @Sendable () -> Double
    private let logger: Logger
    private let state = Mutex(State())

    init(settings: Settings, now: @escaping @Sendable () -> Double, logger: Logger) {
        self.settings = settings
        self.now = now
        self.logger = logger
    }

    /// The key named `keyID`, fetching the key set when there is none yet, when it is stale and
    /// lacks the key, or when the key is unknown and no fetch for an unknown key ran lately.
    func key(for keyID: String) async throws(AccessTokenRejection) -> P256.Signing.PublicKey {
        let step = state.withLock { state -> Step in
            let now = self.now()
            if let key = state.keys[keyID] {
                if now >= state.refreshDueAt && now >= state.retryAfter && state.inFlight == nil {
                    state.inFlight = startFetch()
                }
                return .found(key)
            }
            if let inFlight = state.inFlight { return .wait(inFlight) }
            guard now >= state.retryAfter else { return .refused(state.fetchedAt == nil ? .keysUnavailable : .unknownKey) }
            if state.fetchedAt != nil && now < state.refreshDueAt {
                guard now - state.lastUnknownKeyFetch >= settings.unknownKeyRefetchInterval else { return .refused(.unknownKey) }
                state.lastUnknownKeyFetch = now
            }
            let fetch = startFetch()
            state.inFlight = fetch
            return .wait(fetch)
        }
        switch step {
        case .found(let key): return key
        case .refused(let rejection): throw rejection
        case .wait(let fetch):
            await fetch.value
            let key = state.withLock { state -> P256.Signing.PublicKey? in state.keys[keyID] }
            if let key { return key }
            throw state.withLock { $0.fetchedAt == nil } ? .keysUnavailable : .unknownKey
        }
    }

    /// Fetches now (or joins the fetch in flight), whatever the schedule says: for a service that
    /// wants its keys before its first request. Throws when the fetch failed (old keys are kept).
    func refresh() async throws(AccessTokenRejection) {
        let (fetch, before) = state.withLock { state -> (Task<Void, Never>, Int) in
            if let inFlight = state.inFlight { return (inFlight, state.successfulFetches) }
            let fetch = startFetch()
            state.inFlight = fetch
            return (fetch, state.successfulFetches)
        }
        await fetch.value
        guard state.withLock({ $0.successfulFetches > before }) else { throw AccessTokenRejection(.keysUnavailable, detail: "the key set fetch failed") }
    }

    var status: KeySetStatus {
        state.withLock { state in
            KeySetStatus(
                keyIDs: state.keys.keys.sorted(), fetchedAt: state.fetchedAt.map(Date.init(timeIntervalSince1970:)),
                refreshDueAt: state.fetchedAt == nil ? nil : Date(timeIntervalSince1970: state.refreshDueAt),
                lastFailure: state.lastFailure, lastFailureAt: state.lastFailureAt.map(Date.init(timeIntervalSince1970:)),
                successfulFetches: state.successfulFetches, isRefreshing: state.inFlight != nil)
        }
    }

    /// Called with the lock held: the task takes the lock only once the fetch is done, after the
    /// caller has stored it as the one in flight.
    private func startFetch() -> Task<Void, Never> {
        Task { await self.fetch() }
    }

    private func fetch() async {
        let outcome: Result<(JSONWebKeySet, Double), BoundedFetch.Failure>
        do {
            let answer = try await settings.fetch.get(settings.url)
            do {
                let keySet = try JSONWebKeySet(document: answer.body)
                outcome = .success((keySet, settings.lifetime.seconds(cacheControl: answer.values(of: "Cache-Control"))))
            } catch {
                outcome = .failure(BoundedFetch.Failure(description: error.description))
            }
        } catch {
            outcome = .failure(error)
        }
        let finished = now()
        let kept = state.withLock { state -> Int in
            state.inFlight = nil
            switch outcome {
            case .success(let (keySet, lifetime)):
                state.keys = keySet.keys
                state.fetchedAt = finished
                state.refreshDueAt = finished + lifetime
                state.retryAfter = -.infinity
                state.lastFailure = nil
                state.lastFailureAt = nil
                state.successfulFetches += 1
            case .failure(let failure):
                state.retryAfter = finished + settings.retryInterval
                state.lastFailure = failure.description
                state.lastFailureAt = finished
            }
            return state.keys.count
        }
        switch outcome {
        case .success(let (keySet, lifetime)):
            logger.debug("fetched the key set", metadata: ["keys": "\(keySet.keys.count)", "lifetime_seconds": "\(lifetime)"])
        case .failure(let failure):
            // A warning, not an error: the last good keys keep verifying, and the next try is scheduled.
            logger.warning(
                "could not fetch the key set; keeping the last good keys",
                metadata: [
                    "jwks_url": "\(settings.url.absoluteString)", "reason": "\(failure.description)", "keys_kept": "\(kept)",
                    "retry_in_seconds": "\(settings.retryInterval)",
                ])
        }
    }
}
