import Crypto
import Foundation
import VouchProtocol
import VouchTokens
import _CryptoExtras
import VouchTestSupport

/// A populated server: one app with a bound provider and keys in every state, a provider that is
/// not bound, a second app, and registration secrets for both apps — all made through the admin
/// API, as an operator would.
struct Fixture: Sendable {
    let server: LiveServer
    let appID: String
    let otherAppID: String
    let providerID: String
    let unboundProviderID: String
    let activeKey: SigningKey
    let disabledKey: SigningKey
    let deletedKey: SigningKey
    let unboundKey: SigningKey
    let registration: (key: String, secret: String)
    let otherRegistration: (key: String, secret: String)

    struct SigningKey: Sendable {
        let id: String
        let privateKey: _RSA.Signing.PrivateKey
    }

    static func make(_ server: LiveServer) async throws -> Fixture {
        let app = try await server.post("/admin/apps", ["name": "Chat"], admin: true).json["id"] as? String ?? ""
        let otherApp = try await server.post("/admin/apps", ["name": "Other"], admin: true).json["id"] as? String ?? ""
        let provider = try await server.post("/admin/providers", ["name": "Backend"], admin: true).json["id"] as? String ?? ""
        let unbound = try await server.post("/admin/providers", ["name": "Stranger"], admin: true).json["id"] as? String ?? ""
        let bind = try await server.request(.PUT, "/admin/providers/\(bare(provider))/apps/\(bare(app))", admin: true)
        guard bind.status == 204 else { throw TestFailure("bind answered \(bind.status)") }

        let active = try await generateKey(server, provider: provider)
        let disabled = try await generateKey(server, provider: provider)
        let deleted = try await generateKey(server, provider: provider)
        let stranger = try await generateKey(server, provider: unbound)
        _ = try await server.request(.PATCH, "/admin/keys/\(bare(disabled.id))", body: #"{"status":"disabled"}"#, admin: true)
        _ = try await server.request(.DELETE, "/admin/keys/\(bare(deleted.id))", admin: true)

        let secret = try await server.request(.POST, "/admin/apps/\(bare(app))/registration-secrets", admin: true).json
        let otherSecret = try await server.request(.POST, "/admin/apps/\(bare(otherApp))/registration-secrets", admin: true).json
        return Fixture(
            server: server, appID: app, otherAppID: otherApp, providerID: provider, unboundProviderID: unbound,
            activeKey: active, disabledKey: disabled, deletedKey: deleted, unboundKey: stranger,
            registration: (secret["application_key"] as? String ?? "", secret["application_secret"] as? String ?? ""),
            otherRegistration: (otherSecret["application_key"] as? String ?? "", otherSecret["application_secret"] as? String ?? ""))
    }

    static func generateKey(_ server: LiveServer, provider: String) async throws -> SigningKey {
        let answer = try await server.post("/admin/providers/\(bare(provider))/keys", ["generate": true], admin: true)
        guard answer.status == 201, let id = answer.json["id"] as? String, let pem = answer.json["private_key"] as? String else {
            throw TestFailure("key generation answered \(answer.status): \(answer.text)")
        }
        return SigningKey(id: id, privateKey: try _RSA.Signing.PrivateKey(pemRepresentation: pem))
    }

    /// The UUID at the end of a `layer:///…/<uuid>` id.
    static func bare(_ id: String) -> String { String(id.split(separator: "/").last ?? "") }

    // MARK: Tokens

    /// Standard Layer claims for `user` with `nonce`, valid now.
    func layerClaims(user: String = "alice", nonce: String, now: Int64) -> [String: Any] {
        ["iss": providerID, "prn": user, "iat": now, "exp": now + 120, "nce": nonce]
    }

    func layerHeader(kid: String? = nil) -> [String: Any] {
        ["typ": "JWT", "alg": "RS256", "cty": "layer-eit;v=1", "kid": kid ?? activeKey.id]
    }

    /// A token signed with `key` over exactly these header and claims.
    func layerToken(header: [String: Any]? = nil, claims: [String: Any], signedWith key: _RSA.Signing.PrivateKey? = nil) throws -> String {
        try Self.sign(
            headerJSON: Self.json(header ?? layerHeader()), claimsJSON: Self.json(claims),
            with: key ?? activeKey.privateKey)
    }

    static func sign(headerJSON: String, claimsJSON: String, with key: _RSA.Signing.PrivateKey) throws -> String {
        let input = Base64URL.encode(Array(headerJSON.utf8)) + "." + Base64URL.encode(Array(claimsJSON.utf8))
        return input + "." + Base64URL.encode(try RS256.sign(Array(input.utf8), privateKey: key))
    }

    /// A Sinch registration token over these claims, keyed for `date` with this app's secret.
    func sinchToken(claims: [String: Any], secret: String? = nil, kid: String? = nil, issuedAt: Int64) throws -> String {
        let date = CivilDate(unixSeconds: issuedAt)
        let header = ["alg": "HS256", "kid": kid ?? SinchSigningKey.kid(for: date)]
        let input = Base64URL.encode(Array(Self.json(header).utf8)) + "." + Base64URL.encode(Array(Self.json(claims).utf8))
        let key = SinchSigningKey.derive(secret: SinchSigningKey.decodeSecret(secret ?? registration.secret) ?? [], date: date)
        return input + "." + Base64URL.encode(HS256.sign(Array(input.utf8), key: key))
    }

    func sinchClaims(
        user: String = "bob", nonce: String = UUID().uuidString, now: Int64, ttl: Int64 = 600,
        applicationKey: String? = nil
    ) -> [String: Any] {
        let issuer = "//rtc.sinch.com/applications/" + (applicationKey ?? registration.key)
        return ["iss": issuer, "sub": issuer + "/users/" + user, "iat": now, "exp": now + ttl, "nonce": nonce]
    }

    static func json(_ object: Any) -> String {
        String(
            decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data(),
            as: UTF8.self)
    }

    /// `POST /sessions` with this token for `app` (the fixture's app by default).
    func signIn(_ token: String, app: String? = nil) async throws -> HTTPResult {
        try await server.post("/sessions", ["identity_token": token, "app_id": app ?? appID])
    }

    /// A complete Layer sign-in; returns the session token.
    func signedInSession(user: String = "alice") async throws -> String {
        let token = try layerToken(claims: layerClaims(user: user, nonce: try await server.nonce(), now: server.clock.now))
        let answer = try await signIn(token)
        guard answer.status == 201, let session = answer.json["session_token"] as? String else {
            throw TestFailure("sign-in answered \(answer.status): \(answer.text)")
        }
        return session
    }

    /// A Layer sign-in of `user` that describes its device; returns the session's public id and token.
    func signedInDevice(_ device: [String: String], user: String = "alice") async throws -> (id: String, token: String) {
        let token = try layerToken(claims: layerClaims(user: user, nonce: try await server.nonce(), now: server.clock.now))
        let answer = try await server.post("/sessions", ["identity_token": token, "app_id": appID, "device": device])
        guard answer.status == 201, let session = answer.json["session_token"] as? String, let id = answer.json["session_id"] as? String else {
            throw TestFailure("sign-in answered \(answer.status): \(answer.text)")
        }
        return (id, session)
    }
}
