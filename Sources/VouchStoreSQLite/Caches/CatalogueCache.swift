import Foundation
import Synchronization
import VouchStore

/// The catalogue rows a sign-in's verification reads (its app, the provider's binding to that app,
/// the key a token names, a Sinch registration secret), kept in memory between the writes that
/// could change them, under `SessionCache`'s rule: every write to the file is this store's, and
/// drops what it may have changed after its commit, before its caller is answered; a read that
/// began before a drop is not kept. A key disabled or a secret revoked is therefore refused by the
/// very next sign-in, as without the cache.
///
/// Only `.everything` drops these rows: every write of apps, providers, keys and secrets says
/// nothing more precise. A sign-in's mark of its key's last verification (`createSession`, at most
/// once a minute per key) changes a key's row too: `createSession` empties this cache when the
/// mark was written, so a kept key is always the row as stored.
///
/// What is kept is only what was found (an unknown app, key or provider costs the read every time,
/// so made-up ids cannot fill the cache), at most `capacity` rows; reaching it empties the cache.
/// The nonce's use and the user's suspension are never kept: each sign-in's transaction decides them.
final class CatalogueCache: Sendable {
    /// The most rows kept; 0 turns the cache off.
    let capacity: Int
    /// Apps, keys, bindings and secrets together: a few thousand covers any deployment's catalogue.
    static let defaultCapacity = 4_096

    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Proof of when a read began: what it read is kept only if no invalidation came since.
    struct Ticket: Sendable {
        fileprivate let generation: UInt64
    }

    private struct Binding: Hashable {
        let providerID: UUID
        let appID: UUID
    }

    private struct State: ~Copyable {
        var generation: UInt64 = 0
        var apps: [UUID: AppRecord] = [:]
        var keys: [UUID: KeyRecord] = [:]
        /// Each kept key's `lastVerifiedAt`, beside its row: asked on every sign-in, and a row
        /// read out of its dictionary is a copy of the whole row, strings and all.
        var keyMarks: [UUID: Int64] = [:]
        var bindings: Set<Binding> = []
        var secrets: [UUID: RegistrationSecretRecord] = [:]

        var count: Int { apps.count + keys.count + bindings.count + secrets.count }

        mutating func removeAll() {
            apps.removeAll(keepingCapacity: true)
            keys.removeAll(keepingCapacity: true)
            keyMarks.removeAll(keepingCapacity: true)
            bindings.removeAll(keepingCapacity: true)
            secrets.removeAll(keepingCapacity: true)
        }
    }

    /// How many rows are kept now.
    var count: Int { state.withLock { $0.count } }

    /// Answers from memory what `questions` asks of the catalogue, and takes the ticket for reading
    /// the rest. Returns the questions left to read (the answered ones taken out) and the answers.
    ///
    /// Built and returned inside the lock's closure, so that nothing is copied on the way out: a
    /// copy takes a reference to each kept record's strings, which every sign-in shares.
    func answer(_ questions: SignInFactsQuery) -> (remaining: SignInFactsQuery, kept: SignInFacts, ticket: Ticket) {
        state.withLock { state in
            var remaining = questions
            var kept = SignInFacts()
            guard capacity > 0 else { return (remaining, kept, Ticket(generation: state.generation)) }
            if questions.includesApp, let app = state.apps[questions.appID] {
                kept.app = app
                remaining.includesApp = false
            }
            if let keyID = questions.keyID, let key = state.keys[keyID] {
                kept.key = key
                remaining.keyID = nil
            }
            if let providerID = questions.providerID,
                state.bindings.contains(Binding(providerID: providerID, appID: questions.appID))
            {
                kept.providerBinding = .bound
                remaining.providerID = nil
            }
            if let applicationKey = questions.applicationKey, let secret = state.secrets[applicationKey] {
                kept.registrationSecret = secret
                remaining.applicationKey = nil
            }
            return (remaining, kept, Ticket(generation: state.generation))
        }
    }

    /// The kept row of app `id`, if any, and the ticket for reading it otherwise: `Store.app(id:)`
    /// (a session's app, read by every access token minted, PROTOCOL §8.16) answered as a sign-in's
    /// app is.
    func app(id: UUID) -> (kept: AppRecord?, ticket: Ticket) {
        state.withLock { state in (capacity > 0 ? state.apps[id] : nil, Ticket(generation: state.generation)) }
    }

    /// Keeps an app read since `ticket`, unless something was invalidated meanwhile.
    func keep(app: AppRecord, since ticket: Ticket) {
        guard capacity > 0 else { return }
        state.withLock { state in
            guard state.generation == ticket.generation else { return }
            if state.count + 1 > capacity { state.removeAll() }
            state.apps[app.id] = app
        }
    }

    /// Keeps the catalogue rows found by a read of `asked`, unless something was invalidated since
    /// `ticket` was taken.
    func keep(_ read: SignInFacts, asked: SignInFactsQuery, since ticket: Ticket) {
        guard capacity > 0 else { return }
        state.withLock { state in
            guard state.generation == ticket.generation else { return }
            if state.count + 4 > capacity { state.removeAll() }
            if asked.includesApp, let app = read.app { state.apps[app.id] = app }
            if let key = read.key {
                state.keys[key.id] = key
                state.keyMarks[key.id] = key.lastVerifiedAt
            }
            if let providerID = asked.providerID, read.providerBinding == .bound {
                state.bindings.insert(Binding(providerID: providerID, appID: asked.appID))
            }
            if let secret = read.registrationSecret { state.secrets[secret.applicationKey] = secret }
        }
    }

    /// Whether the kept row of key `id` was marked as verifying within
    /// `KeyRecord.lastVerifiedResolutionSeconds` of `now`. A kept row is never newer than the file
    /// (it goes with any write of the key) and the mark never goes back, so a sign-in's mark
    /// would then change nothing and need not be run. `false` when the key is not kept.
    func holdsRecentMark(keyID id: UUID, at now: Int64) -> Bool {
        state.withLock { state in
            guard let marked = state.keyMarks[id] else { return false }
            return marked > now - KeyRecord.lastVerifiedResolutionSeconds
        }
    }

    /// Drops every row on `.everything`, the only invalidation a catalogue write states.
    func invalidate(_ invalidation: CacheInvalidation) {
        guard invalidation == .everything else { return }
        state.withLock { state in
            state.generation &+= 1
            state.removeAll()
        }
    }
}
