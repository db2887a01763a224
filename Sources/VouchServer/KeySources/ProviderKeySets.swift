import Foundation
import Logging
import VouchProtocol
import VouchStore
import VouchTokens

/// Every provider's fetched keys as this instance uses them (PROTOCOL §8.18).
///
/// The store holds the truth that instances share: the last good JWKS of each provider and who
/// fetched it when. A set is kept here, parsed, until it goes stale (its `Cache-Control`, clamped
/// to [60 s, 1 h]); then the store is read again, and only when its set is stale too does this
/// instance take the turn to fetch. An unknown `kid` makes one fetch at most once a minute per
/// provider across every instance, so a spray of made-up ids costs the source one request a
/// minute. Through an outage of the source the last good set keeps verifying for the grace period.
///
/// Keyed by provider and by the source's configuration (`ProviderKeySource.identity`): a set is
/// never used for another provider, nor after its provider's source changed.
actor ProviderKeySets {
    private struct Entry {
        let source: String
        let keys: [String: SourceKey]
        let fetchedAt: Int64?
        /// When the set is asked again: its freshness, or a failing source's next retry.
        let freshUntil: Int64
        /// When the last good set stops being trusted: the grace after its fetch, or its own
        /// freshness if that is later.
        let trustedUntil: Int64
        let failingSince: Int64?
        let lastError: String?
    }

    private let store: any Store
    private let fetcher: KeySourceFetcher
    private let settings: KeySourceSettings
    private let clock: @Sendable () -> Int64
    private let metrics: ServerMetrics
    private let logger: Logger
    private var entries: [UUID: Entry] = [:]
    /// One refresh at a time per provider on this instance; the others wait for it.
    private var refreshing: [UUID: Task<Void, Never>] = [:]
    /// When an unknown `kid` last made this instance look, per provider: a spray of made-up ids
    /// reads the store once per `unknownKeyLookSeconds`, and fetches once a minute across instances.
    private var lastUnknownKeyLook: [UUID: Int64] = [:]
    static let unknownKeyLookSeconds: Int64 = 5

    init(
        store: any Store, fetcher: KeySourceFetcher, settings: KeySourceSettings, clock: @escaping @Sendable () -> Int64,
        metrics: ServerMetrics, logger: Logger
    ) {
        self.store = store
        self.fetcher = fetcher
        self.settings = settings
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// How long a last good set is trusted through an outage.
    nonisolated var graceSeconds: Int64 { settings.graceSeconds }

    /// An operator's "fetch now": the source is fetched unless a fetch began in the last
    /// `staleFetchTurnSeconds` (on any instance), whatever the set's freshness.
    func refreshNow(_ provider: ProviderRecord) async {
        guard let source = provider.keySource else { return }
        await refresh(provider.id, source: source, reason: .operator)
    }

    /// The key `kid` names among `provider`'s fetched keys.
    func key(_ kid: String, of provider: ProviderRecord) async -> SourceKeyLookup {
        guard let source = provider.keySource else { return .notFound }
        let now = clock()
        if let entry = entries[provider.id], entry.source == source.identity, now < entry.freshUntil {
            // Kept and fresh: no read, no fetch.
        } else {
            await refresh(provider.id, source: source, reason: .stale)
        }
        if let found = lookup(kid, provider.id, source: source.identity, now: clock()) { return found }
        // A refresh in flight (another sign-in's look for this very `kid`, or an operator's fetch)
        // may bring it: its answer is awaited before the once-per-interval look is counted.
        if let running = refreshing[provider.id] {
            await running.value
            if let found = lookup(kid, provider.id, source: source.identity, now: clock()) { return found }
        }
        // An unknown `kid`: perhaps a key published since; one fetch a minute may look.
        let lookedAt = clock()
        if let last = lastUnknownKeyLook[provider.id], lookedAt - last < Self.unknownKeyLookSeconds { return .notFound }
        lastUnknownKeyLook[provider.id] = lookedAt
        await refresh(provider.id, source: source, reason: .unknownKey)
        return lookup(kid, provider.id, source: source.identity, now: clock()) ?? .notFound
    }

    /// `nil` when the set holds no such key and can be asked again.
    private func lookup(_ kid: String, _ providerID: UUID, source: String, now: Int64) -> SourceKeyLookup? {
        guard let entry = entries[providerID], entry.source == source else {
            return .unavailable("the provider's key source has not been fetched yet")
        }
        guard let fetchedAt = entry.fetchedAt else {
            return .unavailable("the provider's key source has never answered with usable keys: \(entry.lastError ?? "no answer yet")")
        }
        guard now <= entry.trustedUntil else {
            return .unavailable(
                "the provider's key source has failed since \(Timestamp.rfc3339(entry.failingSince ?? fetchedAt)) "
                    + "(\(entry.lastError ?? "unknown")), longer than its keys are trusted")
        }
        return entry.keys[kid].map(SourceKeyLookup.found)
    }

    private enum RefreshReason {
        case stale
        case unknownKey
        case `operator`
    }

    /// Reads the shared set and, when it is stale too (or lacks a key that may have been added),
    /// fetches it if this instance wins the turn. Concurrent callers share one refresh.
    private func refresh(_ providerID: UUID, source: ProviderKeySource, reason: RefreshReason) async {
        if let running = refreshing[providerID] {
            await running.value
            return
        }
        let task = Task { await self.performRefresh(providerID, source: source, reason: reason) }
        refreshing[providerID] = task
        await task.value
        refreshing[providerID] = nil
    }

    private func performRefresh(_ providerID: UUID, source: ProviderKeySource, reason: RefreshReason) async {
        let identity = source.identity
        let now = clock()
        let stored = try? await store.keySetState(providerID: providerID, usesSince: now)
        if let stored, stored.source == identity { adopt(stored, providerID: providerID, algorithm: source.algorithm) }
        let storedIsFresh = stored.map { $0.source == identity && ($0.freshUntil ?? .min) > now } ?? false
        // A fresh shared set answers a stale one here; an unknown key may need a newer one.
        if storedIsFresh, reason == .stale { return }
        let failing = stored?.failingSince != nil
        let wait =
            switch reason {
            case .unknownKey: KeySourceSettings.unknownKeyRefetchSeconds
            case .stale: failing ? KeySourceSettings.failingRetrySeconds : KeySourceSettings.staleFetchTurnSeconds
            case .operator: KeySourceSettings.staleFetchTurnSeconds
            }
        guard
            (try? await store.beginKeySetFetch(providerID: providerID, source: identity, now: now, unlessBegunAfter: now - wait))
                == true
        else {
            // Another instance has the turn. When nothing here can answer without it (an unknown
            // `kid`, or no set yet), its fetch is awaited rather than the sign-in refused.
            if reason == .unknownKey || entries[providerID]?.fetchedAt == nil {
                await awaitOtherInstancesFetch(providerID, source: source)
            }
            return
        }
        let outcome: KeySetFetch.Outcome
        switch await fetcher.fetch(source) {
        case .success(let fetched):
            metrics.keySourceFetched(succeeded: true)
            let keys = fetched.keys.keys.values.sorted { $0.keyID < $1.keyID }.map {
                KeySetFetch.FetchedKey(keyID: $0.keyID, keyType: $0.keyType, fingerprint: $0.fingerprint)
            }
            outcome = .fetched(document: fetched.document, jwksURL: fetched.jwksURL, freshUntil: now + fetched.freshSeconds, keys: keys)
        case .failure(let failure):
            metrics.keySourceFetched(succeeded: false)
            logger.warning("key source fetch failed", metadata: ["provider_id": "\(providerID.lowercased)", "reason": "\(failure)"])
            outcome = .failed(reason: failure.description)
        }
        let change = try? await store.finishKeySetFetch(KeySetFetch(providerID: providerID, source: identity, outcome: outcome, at: now))
        switch change {
        case .startedFailing: logger.warning("key source failing", metadata: ["provider_id": "\(providerID.lowercased)"])
        case .recovered: logger.notice("key source recovered", metadata: ["provider_id": "\(providerID.lowercased)"])
        case .unchanged, nil: break
        }
        if let latest = try? await store.keySetState(providerID: providerID, usesSince: now), latest.source == identity {
            adopt(latest, providerID: providerID, algorithm: source.algorithm)
        }
    }

    /// Waits for a fetch another instance began to land in the store, and adopts it: polled every
    /// 100 ms, and never longer than a fetch may take (a fetch that failed leaves no mark but its
    /// time running out).
    private func awaitOtherInstancesFetch(_ providerID: UUID, source: ProviderKeySource) async {
        let limitSeconds = Int64(settings.fetchTimeLimit.components.seconds) + 1
        let deadline = ContinuousClock.now + settings.fetchTimeLimit + .seconds(1)
        while ContinuousClock.now < deadline {
            guard let state = try? await store.keySetState(providerID: providerID, usesSince: clock()), state.source == source.identity
            else { return }
            let landed = (state.fetchedAt ?? .min) >= state.attemptedAt
            if landed || clock() - state.attemptedAt > limitSeconds {
                adopt(state, providerID: providerID, algorithm: source.algorithm)
                return
            }
            do {
                try await Task.sleep(for: .milliseconds(100))
            } catch {
                return
            }
        }
    }

    /// Keeps the shared set, parsed; a document that no longer parses (it was accepted when
    /// fetched) leaves the set empty.
    private func adopt(_ state: KeySetState, providerID: UUID, algorithm: SourceKeyAlgorithm) {
        let previous = entries[providerID]
        var keys = previous?.source == state.source && previous?.fetchedAt == state.fetchedAt ? previous?.keys : nil
        if keys == nil, let document = state.document {
            keys = (try? JSONWebKeySetDocument(document: Array(document.utf8), algorithm: algorithm))?.keys
        }
        // A failing source's set is stale; it is asked again no sooner than its retry interval.
        let freshUntil = state.failingSince == nil ? (state.freshUntil ?? 0) : state.attemptedAt + KeySourceSettings.failingRetrySeconds
        let trustedUntil = state.fetchedAt.map { max(Saturating.add($0, settings.graceSeconds), state.freshUntil ?? $0) } ?? .min
        entries[providerID] = Entry(
            source: state.source, keys: keys ?? [:], fetchedAt: state.fetchedAt, freshUntil: freshUntil, trustedUntil: trustedUntil,
            failingSince: state.failingSince, lastError: state.lastError)
        metrics.setKeySourcesFailing(entries.values.filter { $0.failingSince != nil }.count)
    }
}
