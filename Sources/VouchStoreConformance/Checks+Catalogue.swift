import Foundation
import Testing
import VouchProtocol
import VouchStore

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

            // Only the fields given change; the stored creation time stays.
            let renamed = AppRecord(id: newer.id, name: "Renamed", sessionTTLSeconds: 120, createdAt: t0)
            #expect(try await store.updateApp(id: newer.id, name: "Renamed", sessionTTLSeconds: 120) == renamed)
            #expect(try await store.app(id: newer.id) == renamed)
            #expect(try await store.updateApp(id: newer.id, name: nil, sessionTTLSeconds: 30).name == "Renamed")
            #expect(try await store.updateApp(id: newer.id, name: "Again", sessionTTLSeconds: nil).sessionTTLSeconds == 30)
            #expect(
                try await store.updateApp(id: newer.id, name: nil, sessionTTLSeconds: nil)
                    == AppRecord(id: newer.id, name: "Again", sessionTTLSeconds: 30, createdAt: t0))

            await #expect(throws: StoreError.notFound) {
                try await store.updateApp(id: UUID(), name: "Nobody", sessionTTLSeconds: nil)
            }
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

            #expect(
                try await store.provider(id: provider.id)
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
            #expect(
                try await store.provider(id: provider.id)?.appIDs
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
            let first = KeyRecord(
                id: UUID(), providerID: provider.id, status: .active,
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

            // A tombstone is final: deleting again is harmless, any other status is refused.
            #expect(try await store.setKeyStatus(id: first.id, to: .deleted) == tombstone)
            await #expect(throws: StoreError.tombstone) { try await store.setKeyStatus(id: first.id, to: .active) }
            await #expect(throws: StoreError.tombstone) { try await store.setKeyStatus(id: first.id, to: .disabled) }
            #expect(try await store.key(id: first.id) == tombstone)

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
            let key = KeyRecord(
                id: UUID(), providerID: provider.id, status: .active,
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
            let record = RegistrationSecretRecord(
                applicationKey: UUID(), appID: app.id,
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
            #expect(try await store.serverNonceUsed(hash: randomBytes(), expiresAt: t0 + 600) == false)
            #expect(try await store.user(appID: app.id, userID: "nobody") == nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "nobody", now: t0) == 0)
            #expect(try await store.revokeSessions(appID: app.id, userID: "nobody", now: t0) == 0)
            #expect(try await store.session(tokenHash: randomBytes()) == nil)
            try await store.revokeSession(tokenHash: randomBytes(), now: t0)
        }
    }
}

extension StoreConformance {
    /// The range is the server's to validate; the column's CHECK refuses what gets past it.
    func challengeMargin() async throws {
        try await withStore { store in
            let plain = try await store.addApp()
            #expect(try await store.app(id: plain.id)?.challengeMarginSeconds == AppRecord.defaultChallengeMarginSeconds)
            var custom = makeApp(name: "Custom")
            custom.challengeMarginSeconds = 90
            try await store.createApp(custom)
            #expect(try await store.app(id: custom.id) == custom)

            // Alone, with the other fields, and untouched by the two-field update.
            var expected = plain
            expected.challengeMarginSeconds = 5
            #expect(try await store.updateApp(id: plain.id, changes: AppChanges(challengeMarginSeconds: 5)) == expected)
            expected.name = "Both"
            expected.sessionTTLSeconds = 600
            expected.challengeMarginSeconds = 600
            #expect(
                try await store.updateApp(
                    id: plain.id, changes: AppChanges(name: "Both", sessionTTLSeconds: 600, challengeMarginSeconds: 600)) == expected)
            expected.name = "Renamed"
            #expect(try await store.updateApp(id: plain.id, name: "Renamed", sessionTTLSeconds: nil) == expected)
            #expect(try await store.updateApp(id: plain.id, changes: AppChanges()) == expected)
            #expect(try await store.apps().map(\.challengeMarginSeconds).sorted() == [90, 600])

            // Out of range: refused, nothing changed.
            for margin in [AppRecord.challengeMarginRange.lowerBound - 1, AppRecord.challengeMarginRange.upperBound + 1, 0, -30] {
                await #expect(throws: StoreError.self, "\(margin)") {
                    try await store.updateApp(id: plain.id, changes: AppChanges(name: "Lost", challengeMarginSeconds: margin))
                }
                var refused = makeApp(name: "Refused")
                refused.challengeMarginSeconds = margin
                await #expect(throws: StoreError.self, "\(margin)") { try await store.createApp(refused) }
                #expect(try await store.app(id: refused.id) == nil)
            }
            #expect(try await store.app(id: plain.id) == expected)
            await #expect(throws: StoreError.notFound) {
                try await store.updateApp(id: UUID(), changes: AppChanges(challengeMarginSeconds: 10))
            }
        }
    }
}
