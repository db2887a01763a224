import Foundation

/// The claim rules of the contract (issue 42, "Access tokens"), applied to a payload whose
/// signature holds: pinned issuer and audience, a lifetime of at most 300 seconds, every member
/// Vouch always writes present and of its type.
struct AccessTokenClaims {
    /// Vouch never mints a longer token; a longer one was not minted by Vouch's rules.
    static let maximumLifetime: Int64 = 300

    let issuer: String
    let audience: String
    let leeway: Double

    func verify(_ payload: [UInt8], now: Double) throws(AccessTokenRejection) -> VerifiedAccessToken {
        guard let claims = try? StrictJSON().parseObject(payload) else { throw .malformed("claims are not a JSON object") }
        guard let issuer = claims["iss"]?.string else { throw .malformed("no iss") }
        guard issuer == self.issuer else { throw .wrongIssuer }
        switch claims["aud"] {
        case .string(let audience)?:
            guard audience == self.audience else { throw .wrongAudience }
        case .array(let audiences)?:
            guard audiences.contains(.string(audience)) else { throw .wrongAudience }
        default: throw .malformed("no aud")
        }
        guard let expiresAt = claims["exp"]?.integer, let issuedAt = claims["iat"]?.integer else {
            throw .malformed("exp or iat missing or not an integer")
        }
        guard Double(expiresAt) > now - leeway else { throw .expired }
        guard Double(issuedAt) <= now + leeway else { throw .notYetValid }
        guard expiresAt > issuedAt else { throw .malformed("exp is not after iat") }
        guard expiresAt - issuedAt <= Self.maximumLifetime else { throw .lifetimeTooLong }
        guard let userID = claims["sub"]?.string, !userID.isEmpty else { throw .malformed("no sub") }
        guard let appID = claims["app"]?.string.flatMap(UUID.init(uuidString:)) else { throw .malformed("no app") }
        guard let sessionID = claims["sid"]?.string.flatMap(UUID.init(uuidString:)) else { throw .malformed("no sid") }
        guard let tokenID = claims["jti"]?.string, !tokenID.isEmpty else { throw .malformed("no jti") }
        let generations = try Self.generations(claims["gen"])
        let providerID = try Self.optionalUUID(claims["provider_id"], name: "provider_id")
        let keyID = try Self.optionalUUID(claims["key_id"], name: "key_id")
        // A provider or key id without its generation (or the reverse) could not be held to that
        // scope's cutoffs: Vouch writes both or neither.
        guard (providerID == nil) == (generations.provider == nil), (keyID == nil) == (generations.key == nil) else {
            throw .malformed("provider_id/key_id and gen disagree")
        }
        return VerifiedAccessToken(
            userID: userID, appID: appID, sessionID: sessionID, audience: audience,
            issuedAt: Date(timeIntervalSince1970: Double(issuedAt)), expiresAt: Date(timeIntervalSince1970: Double(expiresAt)),
            tokenID: tokenID, generations: generations, providerID: providerID, keyID: keyID)
    }

    private static func generations(_ value: JSONValue?) throws(AccessTokenRejection) -> AccessTokenGenerations {
        guard let members = value?.object, let app = members["app"]?.integer, let user = members["user"]?.integer else {
            throw .malformed("gen is not an object with integer app and user")
        }
        func optional(_ name: String) throws(AccessTokenRejection) -> Int64? {
            guard let member = members[name] else { return nil }
            guard let generation = member.integer else { throw .malformed("gen member is not an integer") }
            return generation
        }
        return AccessTokenGenerations(app: app, user: user, provider: try optional("provider"), key: try optional("key"))
    }

    private static func optionalUUID(_ value: JSONValue?, name: String) throws(AccessTokenRejection) -> UUID? {
        guard let value else { return nil }
        guard let id = value.string.flatMap(UUID.init(uuidString:)) else { throw .malformed("\(name) is not a UUID") }
        return id
    }
}
