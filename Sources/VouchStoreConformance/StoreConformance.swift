import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchTestSupport

/// The behaviour every `Store` backend must show, written only against the protocol so that the
/// SQLite store and the PostgreSQL store are held to the very same checks (as dex's
/// `storage/conformance` package is imported by each of its storage backends).
///
/// A backend's test target builds one with `withStores`, which creates a fresh, empty database,
/// opens `count` independent store instances on it (separate connections, as separate `vouch
/// serve` processes would have), runs the check with them and closes them on every path. Most
/// checks use one instance; the race checks use two, so that a guarantee kept only by a lock
/// inside one instance would be caught. Each check opens its own database, so checks are
/// independent; run each element of ``checks`` as its own test.
public struct StoreConformance: Sendable {
    /// Opens `count` stores on a fresh database, runs the body with them, and closes them.
    public typealias StoresScope = @Sendable (_ count: Int, _ body: ([any Store]) async throws -> Void) async throws -> Void

    let scope: StoresScope

    public init(withStores scope: @escaping StoresScope) {
        self.scope = scope
    }

    /// One named behaviour; named so that a failing check is reported by its name.
    public struct Check: Sendable, CustomTestStringConvertible {
        public let name: String
        let body: @Sendable (StoreConformance) async throws -> Void

        init(name: String, _ body: @escaping @Sendable (StoreConformance) async throws -> Void) {
            self.name = name
            self.body = body
        }

        public var testDescription: String { name }

        /// Runs the check against fresh stores from `conformance`.
        public func run(_ conformance: StoreConformance) async throws { try await body(conformance) }
    }

    public static let checks: [Check] =
        catalogueChecks + signInChecks + suspensionChecks + housekeepingChecks + raceChecks
        + auditChecks + cutoffChecks + deviceChecks + endingChecks + liveTicketChecks + accessTokenSettingChecks
        + signingKeyChecks + serviceCredentialChecks + webhookEndpointChecks + securityEventChecks + erasureChecks + keySourceChecks

    static let cutoffChecks: [Check] = [
        Check(name: "cutOff: each scope ends exactly its sessions made before it, none after, counted once") {
            try await $0.cutoffsAtEveryScope()
        },
        Check(name: "cutOff: unknown objects not found, a deleted key refused, nothing changed") { try await $0.cutoffRefusals() },
        Check(name: "race: cutoffs on one instance against sign-ins on another, exact both ways") {
            try await $0.raceCutoffsAgainstSignIns()
        },
    ]

    static let deviceChecks: [Check] = [
        Check(name: "liveSessions: the user's live sessions, oldest first, with their devices") { try await $0.liveSessionsListing() },
        Check(name: "endSession: by public id, another user's is not found, the first end stays") { try await $0.endSessionByID() },
        Check(name: "signOutOtherSessions: every other live session of the user, signed out") { try await $0.signOutOthers() },
        Check(name: "markSessionSeen: once a minute, never backwards, not for an ended session") {
            try await $0.lastSeenOncePerMinute()
        },
    ]

    static let catalogueChecks: [Check] = [
        Check(name: "apps: create, read, list oldest first, partial update, sentinels") { try await $0.appsLifecycle() },
        Check(name: "apps: the challenge margin, defaulted, updated alone or with other fields, its range held by the database") {
            try await $0.challengeMargin()
        },
        Check(name: "providers: create with apps, read sorted, sentinels") { try await $0.providersLifecycle() },
        Check(name: "providers: bind and unbind are idempotent, unknown ids not found") { try await $0.bindAndUnbind() },
        Check(name: "keys: create, list oldest first, status, tombstones final, sentinels") { try await $0.keysLifecycle() },
        Check(name: "keys: a provider has a public key once, whatever its status") { try await $0.keyUploadedOnce() },
        Check(name: "registration secrets: create, read, sentinels") { try await $0.registrationSecrets() },
        Check(name: "registration secrets: list, revoke now or later, never later than before") { try await $0.secretRotation() },
        Check(name: "unknown ids read as absent") { try await $0.unknownIDsReadAsAbsent() },
    ]

    static let signInChecks: [Check] = [
        Check(name: "createSession: server nonce recorded, reuse refused and writes nothing") { try await $0.serverNonceSignIn() },
        Check(name: "createSession: registration nonce per app, reusable once expired") { try await $0.registrationNonceSignIn() },
        Check(name: "createSession: only non-nil profile fields overwrite") { try await $0.profileUpsert() },
        Check(name: "createSession: suspended user refused and nothing written") { try await $0.suspendedUserSignIn() },
        Check(name: "createSession: duplicate token or unknown app rolls back the nonce") { try await $0.failedSignInRollsBack() },
        Check(name: "createSession: 20 concurrent sign-ins with one nonce, exactly one wins") { try await $0.concurrentSignInsWithOneNonce() },
        Check(name: "signInFacts: answers what was asked, as the one-question reads do") { try await $0.signInFacts() },
    ]

    static let suspensionChecks: [Check] = [
        Check(name: "setSuspended: ends live sessions at once, unsuspend keeps them ended") { try await $0.suspensionEndsSessions() },
        Check(name: "setSuspended: unknown user gets a row, unknown app not found") { try await $0.suspendUnknownUser() },
        Check(name: "createSession: a suspended user's sign-in writes nothing; a used nonce outranks it") {
            try await $0.suspendedSignInWritesNothing()
        },
        Check(name: "revokeSession(s): ends live sessions only") { try await $0.revocation() },
        Check(name: "sessionLookup: the session with its user, read together") { try await $0.sessionLookup() },
        Check(name: "activeSessionCount: excludes expired and ended sessions") { try await $0.activeSessionCount() },
    ]

    static let housekeepingChecks: [Check] = [
        Check(name: "purgeExpired: removes exactly the expired rows") { try await $0.purgeExpired() },
        Check(name: "secret(named:orInsert:): the first value wins forever") { try await $0.secretFirstValueWins() },
        Check(name: "liveSessionCount: every app's sessions, neither ended nor expired") { try await $0.liveSessionCount() },
        Check(name: "ping answers") { try await $0.ping() },
    ]

    static let raceChecks: [Check] = [
        Check(name: "race: 32 sign-ins with one nonce over two instances, exactly one session") { try await $0.raceOneNonceTwoInstances() },
        Check(name: "race: Sinch nonce replayed over two instances, exactly one session") { try await $0.raceRegistrationNonceTwoInstances() },
        Check(name: "race: suspension against sign-ins, no session outlives it") { try await $0.raceSuspensionAgainstSignIns() },
        Check(name: "race: revocation against sign-in, no live session after revokeSessions") { try await $0.raceRevocationAgainstSignIn() },
        Check(name: "race: key status changes against deletion, a tombstone stays deleted") { try await $0.raceKeyStatusAgainstDeletion() },
        Check(name: "race: concurrent partial app updates of different fields, neither lost") { try await $0.raceAppUpdates() },
        Check(name: "a change through one instance is seen at once by another") { try await $0.changeSeenByOtherInstance() },
    ]

    /// Opens a fresh store, runs `body`, and closes the store on every path (a failed `#require`
    /// included), since a backend may insist on being closed.
    func withStore<T>(_ body: (any Store) async throws -> T) async throws -> T {
        try await withStores(1) { try await body($0[0]) }
    }

    /// Opens `count` instances on one fresh database, runs `body`, and closes them all on every path.
    func withStores<T>(_ count: Int, _ body: ([any Store]) async throws -> T) async throws -> T {
        var value: T?
        try await scope(count) { stores in value = try await body(stores) }
        guard let value else { throw TestFailure("the backend's scope did not run the check") }
        return value
    }
}
