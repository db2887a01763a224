import Foundation
import Testing
import VouchStore

// MARK: - Service credentials

extension StoreConformance {
    static let serviceCredentialChecks: [Check] = [
        Check(name: "service credentials: create, list oldest first per app, find by hash, revoke once") {
            try await $0.serviceCredentialsLifecycle()
        },
        Check(name: "service credentials: unknown app not found, id or hash in use refused, another app's not revoked") {
            try await $0.serviceCredentialRefusals()
        },
    ]

    func serviceCredentialsLifecycle() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            let older = makeServiceCredential(app: app.id, name: "chat server", createdAt: t0 - 10)
            // Made in the same second: ordered by id.
            let tied = [makeServiceCredential(app: app.id, name: "media relay"), makeServiceCredential(app: app.id, name: "push")]
                .sorted { $0.id.uuidString < $1.id.uuidString }
            let others = makeServiceCredential(app: other.id, name: "other's")
            for credential in [tied[1], others, older, tied[0]] { try await store.createServiceCredential(credential) }

            #expect(try await store.serviceCredentials(appID: app.id) == [older] + tied)
            #expect(try await store.serviceCredentials(appID: other.id) == [others])
            #expect(try await store.serviceCredentials(appID: UUID()) == [])
            #expect(try await store.serviceCredential(hash: older.credentialHash) == older)
            #expect(try await store.serviceCredential(hash: others.credentialHash) == others)
            #expect(try await store.serviceCredential(hash: randomBytes()) == nil)

            // The first revocation's time is kept; revoking again returns it as it is.
            var revoked = older
            revoked.revokedAt = t0 + 100
            #expect(try await store.revokeServiceCredential(id: older.id, appID: app.id, now: t0 + 100) == revoked)
            #expect(try await store.revokeServiceCredential(id: older.id, appID: app.id, now: t0 + 200) == revoked)
            #expect(try await store.revokeServiceCredential(id: older.id, appID: app.id, now: t0 + 50) == revoked)
            #expect(try await store.serviceCredential(hash: older.credentialHash) == revoked)
            #expect(try await store.serviceCredential(hash: older.credentialHash)?.isRevoked == true)
            #expect(try await store.serviceCredentials(appID: app.id) == [revoked] + tied)
            #expect(try await store.serviceCredentials(appID: other.id) == [others], "another app's are untouched")
        }
    }

    func serviceCredentialRefusals() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            let credential = makeServiceCredential(app: app.id)
            try await store.createServiceCredential(credential)

            let orphan = makeServiceCredential(app: UUID())
            await #expect(throws: StoreError.notFound) { try await store.createServiceCredential(orphan) }
            #expect(try await store.serviceCredential(hash: orphan.credentialHash) == nil)

            // A hash in use, under another app too; an id in use with a new hash.
            var sameHash = makeServiceCredential(app: other.id, name: "copy")
            sameHash.credentialHash = credential.credentialHash
            await #expect(throws: StoreError.alreadyExists) { try await store.createServiceCredential(sameHash) }
            var sameID = makeServiceCredential(app: app.id, name: "copy")
            sameID.id = credential.id
            await #expect(throws: StoreError.alreadyExists) { try await store.createServiceCredential(sameID) }
            #expect(try await store.serviceCredential(hash: credential.credentialHash) == credential)
            #expect(try await store.serviceCredential(hash: sameID.credentialHash) == nil)
            #expect(try await store.serviceCredentials(appID: app.id) == [credential])
            #expect(try await store.serviceCredentials(appID: other.id) == [])

            // Revoked only through its own app: another app's id, or an unknown id, is not found.
            await #expect(throws: StoreError.notFound) {
                try await store.revokeServiceCredential(id: credential.id, appID: other.id, now: t0 + 10)
            }
            await #expect(throws: StoreError.notFound) { try await store.revokeServiceCredential(id: UUID(), appID: app.id, now: t0 + 10) }
            #expect(try await store.serviceCredential(hash: credential.credentialHash)?.revokedAt == nil)
        }
    }
}
