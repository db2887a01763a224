import Foundation
import Logging
import Synchronization
import VouchProtocol
import VouchStore

/// One connection of the live channel, from its admission to its close: a number never used
/// twice in the process (a channel's address could be reused while a late release is under way).
struct LiveSocketID: Hashable, Sendable {
    let raw: UInt64

    private static let counter = Atomic<UInt64>(0)

    static func next() -> LiveSocketID {
        LiveSocketID(raw: counter.wrappingAdd(1, ordering: .relaxed).newValue)
    }
}

/// What the hub asks a socket to send: a frame, or the close that ends it.
enum LiveOutbound: Sendable {
    case frame(LiveFrame)
    case close(LiveCloseCode)
}

/// Every socket of this instance, indexed by what an ending can name (session, user, app), and
/// the one place that decides what each socket is told (PROTOCOL §8.15).
///
/// A socket follows one session at a time: the one it was opened with, then each one an
/// `authenticate` frame opened. Endings reach the hub from the log (`LiveEndingsFollower`), each
/// applied to the sockets whose session it ends: by public id for one session's ending, by the
/// recorded generation for a cutoff (no look-up, so that a cutoff of a whole app reaches thousands
/// of sockets at once), and by a fresh look-up for a suspension (the user may have been let back
/// in since). Expiry and unanswered challenges are found by `tick`, once a second.
actor LiveHub {
    private struct Watch {
        var session: SessionRecord
        let outbox: AsyncStream<LiveOutbound>.Continuation
        var pending: Pending?
        var answering = false
        var closing = false
    }

    /// A challenge the socket has been sent and not yet answered.
    private struct Pending {
        var deadline: Int64
        var answerable: Bool
    }

    private struct UserKey: Hashable {
        let appID: UUID
        let userID: String
    }

    private let store: any Store
    private let nonces: @Sendable (UUID) -> String
    private let clock: @Sendable () -> Int64
    private let metrics: ServerMetrics
    private let logger: Logger
    private var random = SystemRandomNumberGenerator()

    /// Admitted connections, by the session whose slot they hold (the cap counts these).
    private var slots: [LiveSocketID: UUID] = [:]
    private var slotCounts: [UUID: Int] = [:]
    private var watches: [LiveSocketID: Watch] = [:]
    private var bySession: [UUID: Set<LiveSocketID>] = [:]
    private var byUser: [UserKey: Set<LiveSocketID>] = [:]
    private var byApp: [UUID: Set<LiveSocketID>] = [:]
    /// No socket has anything due before this (an expiry or a margin); `tick` scans only after it.
    private var nextDeadline = Int64.max
    private var closingForShutdown = false

    init(
        store: any Store, nonces: @escaping @Sendable (UUID) -> String, clock: @escaping @Sendable () -> Int64,
        metrics: ServerMetrics, logger: Logger
    ) {
        self.store = store
        self.nonces = nonces
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    // MARK: Admission and life

    /// Takes one of the session's slots for a connection being admitted; `false` when the session
    /// already holds `LiveChannelLimits.socketsPerSession`, or the server is shutting down.
    func reserve(_ socket: LiveSocketID, sessionID: UUID) -> Bool {
        guard !closingForShutdown, slotCounts[sessionID, default: 0] < LiveChannelLimits.socketsPerSession else {
            return false
        }
        slots[socket] = sessionID
        slotCounts[sessionID, default: 0] += 1
        return true
    }

    /// Starts watching an admitted socket's session and sends it `ready`.
    func attach(
        _ socket: LiveSocketID, session: SessionRecord, marginSeconds: Int64,
        outbox: AsyncStream<LiveOutbound>.Continuation
    ) -> Bool {
        guard slots[socket] != nil, !closingForShutdown else { return false }
        watches[socket] = Watch(session: session, outbox: outbox)
        index(socket, session)
        nextDeadline = min(nextDeadline, session.expiresAt)
        metrics.setLiveSockets(watches.count)
        outbox.yield(
            .frame(
                .ready(
                    sessionID: session.sessionID.lowercased, expiresAt: Timestamp.rfc3339(session.expiresAt),
                    marginSeconds: marginSeconds)))
        return true
    }

    /// Forgets a connection that closed, whatever state it was in.
    func release(_ socket: LiveSocketID) {
        if let sessionID = slots.removeValue(forKey: socket) {
            let count = slotCounts[sessionID, default: 1] - 1
            slotCounts[sessionID] = count > 0 ? count : nil
        }
        guard let watch = watches.removeValue(forKey: socket) else { return }
        unindex(socket, watch.session)
        watch.outbox.finish()
        metrics.setLiveSockets(watches.count)
    }

    /// Closes one socket with `code` (its client is told why).
    func close(_ socket: LiveSocketID, with code: LiveCloseCode) {
        guard var watch = watches[socket], !watch.closing else { return }
        watch.closing = true
        watches[socket] = watch
        watch.outbox.yield(.close(code))
    }

    /// Closes every socket with 1012 and admits no more: the server is shutting down.
    func closeAllForShutdown() {
        closingForShutdown = true
        for socket in watches.keys { close(socket, with: .serviceRestart) }
    }

    /// Open sockets by app, for the dashboard.
    func socketCounts() -> [UUID: Int] {
        byApp.mapValues(\.count)
    }

    // MARK: Endings

    /// Applies one entry of the log to the sockets it reaches.
    func apply(_ ending: SessionEnding) async {
        switch (ending.scope, ending.kind) {
        case (.session(let sessionID, _, _), .signedOut):
            for socket in bySession[sessionID] ?? [] { signOut(socket) }
        case (.session(let sessionID, let appID, _), _):
            await challenge(Set(bySession[sessionID] ?? []), appID: appID, reason: .sessionRevoked, detail: nil, spread: false)
        case (.user(let appID, let userID), .suspended):
            await recheck(Array(byUser[UserKey(appID: appID, userID: userID)] ?? []))
        case (.user(let appID, let userID), _):
            let reached = (byUser[UserKey(appID: appID, userID: userID)] ?? []).filter {
                isBefore(ending.generation, watches[$0]?.session.generations.user)
            }
            await challenge(reached, appID: appID, reason: .sessionRevoked, detail: ending.reason, spread: false)
        case (.app(let appID), _):
            let reached = (byApp[appID] ?? []).filter { isBefore(ending.generation, watches[$0]?.session.generations.app) }
            await challenge(reached, appID: appID, reason: .sessionRevoked, detail: ending.reason, spread: true)
        case (.provider(let providerID), _):
            await challengeEachApp(
                watches.filter {
                    $0.value.session.providerID == providerID && isBefore(ending.generation, $0.value.session.generations.provider)
                }.map(\.key), reason: ending.reason)
        case (.key(let keyID), _):
            await challengeEachApp(
                watches.filter {
                    $0.value.session.keyID == keyID && isBefore(ending.generation, $0.value.session.generations.key)
                }.map(\.key), reason: ending.reason)
        }
    }

    /// Whether a session that recorded `recorded` of a scope is reached by that scope's cutoff to
    /// `generation` (a session that recorded nothing of the scope was never under it).
    private func isBefore(_ generation: Int64?, _ recorded: Int64?) -> Bool {
        guard let generation, let recorded else { return false }
        return recorded < generation
    }

    private func challengeEachApp(_ sockets: [LiveSocketID], reason: String?) async {
        let byApp = Dictionary(grouping: sockets) { watches[$0]?.session.appID }
        for case (let appID?, let reached) in byApp {
            await challenge(Set(reached), appID: appID, reason: .sessionRevoked, detail: reason, spread: true)
        }
    }

    /// Judges each socket's session afresh from the store (`SessionStanding`) and tells those whose
    /// session is over: after a suspension, after a socket's admission (an ending may have
    /// committed between its look-up and its registration), and after entries were missed.
    func recheck(_ sockets: [LiveSocketID]) async {
        var verdicts: [(LiveSocketID, SessionStanding)] = []
        for socket in sockets {
            guard let tokenHash = watches[socket]?.session.tokenHash else { continue }
            do {
                guard let lookup = try await store.sessionLookup(tokenHash: tokenHash) else { continue }
                verdicts.append((socket, lookup.standing(at: clock())))
            } catch {
                logger.warning("The live channel could not look a session up", metadata: ["error.type": "\(type(of: error))"])
            }
        }
        for (socket, standing) in verdicts {
            guard let appID = watches[socket]?.session.appID, watches[socket]?.session.tokenHash != nil else { continue }
            switch standing {
            case .live: break
            case .signedOut: signOut(socket)
            case .userSuspended: suspend(socket)
            case .revoked: await challenge([socket], appID: appID, reason: .sessionRevoked, detail: nil, spread: false)
            case .cutOff(_, let reason):
                await challenge([socket], appID: appID, reason: .sessionRevoked, detail: reason, spread: false)
            case .expired: await challenge([socket], appID: appID, reason: .sessionExpired, detail: nil, spread: false)
            }
        }
    }

    /// Every socket, afresh: the log lost entries this instance never read.
    func recheckAll() async {
        await recheck(Array(watches.keys))
    }

    /// Sends each socket not already challenged a challenge with a fresh nonce bound to `appID`,
    /// spread over the first half of the margin when `spread` (a cutoff of many sessions).
    private func challenge(
        _ sockets: Set<LiveSocketID>, appID: UUID, reason: ChallengeReason, detail: String?, spread: Bool
    ) async {
        let targets = sockets.filter { watches[$0].map { $0.pending == nil && !$0.closing } ?? false }
        guard !targets.isEmpty else { return }
        let margin = await marginSeconds(of: appID)
        let now = clock()
        let window = spread ? min(margin * 500, Int64(targets.count) * 1000 / Int64(LiveChannelLimits.answersPerSecond)) : 0
        for socket in targets {
            // Judged again after the margin's read: the socket may have closed or been answered.
            guard var watch = watches[socket], watch.pending == nil, !watch.closing else { continue }
            let after = window > 0 ? Int64.random(in: 0..<window, using: &random) : 0
            watch.pending = Pending(deadline: now + margin, answerable: true)
            watches[socket] = watch
            nextDeadline = min(nextDeadline, now + margin)
            watch.outbox.yield(
                .frame(
                    .challenge(
                        LiveChallenge(
                            reason: reason, nonce: nonces(appID), answerWithinSeconds: margin,
                            answerAfterMilliseconds: after, detail: detail))))
            metrics.recordLiveChallenge(.pushed)
        }
    }

    private func signOut(_ socket: LiveSocketID) {
        guard let watch = watches[socket], !watch.closing else { return }
        watch.outbox.yield(.frame(.signedOut))
        close(socket, with: .signedOut)
    }

    private func suspend(_ socket: LiveSocketID) {
        guard let watch = watches[socket], !watch.closing else { return }
        watch.outbox.yield(
            .frame(
                .challenge(
                    LiveChallenge(
                        reason: .userSuspended, nonce: nil, answerWithinSeconds: 0, answerAfterMilliseconds: 0, detail: nil))))
        metrics.recordLiveChallenge(.pushed)
        close(socket, with: .userSuspended)
    }

    private func marginSeconds(of appID: UUID) async -> Int64 {
        do {
            return try await store.app(id: appID)?.challengeMarginSeconds ?? AppRecord.defaultChallengeMarginSeconds
        } catch {
            return AppRecord.defaultChallengeMarginSeconds
        }
    }

    // MARK: Time

    /// Challenges sockets whose session reached its expiry and closes those whose margin ran out.
    /// Cheap when nothing is due: one comparison.
    func tick() async {
        let now = clock()
        guard now >= nextDeadline else { return }
        var expired: [UUID: Set<LiveSocketID>] = [:]
        var next = Int64.max
        for (socket, watch) in watches where !watch.closing {
            if let pending = watch.pending {
                if pending.deadline <= now, !watch.answering {
                    metrics.recordLiveChallenge(.expired)
                    close(socket, with: .challengeUnanswered)
                } else {
                    next = min(next, pending.deadline)
                }
            } else if watch.session.expiresAt <= now {
                expired[watch.session.appID, default: []].insert(socket)
            } else {
                next = min(next, watch.session.expiresAt)
            }
        }
        nextDeadline = next
        for (appID, sockets) in expired {
            await challenge(sockets, appID: appID, reason: .sessionExpired, detail: nil, spread: false)
        }
    }

    // MARK: Answers

    enum AnswerStart: Sendable {
        case start(appID: UUID, device: DeviceDescription?)
        case refused(APIError)
    }

    /// An `authenticate` frame arrived: allowed once at a time, while an answerable challenge is
    /// pending.
    func beginAnswer(_ socket: LiveSocketID) -> AnswerStart {
        guard var watch = watches[socket], !watch.closing else {
            return .refused(APIError(.conflict, "This socket is closing."))
        }
        guard let pending = watch.pending, pending.answerable else {
            return .refused(APIError(.conflict, "No challenge is pending on this socket: there is nothing to answer."))
        }
        guard !watch.answering else {
            return .refused(APIError(.conflict, "An answer to this challenge is already being judged."))
        }
        watch.answering = true
        watches[socket] = watch
        return .start(appID: watch.session.appID, device: watch.session.device)
    }

    /// The answer opened `session`: the socket follows it from now on.
    func finishAnswer(_ socket: LiveSocketID, session: SessionRecord, signedIn: SignedInSession) {
        guard var watch = watches[socket] else { return }
        unindex(socket, watch.session)
        if let old = slots[socket] {
            let count = slotCounts[old, default: 1] - 1
            slotCounts[old] = count > 0 ? count : nil
        }
        slots[socket] = session.sessionID
        slotCounts[session.sessionID, default: 0] += 1
        watch.session = session
        watch.pending = nil
        watch.answering = false
        watches[socket] = watch
        index(socket, session)
        nextDeadline = min(nextDeadline, session.expiresAt)
        metrics.recordLiveChallenge(.answered)
        watch.outbox.yield(.frame(.authenticated(signedIn)))
    }

    /// The answer was refused: the challenge stays pending until its deadline.
    func failAnswer(_ socket: LiveSocketID, error: APIError) {
        guard var watch = watches[socket] else { return }
        watch.answering = false
        watches[socket] = watch
        watch.outbox.yield(.frame(.error(error)))
        if let pending = watch.pending, pending.deadline <= clock() {
            metrics.recordLiveChallenge(.expired)
            close(socket, with: .challengeUnanswered)
        }
    }

    // MARK: Indexes

    private func index(_ socket: LiveSocketID, _ session: SessionRecord) {
        bySession[session.sessionID, default: []].insert(socket)
        byUser[UserKey(appID: session.appID, userID: session.userID), default: []].insert(socket)
        byApp[session.appID, default: []].insert(socket)
    }

    private func unindex(_ socket: LiveSocketID, _ session: SessionRecord) {
        Self.remove(socket, from: &bySession, at: session.sessionID)
        Self.remove(socket, from: &byUser, at: UserKey(appID: session.appID, userID: session.userID))
        Self.remove(socket, from: &byApp, at: session.appID)
    }

    private static func remove<Key: Hashable>(_ socket: LiveSocketID, from index: inout [Key: Set<LiveSocketID>], at key: Key) {
        index[key]?.remove(socket)
        if index[key]?.isEmpty == true { index[key] = nil }
    }
}
