import Foundation
import VouchProtocol
import _CryptoExtras

/// Mints Layer identity tokens: what an app's backend runs after it has authenticated its user
/// its own way, to vouch for that user to the realtime service.
public struct LayerTokenMinter: Sendable {
    public let providerID: UUID
    /// The uploaded key the tokens name; nil for a key the provider publishes on its JWKS URL.
    public let keyID: UUID?
    /// The tokens' `kid`: `layer:///keys/<uuid>` for an uploaded key, the JWK's own `kid` for a
    /// published one (PROTOCOL §8.18).
    public let kid: String
    private let privateKey: _RSA.Signing.PrivateKey

    /// - Parameters:
    ///   - privateKey: the provider's RSA key, at least 2048 bits.
    ///   - providerID: the provider the token's `iss` names.
    ///   - keyID: the key the token's `kid` names, as uploaded to the server.
    public init(privateKey: _RSA.Signing.PrivateKey, providerID: UUID, keyID: UUID) throws(MintingError) {
        guard privateKey.keySizeInBits >= RS256.minimumKeySize else { throw .keyTooSmall(bits: privateKey.keySizeInBits) }
        self.privateKey = privateKey
        self.providerID = providerID
        self.keyID = keyID
        self.kid = LayerID.key(keyID)
    }

    /// A minter for a key the provider publishes on its JWKS URL rather than uploads: Vouch finds
    /// it among that provider's fetched keys by `kid`.
    ///
    /// - Parameters:
    ///   - privateKey: the published key's private half, at least 2048 bits.
    ///   - providerID: the provider the token's `iss` names.
    ///   - publishedKeyID: the JWK's `kid`, 1…256 bytes without control characters, not starting
    ///     with `layer:///keys/` (that form names an uploaded key).
    public init(privateKey: _RSA.Signing.PrivateKey, providerID: UUID, publishedKeyID: String) throws(MintingError) {
        guard privateKey.keySizeInBits >= RS256.minimumKeySize else { throw .keyTooSmall(bits: privateKey.keySizeInBits) }
        guard (1...SourceKeyID.maximumBytes).contains(publishedKeyID.utf8.count), !ControlCharacters.present(in: publishedKeyID),
            !publishedKeyID.hasPrefix("layer:///keys/")
        else { throw .invalidClaim("kid") }
        self.privateKey = privateKey
        self.providerID = providerID
        self.keyID = nil
        self.kid = publishedKeyID
    }

    /// - Parameters:
    ///   - privateKeyPEM: PKCS#1 or PKCS#8 PEM.
    ///   - providerID: the provider the token's `iss` names.
    ///   - keyID: the key the token's `kid` names, as uploaded to the server.
    public init(privateKeyPEM: String, providerID: UUID, keyID: UUID) throws(MintingError) {
        try self.init(privateKey: RSAKeyPair.privateKey(pem: privateKeyPEM), providerID: providerID, keyID: keyID)
    }

    /// A token for `userID`, bound to the server-issued `nonce`.
    ///
    /// - Parameters:
    ///   - userID: the user the backend vouches for (`prn`).
    ///   - nonce: the nonce the client got from `POST /nonces` (`nce`).
    ///   - issuedAt: Unix seconds; the current time by default.
    ///   - ttl: seconds until `exp`; short by design (the token is exchanged at once), 60…86400.
    ///   - identity: the optional display name, names and avatar the server keeps for the user.
    public func mint(
        userID: String, nonce: String, issuedAt: Int64 = Int64(Date().timeIntervalSince1970),
        ttl: Int64 = 120, identity: IdentityClaims = IdentityClaims()
    ) throws -> String {
        guard (1...LayerPolicy.maximumUserIDBytes).contains(userID.utf8.count), !ControlCharacters.present(in: userID) else {
            throw MintingError.invalidUserID("1…255 bytes of UTF-8 without control characters")
        }
        guard (1...LayerPolicy.maximumNonceBytes).contains(nonce.utf8.count), !ControlCharacters.present(in: nonce) else {
            throw MintingError.invalidNonce
        }
        guard (60...86_400).contains(ttl) else { throw MintingError.invalidTTL(ttl) }
        guard (0...(ClaimRules.latestTime - ttl)).contains(issuedAt) else { throw MintingError.invalidIssueTime(issuedAt) }

        let header: [String: JSONValue] = [
            "typ": "JWT", "alg": "RS256", "cty": .string(LayerPolicy.contentType), "kid": .string(kid),
        ]
        var claims: [String: JSONValue] = [
            "iss": .string(LayerID.provider(providerID)),
            "prn": .string(userID),
            "iat": .number(JSONNumber(issuedAt)),
            "exp": .number(JSONNumber(issuedAt + ttl)),
            "nce": .string(nonce),
        ]
        let optional: [(String, String?, Int)] = [
            ("display_name", identity.displayName, LayerPolicy.maximumNameBytes),
            ("first_name", identity.firstName, LayerPolicy.maximumNameBytes),
            ("last_name", identity.lastName, LayerPolicy.maximumNameBytes),
            ("avatar_url", identity.avatarURL, LayerPolicy.maximumAvatarURLBytes),
        ]
        for (name, value, limit) in optional {
            guard let value else { continue }
            guard value.utf8.count <= limit, !ControlCharacters.present(in: value) else { throw MintingError.invalidClaim(name) }
            claims[name] = .string(value)
        }
        let signingInput = JWSSigningInput.make(header: header, claims: claims)
        let signature = try RS256.sign(signingInput, privateKey: privateKey)
        return String(decoding: signingInput, as: UTF8.self) + "." + Base64URL.encode(signature)
    }
}
