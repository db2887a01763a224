import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - The sign-in's one read

extension StoreConformance {
    func signInFacts() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            let bound = try await store.addProvider(apps: [app.id])
            let unbound = try await store.addProvider(apps: [other.id])
            let usedHash = randomBytes()
            _ = try await store.createSession(newSession(app: app.id, user: "ada", nonce: .serverNonce(hash: usedHash, expiresAt: t0 + 600)))
            _ = try await store.createSession(
                newSession(
                    app: other.id, user: "bob", nonce: .registrationNonce(appID: other.id, nonce: "seen", expiresAt: t0 + 300)))
            _ = try await store.setSuspended(appID: app.id, userID: "mallory", suspended: true, now: t0)

            // Nothing asked, nothing answered.
            #expect(try await store.signInFacts(SignInFactsQuery(appID: app.id, now: t0)) == SignInFacts())

            // Each question alone, against what the one-question reads say.
            func ask(_ query: SignInFactsQuery) async throws -> SignInFacts { try await store.signInFacts(query) }
            #expect(try await ask(.init(appID: app.id, providerID: bound.id, now: t0)).providerBinding == .bound)
            #expect(try await ask(.init(appID: app.id, providerID: unbound.id, now: t0)).providerBinding == .notBound)
            #expect(try await ask(.init(appID: app.id, providerID: UUID(), now: t0)).providerBinding == .unknownProvider)
            #expect(try await ask(.init(appID: app.id, serverNonce: .init(hash: usedHash, expiresAt: t0 + 600), now: t0)).serverNonceUsed == true)
            #expect(try await ask(.init(appID: app.id, serverNonce: .init(hash: randomBytes(), expiresAt: t0 + 600), now: t0)).serverNonceUsed == false)
            #expect(try await ask(.init(appID: other.id, registrationNonce: "seen", now: t0 + 301)).registrationNonceSeen == false)
            // A registration nonce is asked about for the sign-in's app.
            #expect(try await ask(.init(appID: app.id, registrationNonce: "seen", now: t0)).registrationNonceSeen == false)
            #expect(try await ask(.init(appID: other.id, registrationNonce: "seen", now: t0)).registrationNonceSeen == true)
            #expect(try await ask(.init(appID: app.id, userID: "mallory", now: t0)).userSuspended == true)
            #expect(try await ask(.init(appID: app.id, userID: "ada", now: t0)).userSuspended == false)
            #expect(try await ask(.init(appID: app.id, userID: "nobody-yet", now: t0)).userSuspended == false)
            #expect(try await ask(.init(appID: other.id, userID: "mallory", now: t0)).userSuspended == false)

            // Everything at once answers exactly what was asked.
            _ = try await store.createSession(
                newSession(
                    app: app.id, user: "cy", nonce: .registrationNonce(appID: app.id, nonce: "seen-here", expiresAt: t0 + 300)))
            let all = try await ask(
                .init(
                    appID: app.id, providerID: unbound.id, serverNonce: .init(hash: usedHash, expiresAt: t0 + 600),
                    registrationNonce: "seen-here", userID: "mallory", now: t0))
            #expect(all == SignInFacts(providerBinding: .notBound, serverNonceUsed: true, registrationNonceSeen: true, userSuspended: true))
            let partial = try await ask(.init(appID: app.id, providerID: bound.id, userID: "ada", now: t0))
            #expect(partial == SignInFacts(providerBinding: .bound, userSuspended: false))

            // The app and the key, read with the rest when asked for, as `app(id:)` and `key(id:)` read them.
            let key = KeyRecord(
                id: UUID(), providerID: bound.id, status: .active, publicKeyPEM: "pem",
                fingerprint: "sha256:" + String(repeating: "ab", count: 32), createdAt: t0)
            try await store.createKey(key)
            let storedKey = try #require(try await store.key(id: key.id))
            let storedApp = try #require(try await store.app(id: app.id))
            let withRecords = try await ask(
                .init(
                    appID: app.id, providerID: bound.id, userID: "ada", now: t0,
                    includesApp: true, keyID: key.id))
            #expect(withRecords == SignInFacts(providerBinding: .bound, userSuspended: false, app: storedApp, key: storedKey))
            #expect(try await ask(.init(appID: app.id, now: t0, includesApp: true)) == SignInFacts(app: storedApp))
            #expect(try await ask(.init(appID: UUID(), now: t0, includesApp: true, keyID: UUID())) == SignInFacts())

            let secret = RegistrationSecretRecord(applicationKey: UUID(), appID: app.id, secret: randomBytes(), createdAt: t0)
            try await store.createRegistrationSecret(secret)
            let storedSecret = try #require(try await store.registrationSecret(applicationKey: secret.applicationKey))
            #expect(
                try await ask(
                    .init(
                        appID: app.id, registrationNonce: "seen", userID: "ada", now: t0,
                        applicationKey: secret.applicationKey))
                    == SignInFacts(registrationNonceSeen: false, userSuspended: false, registrationSecret: storedSecret))
            #expect(try await ask(.init(appID: app.id, now: t0, applicationKey: UUID())) == SignInFacts())
        }
    }
}
