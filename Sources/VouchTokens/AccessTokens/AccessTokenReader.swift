import Crypto
import Foundation
import VouchProtocol

/// Checks an access token against Vouch's own public keys: what the server does when a service
/// introspects one. Services verify with `VouchResourceServer`, which follows the same rules.
///
/// Every path does one signature check, with a key that cannot match when the token names no
/// known key, so that how long a refusal takes does not tell which rule refused it.
public struct AccessTokenReader: Sendable {
    /// The JWS `typ` of an access token (RFC 9068).
    public static let type = "at+jwt"

    public let issuer: String
    public let leewaySeconds: Int64
    let keys: [String: P256.Signing.PublicKey]
    /// Checks the signature when no known key is named: a key nobody holds the private half of.
    private let decoy = P256.Signing.PrivateKey().publicKey
    /// Stands in for a signature that does not parse: made by another throwaway key, so it
    /// verifies nothing. `nil` only if signing itself failed, when the check is skipped.
    private let decoySignature = try? P256.Signing.PrivateKey().signature(for: AccessTokenReader.decoyMessage)

    public init(issuer: String, leewaySeconds: Int64, keys: [AccessTokenSigningKey]) {
        self.issuer = issuer
        self.leewaySeconds = leewaySeconds
        self.keys = Dictionary(keys.map { ($0.keyID, $0.publicKey) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether `kid` is one of the keys this reader holds.
    public func knows(keyID: String) -> Bool { keys[keyID] != nil }

    /// The claims of a token Vouch signed that is within its lifetime at `now`, or why not.
    public func read(_ token: String, now: Int64) -> Result<AccessTokenClaims, AccessTokenRefusal> {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: token)
        } catch {
            if let decoySignature { _ = decoy.isValidSignature(decoySignature, for: Self.decoyMessage) }
            return .failure(.malformed)
        }
        let keyID = jws.header["kid"]?.stringValue
        let key = keyID.flatMap { keys[$0] }
        let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature)
        let signatureHolds = (signature ?? decoySignature).map { (key ?? decoy).isValidSignature($0, for: jws.signingInput) } ?? false
        guard jws.header["alg"]?.stringValue == AccessTokenSigningKey.algorithm,
            jws.header["typ"]?.stringValue == Self.type
        else { return .failure(.unsupportedHeader) }
        guard key != nil else { return .failure(.unknownKey) }
        guard signature != nil, signatureHolds else { return .failure(.badSignature) }
        guard let claims = AccessTokenClaims(members: jws.claims) else { return .failure(.malformed) }
        guard claims.issuer == issuer else { return .failure(.wrongIssuer) }
        guard claims.expiresAt > now - leewaySeconds else { return .failure(.expired) }
        guard claims.issuedAt <= now + leewaySeconds,
            claims.expiresAt - claims.issuedAt <= AccessTokenClaims.maximumLifetimeSeconds
        else { return .failure(.badLifetime) }
        return .success(claims)
    }

    private static let decoyMessage = [UInt8](repeating: 0, count: 32)
}

/// Why `AccessTokenReader` refused a token: for logs and tests, never for the service that asked
/// (introspection answers `{"active": false}` whatever the reason).
public enum AccessTokenRefusal: Error, Sendable, Equatable {
    case malformed
    /// `alg` other than ES256 (`none` included), or `typ` other than `at+jwt`.
    case unsupportedHeader
    case unknownKey
    case badSignature
    case wrongIssuer
    case expired
    /// Issued in the future, or living longer than `AccessTokenClaims.maximumLifetimeSeconds`.
    case badLifetime
}
