import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Fixtures shared by the checks and by backend-specific tests

/// An arbitrary fixed "now", so that every expectation is a concrete number.
public let t0: Int64 = 1_800_000_000

public func randomBytes(_ count: Int = 32) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255) }
}

public func makeApp(name: String = "App", ttl: Int64 = 3600, createdAt: Int64 = t0) -> AppRecord {
    AppRecord(id: UUID(), name: name, sessionTTLSeconds: ttl, createdAt: createdAt)
}

public func newSession(
    app: UUID, user: String, token: [UInt8] = randomBytes(), profile: IdentityProfile = IdentityProfile(),
    createdAt: Int64 = t0, expiresAt: Int64 = t0 + 3600,
    nonce: NonceClaim = .serverNonce(hash: randomBytes(), expiresAt: t0 + 600), keyID: UUID? = nil,
    providerID: UUID? = nil, device: DeviceDescription? = nil
) -> NewSession {
    NewSession(
        tokenHash: token, appID: app, userID: user, profile: profile,
        createdAt: createdAt, expiresAt: expiresAt, nonce: nonce, keyID: keyID, providerID: providerID,
        device: device)
}

extension Store {
    /// The app's events, read again until at least `count` are shown or 20 s have passed.
    /// PostgreSQL shows an event once every transaction older than its own has ended, in the
    /// whole cluster: a read right after a commit can miss it while another check's transaction
    /// runs.
    public func settledSecurityEvents(appID: UUID, count: Int) async throws -> [SecurityEventRecord] {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let events = try await securityEvents(appID: appID, after: .start, kinds: nil, limit: 1_000).map(\.event)
            if events.count >= count || ContinuousClock.now > deadline { return events }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Creates an app and returns it, for checks that only need one to exist.
    public func addApp(_ app: AppRecord = makeApp()) async throws -> AppRecord {
        try await createApp(app)
        return app
    }

    public func addProvider(apps: [UUID] = []) async throws -> ProviderRecord {
        let provider = ProviderRecord(id: UUID(), name: "Provider", appIDs: apps, createdAt: t0)
        try await createProvider(provider)
        return provider
    }
}

/// A signing key with a random key id and private key, activating an hour after it is added.
public func makeSigningKey(sequence: Int64, createdAt: Int64 = t0) -> SigningKeyRecord {
    SigningKeyRecord(
        sequence: sequence, keyID: "kid-\(UUID().uuidString.lowercased())", algorithm: "ES256", privateKey: randomBytes(32),
        createdAt: createdAt, activatesAt: createdAt + 3600)
}

/// A working service credential of `app`, with a random id and hash.
public func makeServiceCredential(app: UUID, name: String = "chat server", createdAt: Int64 = t0) -> ServiceCredentialRecord {
    ServiceCredentialRecord(id: UUID(), appID: app, name: name, credentialHash: randomBytes(), createdAt: createdAt)
}

public func makeWebhookEndpoint(
    app: UUID, url: String = "https://hooks.example/vouch", events: [String] = ["session.ended", "user.suspended"],
    createdAt: Int64 = t0
) -> WebhookEndpointRecord {
    WebhookEndpointRecord(
        id: UUID(), appID: app, url: url, events: events, secret: "whsec_" + randomBytes(24).map { String($0, radix: 16) }.joined(), createdAt: createdAt)
}
