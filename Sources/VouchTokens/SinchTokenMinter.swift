import Foundation
import VouchProtocol

/// Mints Sinch registration tokens from an app's registration secret, byte for byte as Sinch's
/// reference implementation does (compact JSON, sorted members, no `typ`).
public struct SinchTokenMinter: Sendable {
    public let applicationKey: UUID
    private let secret: [UInt8]

    /// - Parameters:
    ///   - applicationKey: the UUID the admin API issued with the secret.
    ///   - applicationSecret: its base64 secret, as issued.
    public init(applicationKey: String, applicationSecret: String) throws(MintingError) {
        guard let key = LayerID.parseUUID(applicationKey) else { throw .invalidClaim("application key (a UUID)") }
        guard let secret = SinchSigningKey.decodeSecret(applicationSecret), secret.count >= 16 else {
            throw .invalidApplicationSecret
        }
        self.applicationKey = key
        self.secret = secret
    }

    /// A token for `userID`; the nonce is made here (Sinch nonces are client-made) unless given.
    ///
    /// - Parameters:
    ///   - userID: the user the backend vouches for, inside `sub`.
    ///   - nonce: the client-made nonce; a fresh UUID by default.
    ///   - issuedAt: Unix seconds; the `kid` date is its UTC day.
    ///   - ttl: seconds until `exp`, 60…86400 (the server refuses under 60).
    ///   - instanceExpiry: optional `sinch:rtc:instance:exp`.
    public func mint(
        userID: String, nonce: String = UUID().uuidString.lowercased(),
        issuedAt: Int64 = Int64(Date().timeIntervalSince1970), ttl: Int64 = 600,
        instanceExpiry: Int64? = nil
    ) throws -> String {
        guard SinchPolicy.isValidUserID(userID) else {
            throw MintingError.invalidUserID("1…255 characters of A–Z a–z 0–9 _ = -")
        }
        guard (1...SinchPolicy.maximumNonceBytes).contains(nonce.utf8.count),
            !ControlCharacters.present(in: nonce)
        else { throw MintingError.invalidNonce }
        guard (SinchPolicy.minimumTTL...86_400).contains(ttl) else { throw MintingError.invalidTTL(ttl) }
        guard (0...(ClaimRules.latestTime - ttl)).contains(issuedAt) else { throw MintingError.invalidIssueTime(issuedAt) }

        let date = CivilDate(unixSeconds: issuedAt)
        let issuer = SinchPolicy.issuerPrefix + applicationKey.lowercased
        let header: [String: JSONValue] = ["alg": "HS256", "kid": .string(SinchSigningKey.kid(for: date))]
        var claims: [String: JSONValue] = [
            "iss": .string(issuer),
            "sub": .string(issuer + "/users/" + userID),
            "iat": .number(JSONNumber(issuedAt)),
            "exp": .number(JSONNumber(issuedAt + ttl)),
            "nonce": .string(nonce),
        ]
        if let instanceExpiry { claims["sinch:rtc:instance:exp"] = .number(JSONNumber(instanceExpiry)) }
        let signingInput = JWSSigningInput.make(header: header, claims: claims)
        let tag = HS256.sign(signingInput, key: SinchSigningKey.derive(secret: secret, date: date))
        return String(decoding: signingInput, as: UTF8.self) + "." + Base64URL.encode(tag)
    }
}
