import Foundation

/// One of Vouch's own signing keys, for the access tokens it mints (PROTOCOL §8.16). Keys form a
/// chain by `sequence`: each is the successor of the one before, and a successor is added by
/// exactly one instance however many try at once (`Store.addSigningKey` refuses a taken
/// sequence), so a rotation happens once on a database shared by many instances.
///
/// The private key is a secret like a registration secret: it never leaves the store but to sign,
/// is never logged and never answered by any API.
public struct SigningKeyRecord: Sendable, Equatable {
    /// 1 for the first key, the previous key's plus one for each successor.
    public var sequence: Int64
    /// The JWS `kid`: random, never derived from the key.
    public var keyID: String
    /// The JWS `alg` the key signs with (`ES256`).
    public var algorithm: String
    /// The private key's raw representation (for ES256 the 32-byte scalar).
    public var privateKey: [UInt8]
    /// Unix seconds at which it was added, and published (in the JWKS) from then on.
    public var createdAt: Int64
    /// Unix seconds from which it signs: a successor's is far enough after `createdAt` that every
    /// cache of the JWKS holds the key before a token signed with it is seen.
    public var activatesAt: Int64

    public init(sequence: Int64, keyID: String, algorithm: String, privateKey: [UInt8], createdAt: Int64, activatesAt: Int64) {
        self.sequence = sequence
        self.keyID = keyID
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.createdAt = createdAt
        self.activatesAt = activatesAt
    }
}

/// Printing a signing key (a log line, `dump`, a failed test's expectation) never shows the
/// private key.
extension SigningKeyRecord: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "SigningKeyRecord(sequence: \(sequence), keyID: \(keyID), algorithm: \(algorithm), privateKey: <redacted>, "
            + "createdAt: \(createdAt), activatesAt: \(activatesAt))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "sequence": sequence, "keyID": keyID, "algorithm": algorithm, "privateKey": "<redacted>",
                "createdAt": createdAt, "activatesAt": activatesAt,
            ])
    }
}
