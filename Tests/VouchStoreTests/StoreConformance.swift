import Foundation
import Testing
import VouchProtocol
import VouchStore

/// The behaviour every `Store` backend must show, written only against the protocol so that the
/// SQLite store and a future PostgreSQL store are held to the very same checks.
///
/// A backend's test suite builds one with a `makeStore` that returns a fresh, empty store (each
/// check opens its own, so checks are independent) and runs either ``runAll()`` or, for one named
/// test per check, each element of ``checks``.
struct StoreConformance: Sendable {
    let makeStore: @Sendable () async throws -> any Store

    /// One named behaviour; named so that a failing check is reported by its name.
    struct Check: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (StoreConformance) async throws -> Void

        var testDescription: String { name }
    }

    static let checks: [Check] = [
        Check(name: "apps: create, read, list oldest first, update, sentinels") { try await $0.appsLifecycle() },
        Check(name: "providers: create with apps, read sorted, sentinels") { try await $0.providersLifecycle() },
        Check(name: "providers: bind and unbind are idempotent, unknown ids not found") { try await $0.bindAndUnbind() },
        Check(name: "keys: create, list oldest first, status, tombstones, sentinels") { try await $0.keysLifecycle() },
        Check(name: "keys: a provider has a public key once, whatever its status") { try await $0.keyUploadedOnce() },
        Check(name: "registration secrets: create, read, sentinels") { try await $0.registrationSecrets() },
        Check(name: "registration secrets: list, revoke now or later, never later than before") { try await $0.secretRotation() },
        Check(name: "unknown ids read as absent") { try await $0.unknownIDsReadAsAbsent() },
        Check(name: "createSession: server nonce recorded, reuse refused and writes nothing") { try await $0.serverNonceSignIn() },
        Check(name: "createSession: registration nonce per app, reusable once expired") { try await $0.registrationNonceSignIn() },
        Check(name: "createSession: only non-nil profile fields overwrite") { try await $0.profileUpsert() },
        Check(name: "createSession: suspended user refused and nothing written") { try await $0.suspendedUserSignIn() },
        Check(name: "createSession: duplicate token or unknown app rolls back the nonce") { try await $0.failedSignInRollsBack() },
        Check(name: "createSession: 20 concurrent sign-ins with one nonce, exactly one wins") { try await $0.concurrentSignInsWithOneNonce() },
        Check(name: "setSuspended: ends live sessions at once, unsuspend keeps them ended") { try await $0.suspensionEndsSessions() },
        Check(name: "setSuspended: unknown user gets a row, unknown app not found") { try await $0.suspendUnknownUser() },
        Check(name: "revokeSession(s): ends live sessions only") { try await $0.revocation() },
        Check(name: "sessionAndUser: the session with its user, read together") { try await $0.sessionAndUser() },
        Check(name: "activeSessionCount: excludes expired and ended sessions") { try await $0.activeSessionCount() },
        Check(name: "purgeExpired: removes exactly the expired rows") { try await $0.purgeExpired() },
        Check(name: "secret(named:orInsert:): the first value wins forever") { try await $0.secretFirstValueWins() },
        Check(name: "ping answers") { try await $0.ping() },
    ]

    /// Runs every check in order; stops at the first one that throws.
    func runAll() async throws {
        for check in Self.checks {
            try await check.run(self)
        }
    }

    /// Opens a fresh store, runs `body`, and closes the store on every path (a failed `#require`
    /// included), since a backend may insist on being closed.
    func withStore<T>(_ body: (any Store) async throws -> T) async throws -> T {
        try await closing(try await makeStore(), body)
    }
}

/// Runs `body` with `store` and closes the store on every path, a failed `#require` included.
func closing<S: Store, T>(_ store: S, _ body: (S) async throws -> T) async throws -> T {
    let value: T
    do {
        value = try await body(store)
    } catch {
        try? await store.close()
        throw error
    }
    try await store.close()
    return value
}

// MARK: - Fixtures

/// An arbitrary fixed "now", so that every expectation is a concrete number.
let t0: Int64 = 1_800_000_000

func randomBytes(_ count: Int = 32) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255) }
}

func makeApp(name: String = "App", ttl: Int64 = 3600, createdAt: Int64 = t0) -> AppRecord {
    AppRecord(id: UUID(), name: name, sessionTTLSeconds: ttl, createdAt: createdAt)
}

func newSession(
    app: UUID, user: String, token: [UInt8] = randomBytes(), profile: IdentityProfile = IdentityProfile(),
    createdAt: Int64 = t0, expiresAt: Int64 = t0 + 3600,
    nonce: NonceClaim = .serverNonce(hash: randomBytes(), expiresAt: t0 + 600)
) -> NewSession {
    NewSession(tokenHash: token, appID: app, userID: user, profile: profile,
               createdAt: createdAt, expiresAt: expiresAt, nonce: nonce)
}

extension Store {
    /// Creates an app and returns it, for checks that only need one to exist.
    func addApp(_ app: AppRecord = makeApp()) async throws -> AppRecord {
        try await createApp(app)
        return app
    }

    func addProvider(apps: [UUID] = []) async throws -> ProviderRecord {
        let provider = ProviderRecord(id: UUID(), name: "Provider", appIDs: apps, createdAt: t0)
        try await createProvider(provider)
        return provider
    }
}

// MARK: - Apps, providers, keys, registration secrets

extension StoreConformance {
    func appsLifecycle() async throws {
        try await withStore { store in
            let older = makeApp(name: "Older", ttl: 7200, createdAt: t0 - 100)
            let newer = makeApp(name: "Newer", ttl: 60, createdAt: t0)
            try await store.createApp(newer)
            try await store.createApp(older)

            #expect(try await store.app(id: newer.id) == newer)
            #expect(try await store.app(id: older.id) == older)
            #expect(try await store.apps() == [older, newer])

            // Only name and TTL change; the stored creation time stays.
            try await store.updateApp(AppRecord(id: newer.id, name: "Renamed", sessionTTLSeconds: 120, createdAt: 5))
            #expect(try await store.app(id: newer.id)
                    == AppRecord(id: newer.id, name: "Renamed", sessionTTLSeconds: 120, createdAt: t0))

            await #expect(throws: StoreError.notFound) { try await store.updateApp(makeApp()) }
            await #expect(throws: StoreError.alreadyExists) {
                try await store.createApp(AppRecord(id: older.id, name: "Dup", sessionTTLSeconds: 1, createdAt: t0))
            }
            #expect(try await store.app(id: older.id) == older)
            #expect(try await store.apps().count == 2)
        }
    }

    func providersLifecycle() async throws {
        try await withStore { store in
            let a = try await store.addApp()
            let b = try await store.addApp()
            let sorted = [a.id, b.id].sorted { $0.uuidString < $1.uuidString }
            let provider = ProviderRecord(id: UUID(), name: "Acme", appIDs: sorted.reversed(), createdAt: t0 - 5)
            try await store.createProvider(provider)

            #expect(try await store.provider(id: provider.id)
                    == ProviderRecord(id: provider.id, name: "Acme", appIDs: sorted, createdAt: t0 - 5))

            await #expect(throws: StoreError.alreadyExists) {
                try await store.createProvider(ProviderRecord(id: provider.id, name: "Dup", appIDs: [], createdAt: t0))
            }
            #expect(try await store.provider(id: provider.id)?.name == "Acme")

            // A provider naming an unknown app is refused as a whole.
            let orphan = ProviderRecord(id: UUID(), name: "Orphan", appIDs: [a.id, UUID()], createdAt: t0)
            await #expect(throws: StoreError.notFound) { try await store.createProvider(orphan) }
            #expect(try await store.provider(id: orphan.id) == nil)
        }
    }

    func bindAndUnbind() async throws {
        try await withStore { store in
            let a = try await store.addApp()
            let b = try await store.addApp()
            let provider = try await store.addProvider()
            #expect(try await store.provider(id: provider.id)?.appIDs == [])

            try await store.bindProvider(provider.id, toApp: a.id)
            try await store.bindProvider(provider.id, toApp: a.id)
            #expect(try await store.provider(id: provider.id)?.appIDs == [a.id])

            try await store.bindProvider(provider.id, toApp: b.id)
            #expect(try await store.provider(id: provider.id)?.appIDs
                    == [a.id, b.id].sorted { $0.uuidString < $1.uuidString })

            try await store.unbindProvider(provider.id, fromApp: a.id)
            try await store.unbindProvider(provider.id, fromApp: a.id)
            #expect(try await store.provider(id: provider.id)?.appIDs == [b.id])

            await #expect(throws: StoreError.notFound) { try await store.bindProvider(UUID(), toApp: a.id) }
            await #expect(throws: StoreError.notFound) { try await store.bindProvider(provider.id, toApp: UUID()) }
            await #expect(throws: StoreError.notFound) { try await store.unbindProvider(UUID(), fromApp: b.id) }
            await #expect(throws: StoreError.notFound) { try await store.unbindProvider(provider.id, fromApp: UUID()) }
            #expect(try await store.provider(id: provider.id)?.appIDs == [b.id])
        }
    }

    func keysLifecycle() async throws {
        try await withStore { store in
            let provider = try await store.addProvider()
            let other = try await store.addProvider()
            let first = KeyRecord(id: UUID(), providerID: provider.id, status: .active,
                                  publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
                                  fingerprint: "sha256:" + String(repeating: "ab", count: 32), createdAt: t0 - 10)
            var second = first
            second.id = UUID()
            second.createdAt = t0
            second.fingerprint = "sha256:" + String(repeating: "cd", count: 32)
            try await store.createKey(second)
            try await store.createKey(first)

            #expect(try await store.key(id: first.id) == first)
            #expect(try await store.keys(ofProvider: provider.id) == [first, second])
            #expect(try await store.keys(ofProvider: other.id) == [])

            var disabled = first
            disabled.status = .disabled
            #expect(try await store.setKeyStatus(id: first.id, to: .disabled) == disabled)
            #expect(try await store.key(id: first.id) == disabled)

            // Deleting leaves a readable tombstone.
            var tombstone = first
            tombstone.status = .deleted
            #expect(try await store.setKeyStatus(id: first.id, to: .deleted) == tombstone)
            #expect(try await store.key(id: first.id) == tombstone)
            #expect(try await store.keys(ofProvider: provider.id) == [tombstone, second])

            await #expect(throws: StoreError.notFound) { try await store.setKeyStatus(id: UUID(), to: .active) }
            var orphan = first
            orphan.id = UUID()
            orphan.providerID = UUID()
            await #expect(throws: StoreError.notFound) { try await store.createKey(orphan) }
            #expect(try await store.key(id: orphan.id) == nil)

            var reused = second
            reused.providerID = other.id
            await #expect(throws: StoreError.alreadyExists) { try await store.createKey(reused) }
            #expect(try await store.key(id: second.id) == second)
            #expect(try await store.keys(ofProvider: other.id) == [])
        }
    }

    func keyUploadedOnce() async throws {
        try await withStore { store in
            let provider = try await store.addProvider()
            let other = try await store.addProvider()
            let key = KeyRecord(id: UUID(), providerID: provider.id, status: .active,
                                publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
                                fingerprint: "sha256:" + String(repeating: "ef", count: 32), createdAt: t0)
            try await store.createKey(key)
            var again = key
            again.id = UUID()
            await #expect(throws: StoreError.alreadyExists) { try await store.createKey(again) }
            _ = try await store.setKeyStatus(id: key.id, to: .deleted)
            await #expect(throws: StoreError.alreadyExists, "a deleted key does not come back under a new id") {
                try await store.createKey(again)
            }
            #expect(try await store.keys(ofProvider: provider.id).map(\.id) == [key.id])
            // Another provider may hold the same public key.
            again.providerID = other.id
            try await store.createKey(again)
            #expect(try await store.keys(ofProvider: other.id) == [again])
        }
    }

    func secretRotation() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let otherApp = try await store.addApp()
            let old = RegistrationSecretRecord(applicationKey: UUID(), appID: app.id, secret: randomBytes(), createdAt: t0 - 100)
            let new = RegistrationSecretRecord(applicationKey: UUID(), appID: app.id, secret: randomBytes(), createdAt: t0)
            try await store.createRegistrationSecret(new)
            try await store.createRegistrationSecret(old)
            #expect(try await store.registrationSecrets(appID: app.id) == [old, new])
            #expect(try await store.registrationSecrets(appID: otherApp.id) == [])

            // With a grace period: still valid until then.
            let retiring = try await store.revokeRegistrationSecret(applicationKey: old.applicationKey, appID: app.id, at: t0 + 3600)
            #expect(retiring.revokedAt == t0 + 3600)
            #expect(retiring.isValid(at: t0 + 3599) && !retiring.isValid(at: t0 + 3600))
            #expect(try await store.registrationSecret(applicationKey: old.applicationKey) == retiring)
            // A later revocation does not extend it; an earlier one shortens it.
            #expect(try await store.revokeRegistrationSecret(applicationKey: old.applicationKey, appID: app.id, at: t0 + 7200).revokedAt == t0 + 3600)
            #expect(try await store.revokeRegistrationSecret(applicationKey: old.applicationKey, appID: app.id, at: t0).revokedAt == t0)
            #expect(try await store.registrationSecret(applicationKey: new.applicationKey)?.revokedAt == nil, "the other secret is untouched")

            await #expect(throws: StoreError.notFound, "a secret is revoked through its own app only") {
                try await store.revokeRegistrationSecret(applicationKey: new.applicationKey, appID: otherApp.id, at: t0)
            }
            await #expect(throws: StoreError.notFound) {
                try await store.revokeRegistrationSecret(applicationKey: UUID(), appID: app.id, at: t0)
            }
            #expect(try await store.registrationSecret(applicationKey: new.applicationKey)?.revokedAt == nil)
        }
    }

    func registrationSecrets() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            // Zero bytes included: a secret is bytes, not text.
            let record = RegistrationSecretRecord(applicationKey: UUID(), appID: app.id,
                                                  secret: [0, 1, 0, 255] + randomBytes(28), createdAt: t0)
            try await store.createRegistrationSecret(record)
            #expect(try await store.registrationSecret(applicationKey: record.applicationKey) == record)

            var duplicate = record
            duplicate.secret = randomBytes()
            await #expect(throws: StoreError.alreadyExists) { try await store.createRegistrationSecret(duplicate) }
            #expect(try await store.registrationSecret(applicationKey: record.applicationKey) == record)

            let orphan = RegistrationSecretRecord(applicationKey: UUID(), appID: UUID(), secret: randomBytes(), createdAt: t0)
            await #expect(throws: StoreError.notFound) { try await store.createRegistrationSecret(orphan) }
            #expect(try await store.registrationSecret(applicationKey: orphan.applicationKey) == nil)
        }
    }

    func unknownIDsReadAsAbsent() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            #expect(try await store.app(id: UUID()) == nil)
            #expect(try await store.apps() == [app])
            #expect(try await store.provider(id: UUID()) == nil)
            #expect(try await store.key(id: UUID()) == nil)
            #expect(try await store.keys(ofProvider: UUID()) == [])
            #expect(try await store.registrationSecret(applicationKey: UUID()) == nil)
            #expect(try await store.registrationNonceSeen(appID: app.id, nonce: "n", now: t0) == false)
            #expect(try await store.serverNonceUsed(hash: randomBytes()) == false)
            #expect(try await store.user(appID: app.id, userID: "nobody") == nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "nobody", now: t0) == 0)
            #expect(try await store.revokeSessions(appID: app.id, userID: "nobody", now: t0) == 0)
            #expect(try await store.session(tokenHash: randomBytes()) == nil)
            try await store.revokeSession(tokenHash: randomBytes(), now: t0)
        }
    }
}

// MARK: - Sign-in

extension StoreConformance {
    func serverNonceSignIn() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let nonceHash = randomBytes()
            let profile = IdentityProfile(displayName: "Ada L.", firstName: "Ada", lastName: nil,
                                          avatarURL: "https://example.com/ada.png")
            let first = newSession(app: app.id, user: "ada", profile: profile,
                                   nonce: .serverNonce(hash: nonceHash, expiresAt: t0 + 600))

            let user = try await store.createSession(first)
            #expect(user == UserRecord(appID: app.id, userID: "ada", profile: profile, suspended: false))
            #expect(try await store.user(appID: app.id, userID: "ada") == user)
            #expect(try await store.session(tokenHash: first.tokenHash)
                    == SessionRecord(tokenHash: first.tokenHash, appID: app.id, userID: "ada",
                                     createdAt: t0, expiresAt: t0 + 3600))
            #expect(try await store.serverNonceUsed(hash: nonceHash))
            #expect(try await store.serverNonceUsed(hash: randomBytes()) == false)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "ada", now: t0) == 1)

            // The same nonce again, for the same user and for a new one: refused, nothing written.
            let sameUser = newSession(app: app.id, user: "ada", profile: IdentityProfile(displayName: "Changed"),
                                      nonce: .serverNonce(hash: nonceHash, expiresAt: t0 + 600))
            await #expect(throws: StoreError.nonceAlreadyUsed) { try await store.createSession(sameUser) }
            let newUser = newSession(app: app.id, user: "bob", profile: IdentityProfile(displayName: "Bob"),
                                     nonce: .serverNonce(hash: nonceHash, expiresAt: t0 + 600))
            await #expect(throws: StoreError.nonceAlreadyUsed) { try await store.createSession(newUser) }

            #expect(try await store.session(tokenHash: sameUser.tokenHash) == nil)
            #expect(try await store.session(tokenHash: newUser.tokenHash) == nil)
            #expect(try await store.user(appID: app.id, userID: "ada") == user)
            #expect(try await store.user(appID: app.id, userID: "bob") == nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "ada", now: t0) == 1)
        }
    }

    func registrationNonceSignIn() async throws {
        try await withStore { store in
            let a = try await store.addApp()
            let b = try await store.addApp()
            let expiry = t0 + 300
            func signIn(_ app: UUID, at now: Int64, expiresAt: Int64 = expiry) -> NewSession {
                newSession(app: app, user: "u", createdAt: now,
                           nonce: .registrationNonce(appID: app, nonce: "n-1", expiresAt: expiresAt))
            }

            _ = try await store.createSession(signIn(a.id, at: t0))
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-1", now: t0))
            // Seen up to and including its expiry second, free after.
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-1", now: expiry))
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-1", now: expiry + 1) == false)
            #expect(try await store.registrationNonceSeen(appID: b.id, nonce: "n-1", now: t0) == false)
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-2", now: t0) == false)

            // Before (and at) its expiry the nonce is taken; nothing of the refused sign-in stays.
            let early = signIn(a.id, at: t0 + 100)
            await #expect(throws: StoreError.nonceAlreadyUsed) { try await store.createSession(early) }
            let atExpiry = signIn(a.id, at: expiry)
            await #expect(throws: StoreError.nonceAlreadyUsed) { try await store.createSession(atExpiry) }
            #expect(try await store.session(tokenHash: early.tokenHash) == nil)
            #expect(try await store.session(tokenHash: atExpiry.tokenHash) == nil)

            // Unique per app only.
            let otherApp = signIn(b.id, at: t0 + 100)
            _ = try await store.createSession(otherApp)
            #expect(try await store.session(tokenHash: otherApp.tokenHash) != nil)

            // Once expired it may be used again, with the new expiry.
            let reuse = signIn(a.id, at: expiry + 1, expiresAt: expiry + 600)
            _ = try await store.createSession(reuse)
            #expect(try await store.session(tokenHash: reuse.tokenHash) != nil)
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-1", now: expiry + 600))
            // The first sign-in's session and the reuse's.
            #expect(try await store.activeSessionCount(appID: a.id, userID: "u", now: expiry + 1) == 2)
        }
    }

    func profileUpsert() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let full = IdentityProfile(displayName: "Old Name", firstName: "Old", lastName: "Name",
                                       avatarURL: "https://example.com/old.png")
            #expect(try await store.createSession(newSession(app: app.id, user: "u", profile: full)).profile == full)

            let partial = IdentityProfile(displayName: "New Name", firstName: nil, lastName: "Newer", avatarURL: nil)
            let merged = IdentityProfile(displayName: "New Name", firstName: "Old", lastName: "Newer",
                                         avatarURL: "https://example.com/old.png")
            #expect(try await store.createSession(newSession(app: app.id, user: "u", profile: partial)).profile == merged)

            #expect(try await store.createSession(newSession(app: app.id, user: "u")).profile == merged)
            #expect(try await store.user(appID: app.id, userID: "u")
                    == UserRecord(appID: app.id, userID: "u", profile: merged, suspended: false))
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0) == 3)
        }
    }

    func suspendedUserSignIn() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let suspended = try await store.setSuspended(appID: app.id, userID: "u", suspended: true, now: t0)
            #expect(suspended == UserRecord(appID: app.id, userID: "u", profile: IdentityProfile(), suspended: true))

            let viaServerNonce = newSession(app: app.id, user: "u", profile: IdentityProfile(displayName: "X"))
            await #expect(throws: StoreError.userSuspended) { try await store.createSession(viaServerNonce) }
            let viaRegistration = newSession(app: app.id, user: "u", profile: IdentityProfile(firstName: "Y"),
                                             nonce: .registrationNonce(appID: app.id, nonce: "r", expiresAt: t0 + 300))
            await #expect(throws: StoreError.userSuspended) { try await store.createSession(viaRegistration) }

            // Nothing written: no session, nonce still unused, profile untouched.
            #expect(try await store.session(tokenHash: viaServerNonce.tokenHash) == nil)
            #expect(try await store.session(tokenHash: viaRegistration.tokenHash) == nil)
            guard case .serverNonce(let hash, _) = viaServerNonce.nonce else {
                Issue.record("fixture should use a server nonce")
                return
            }
            #expect(try await store.serverNonceUsed(hash: hash) == false)
            #expect(try await store.registrationNonceSeen(appID: app.id, nonce: "r", now: t0) == false)
            #expect(try await store.user(appID: app.id, userID: "u") == suspended)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0) == 0)
        }
    }

    func failedSignInRollsBack() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let first = newSession(app: app.id, user: "u")
            _ = try await store.createSession(first)
            let original = try await store.session(tokenHash: first.tokenHash)

            // A token hash in use: the nonce and the new user must not stay behind.
            let nonce = randomBytes()
            let clash = newSession(app: app.id, user: "other", token: first.tokenHash, createdAt: t0 + 1,
                                   nonce: .serverNonce(hash: nonce, expiresAt: t0 + 600))
            await #expect(throws: StoreError.alreadyExists) { try await store.createSession(clash) }
            #expect(try await store.serverNonceUsed(hash: nonce) == false)
            #expect(try await store.user(appID: app.id, userID: "other") == nil)
            #expect(try await store.session(tokenHash: first.tokenHash) == original)

            // An unknown app: not found, and again no trace of the nonce.
            let unknownApp = UUID()
            let nowhere = newSession(app: unknownApp, user: "u", nonce: .serverNonce(hash: nonce, expiresAt: t0 + 600))
            await #expect(throws: StoreError.notFound) { try await store.createSession(nowhere) }
            #expect(try await store.serverNonceUsed(hash: nonce) == false)
            #expect(try await store.session(tokenHash: nowhere.tokenHash) == nil)

            // The nonce is still good for a proper sign-in.
            _ = try await store.createSession(newSession(app: app.id, user: "u", nonce: .serverNonce(hash: nonce, expiresAt: t0 + 600)))
            #expect(try await store.serverNonceUsed(hash: nonce))
        }
    }

    func concurrentSignInsWithOneNonce() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let nonce = NonceClaim.serverNonce(hash: randomBytes(), expiresAt: t0 + 600)
            let attempts = (0..<20).map { newSession(app: app.id, user: "user-\($0)", nonce: nonce) }

            let outcomes = await withTaskGroup(of: Result<UserRecord, StoreError>.self) { group in
                for attempt in attempts {
                    group.addTask {
                        do {
                            return .success(try await store.createSession(attempt))
                        } catch let error as StoreError {
                            return .failure(error)
                        } catch {
                            return .failure(.unavailable("unexpected \(type(of: error))"))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }

            let winners = outcomes.compactMap { try? $0.get() }
            let failures = outcomes.compactMap { outcome -> StoreError? in
                if case .failure(let error) = outcome { return error }
                return nil
            }
            #expect(winners.count == 1)
            #expect(failures == Array(repeating: StoreError.nonceAlreadyUsed, count: 19))

            // Exactly one user and one session exist, the winner's.
            var users = 0
            var sessions = 0
            for attempt in attempts {
                if try await store.user(appID: app.id, userID: attempt.userID) != nil { users += 1 }
                if try await store.session(tokenHash: attempt.tokenHash) != nil { sessions += 1 }
            }
            #expect(users == 1)
            #expect(sessions == 1)
            if let winner = winners.first {
                #expect(try await store.activeSessionCount(appID: app.id, userID: winner.userID, now: t0) == 1)
            }
        }
    }
}

// MARK: - Suspension and revocation

extension StoreConformance {
    func suspensionEndsSessions() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let profile = IdentityProfile(displayName: "U")
            let live1 = newSession(app: app.id, user: "u", profile: profile, expiresAt: t0 + 1000)
            let live2 = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let revoked = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let expired = newSession(app: app.id, user: "u", expiresAt: t0 + 10)
            let bystander = newSession(app: app.id, user: "v", expiresAt: t0 + 1000)
            for session in [live1, live2, revoked, expired, bystander] {
                _ = try await store.createSession(session)
            }
            try await store.revokeSession(tokenHash: revoked.tokenHash, now: t0 + 5)

            let suspended = try await store.setSuspended(appID: app.id, userID: "u", suspended: true, now: t0 + 50)
            #expect(suspended == UserRecord(appID: app.id, userID: "u", profile: profile, suspended: true))
            #expect(try await store.user(appID: app.id, userID: "u")?.suspended == true)

            // Visible to the very next read.
            for live in [live1, live2] {
                let record = try await store.session(tokenHash: live.tokenHash)
                #expect(record?.endedAt == t0 + 50)
                #expect(record?.endReason == .userSuspended)
            }
            let revokedRecord = try await store.session(tokenHash: revoked.tokenHash)
            #expect(revokedRecord?.endedAt == t0 + 5)
            #expect(revokedRecord?.endReason == .revoked)
            let expiredRecord = try await store.session(tokenHash: expired.tokenHash)
            #expect(expiredRecord?.endedAt == nil)
            #expect(expiredRecord?.endReason == nil)
            #expect(try await store.session(tokenHash: bystander.tokenHash)?.endedAt == nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 50) == 0)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "v", now: t0 + 50) == 1)

            // A later revocation does not overwrite the first reason.
            try await store.revokeSession(tokenHash: live1.tokenHash, now: t0 + 60)
            #expect(try await store.session(tokenHash: live1.tokenHash)?.endReason == .userSuspended)

            // Unsuspending lets the user in again, but ended sessions stay ended.
            let restored = try await store.setSuspended(appID: app.id, userID: "u", suspended: false, now: t0 + 70)
            #expect(restored == UserRecord(appID: app.id, userID: "u", profile: profile, suspended: false))
            #expect(try await store.session(tokenHash: live2.tokenHash)?.endReason == .userSuspended)
            _ = try await store.createSession(newSession(app: app.id, user: "u", createdAt: t0 + 80, expiresAt: t0 + 1000))
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 80) == 1)
        }
    }

    func suspendUnknownUser() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            #expect(try await store.user(appID: app.id, userID: "ghost") == nil)

            let ghost = try await store.setSuspended(appID: app.id, userID: "ghost", suspended: true, now: t0)
            #expect(ghost == UserRecord(appID: app.id, userID: "ghost", profile: IdentityProfile(), suspended: true))
            #expect(try await store.user(appID: app.id, userID: "ghost") == ghost)
            await #expect(throws: StoreError.userSuspended) {
                try await store.createSession(newSession(app: app.id, user: "ghost"))
            }

            let unsuspended = try await store.setSuspended(appID: app.id, userID: "new", suspended: false, now: t0)
            #expect(unsuspended == UserRecord(appID: app.id, userID: "new", profile: IdentityProfile(), suspended: false))

            await #expect(throws: StoreError.notFound) {
                try await store.setSuspended(appID: UUID(), userID: "ghost", suspended: true, now: t0)
            }
        }
    }

    func sessionAndUser() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let session = newSession(app: app.id, user: "u", profile: IdentityProfile(displayName: "U"))
            _ = try await store.createSession(session)
            let found = try #require(try await store.sessionAndUser(tokenHash: session.tokenHash))
            #expect(found.session == (try await store.session(tokenHash: session.tokenHash)))
            #expect(found.user?.profile.displayName == "U")
            #expect(found.user?.suspended == false)
            _ = try await store.setSuspended(appID: app.id, userID: "u", suspended: true, now: t0 + 1)
            let suspended = try await store.sessionAndUser(tokenHash: session.tokenHash)
            #expect(suspended?.user?.suspended == true)
            #expect(suspended?.session.endReason == .userSuspended)
            #expect(try await store.sessionAndUser(tokenHash: randomBytes()) == nil)
        }
    }

    func revocation() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let live1 = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let live2 = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let single = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let expired = newSession(app: app.id, user: "u", expiresAt: t0 + 10)
            let bystander = newSession(app: app.id, user: "v", expiresAt: t0 + 1000)
            for session in [live1, live2, single, expired, bystander] {
                _ = try await store.createSession(session)
            }

            try await store.revokeSession(tokenHash: single.tokenHash, now: t0 + 5)
            #expect(try await store.session(tokenHash: single.tokenHash)
                    == SessionRecord(tokenHash: single.tokenHash, appID: app.id, userID: "u", createdAt: t0,
                                     expiresAt: t0 + 1000, endedAt: t0 + 5, endReason: .revoked))
            // live1, live2, and `expired`, which only expires at t0 + 10.
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 5) == 3)

            #expect(try await store.revokeSessions(appID: app.id, userID: "u", now: t0 + 20) == 2)
            for live in [live1, live2] {
                let record = try await store.session(tokenHash: live.tokenHash)
                #expect(record?.endedAt == t0 + 20)
                #expect(record?.endReason == .revoked)
            }
            #expect(try await store.session(tokenHash: single.tokenHash)?.endedAt == t0 + 5)
            #expect(try await store.session(tokenHash: expired.tokenHash)?.endedAt == nil)
            #expect(try await store.session(tokenHash: bystander.tokenHash)?.endedAt == nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 20) == 0)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "v", now: t0 + 20) == 1)

            // Again: nothing left to end, and ended sessions keep their first end.
            #expect(try await store.revokeSessions(appID: app.id, userID: "u", now: t0 + 30) == 0)
            try await store.revokeSession(tokenHash: single.tokenHash, now: t0 + 30)
            #expect(try await store.session(tokenHash: single.tokenHash)?.endedAt == t0 + 5)
            #expect(try await store.session(tokenHash: live1.tokenHash)?.endedAt == t0 + 20)
        }
    }

    func activeSessionCount() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            _ = try await store.createSession(newSession(app: app.id, user: "u", expiresAt: t0 + 100))
            _ = try await store.createSession(newSession(app: app.id, user: "u", expiresAt: t0 + 200))
            let ended = newSession(app: app.id, user: "u", expiresAt: t0 + 300)
            _ = try await store.createSession(ended)
            try await store.revokeSession(tokenHash: ended.tokenHash, now: t0 + 1)

            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 1) == 2)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 99) == 2)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 100) == 1)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 200) == 0)
            #expect(try await store.activeSessionCount(appID: UUID(), userID: "u", now: t0) == 0)
        }
    }
}

// MARK: - Housekeeping and server secrets

extension StoreConformance {
    func purgeExpired() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let now = t0 + 1000
            let grace: Int64 = 100
            let farFuture = t0 + 100_000
            // Sessions that stay, each with a nonce that stays, so only the named rows may go.
            func keptSession(_ nonce: NonceClaim) -> NewSession {
                newSession(app: app.id, user: "u", expiresAt: farFuture, nonce: nonce)
            }
            func session(expiresAt: Int64) -> NewSession {
                newSession(app: app.id, user: "u", expiresAt: expiresAt,
                           nonce: .serverNonce(hash: randomBytes(), expiresAt: farFuture))
            }

            let pastNonce = randomBytes(), edgeNonce = randomBytes(), futureNonce = randomBytes()
            let seeded = [
                keptSession(.serverNonce(hash: pastNonce, expiresAt: now - 1)),
                keptSession(.serverNonce(hash: edgeNonce, expiresAt: now)),
                keptSession(.serverNonce(hash: futureNonce, expiresAt: now + 1)),
                keptSession(.registrationNonce(appID: app.id, nonce: "past", expiresAt: now - 1)),
                keptSession(.registrationNonce(appID: app.id, nonce: "edge", expiresAt: now)),
            ]
            let old = session(expiresAt: now - grace - 1)
            let edge = session(expiresAt: now - grace)
            let recent = session(expiresAt: now - 1)
            let revoked = session(expiresAt: farFuture)
            for session in seeded + [old, edge, recent, revoked] {
                _ = try await store.createSession(session)
            }
            try await store.revokeSession(tokenHash: revoked.tokenHash, now: t0)

            #expect(try await store.purgeExpired(now: now, sessionGraceSeconds: grace) == 3)

            #expect(try await store.serverNonceUsed(hash: pastNonce) == false)
            #expect(try await store.serverNonceUsed(hash: edgeNonce))
            #expect(try await store.serverNonceUsed(hash: futureNonce))
            // Asked about an earlier moment, so that only the row's presence decides.
            #expect(try await store.registrationNonceSeen(appID: app.id, nonce: "past", now: t0) == false)
            #expect(try await store.registrationNonceSeen(appID: app.id, nonce: "edge", now: t0))
            #expect(try await store.session(tokenHash: old.tokenHash) == nil)
            for kept in seeded + [edge, recent, revoked] {
                #expect(try await store.session(tokenHash: kept.tokenHash) != nil)
                if case .serverNonce(let hash, _) = kept.nonce, hash != pastNonce {
                    #expect(try await store.serverNonceUsed(hash: hash))
                }
            }
            #expect(try await store.user(appID: app.id, userID: "u") != nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: now) == 5)

            #expect(try await store.purgeExpired(now: now, sessionGraceSeconds: grace) == 0)
        }
    }

    func secretFirstValueWins() async throws {
        try await withStore { store in
            let first = randomBytes()
            #expect(try await store.secret(named: "cookie", orInsert: first) == first)
            #expect(try await store.secret(named: "cookie", orInsert: randomBytes()) == first)
            let other = randomBytes(64)
            #expect(try await store.secret(named: "other", orInsert: other) == other)
            #expect(try await store.secret(named: "cookie", orInsert: other) == first)

            // Racing first inserts all end up with one and the same value, one of the candidates.
            let candidates = (0..<10).map { _ in randomBytes() }
            let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for candidate in candidates {
                    group.addTask { try await store.secret(named: "race", orInsert: candidate) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 10)
            #expect(Set(results).count == 1)
            #expect(results.first.map { candidates.contains($0) } == true)
        }
    }

    func ping() async throws {
        try await withStore { store in
            try await store.ping()
            try await store.ping()
        }
    }
}
