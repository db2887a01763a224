import Crypto
import Foundation
import _CryptoExtras

/// A public key an operator uploads, checked before it is stored.
///
/// The rules are those of keys a Layer backend actually makes (`openssl genrsa`, Layer's own
/// dashboard): RSA with e = 65537 and a 2048…8192-bit modulus, as one PEM block and nothing else.
/// Anything looser is refused because it is either weak (e = 3, 1024 bits), an expensive
/// verification an attacker could make every request pay for (a 16384-bit modulus), or a sign
/// that the wrong file was pasted (text around the block, a certificate, a private key).
public struct PublicKeyInfo: Sendable {
    /// Why a key was refused. A struct with a `kind`, so that a rule added later breaks no caller.
    public struct Failure: Error, Equatable, Sendable {
        public struct Kind: Hashable, Sendable {
            fileprivate let name: String

            /// Not an RSA public key in PEM: garbage, a private key, a certificate, another
            /// algorithm, or a modulus so large that BoringSSL will not even parse it (over 8192 bits).
            public static let notAPublicKey = Kind(name: "notAPublicKey")
            /// Something besides whitespace before or after the PEM block, or several blocks.
            public static let textAroundPEM = Kind(name: "textAroundPEM")
            /// Fewer bits than `minimumBits` (`bits`).
            public static let tooSmall = Kind(name: "tooSmall")
            /// More bits than `maximumBits` (`bits`).
            public static let tooLarge = Kind(name: "tooLarge")
            /// A public exponent other than 65537.
            public static let unsupportedExponent = Kind(name: "unsupportedExponent")
        }

        public let kind: Kind
        /// `.tooSmall`, `.tooLarge`: the key's size.
        public let bits: Int?

        public static let notAPublicKey = Failure(kind: .notAPublicKey, bits: nil)
        public static let textAroundPEM = Failure(kind: .textAroundPEM, bits: nil)
        public static func tooSmall(bits: Int) -> Failure { Failure(kind: .tooSmall, bits: bits) }
        public static func tooLarge(bits: Int) -> Failure { Failure(kind: .tooLarge, bits: bits) }
        public static let unsupportedExponent = Failure(kind: .unsupportedExponent, bits: nil)

        /// Lets `catch Failure.x` match any error equal to `x`.
        public static func ~= (pattern: Self, error: any Error) -> Bool { (error as? Self) == pattern }

        /// What the operator should do, for the 422's message.
        public var message: String {
            switch kind {
            case .notAPublicKey:
                "`public_key` must be an RSA public key of \(PublicKeyInfo.minimumBits) to \(PublicKeyInfo.maximumBits) bits "
                    + "in PEM (BEGIN PUBLIC KEY or BEGIN RSA PUBLIC KEY)."
            case .textAroundPEM:
                "`public_key` must be exactly one PEM block, with nothing before or after it."
            case .tooSmall:
                "The RSA key has \(bits ?? 0) bits; at least \(PublicKeyInfo.minimumBits) are required."
            case .tooLarge:
                "The RSA key has \(bits ?? 0) bits; at most \(PublicKeyInfo.maximumBits) are accepted."
            default:
                "The RSA key's public exponent must be 65537 (the default of openssl and every key generator)."
            }
        }
    }

    static let minimumBits = RS256.minimumKeySize
    static let maximumBits = 8192

    public let key: _RSA.Signing.PublicKey
    /// SubjectPublicKeyInfo PEM, normalised whatever spelling was uploaded.
    public let pem: String
    public let fingerprint: String

    public init(pem text: String) throws(Failure) {
        try Self.checkSingleBlock(text)
        let key: _RSA.Signing.PublicKey
        do {
            key = try _RSA.Signing.PublicKey(unsafePEMRepresentation: text)
        } catch {
            throw .notAPublicKey
        }
        guard key.keySizeInBits >= Self.minimumBits else { throw .tooSmall(bits: key.keySizeInBits) }
        // BoringSSL refuses to parse larger moduli today; the rule stays here, where it is stated.
        guard key.keySizeInBits <= Self.maximumBits else { throw .tooLarge(bits: key.keySizeInBits) }
        guard let primitives = try? key.getKeyPrimitives(), Self.isF4(primitives.publicExponent) else {
            throw .unsupportedExponent
        }
        self.key = key
        self.pem = key.pemRepresentation
        self.fingerprint = Self.fingerprint(of: key)
    }

    /// `sha256:` + lower-case hex of the SHA-256 of the SubjectPublicKeyInfo DER: the same
    /// key always has the same fingerprint, however its PEM was wrapped.
    public static func fingerprint(of key: _RSA.Signing.PublicKey) -> String {
        "sha256:" + SHA256.hash(data: key.derRepresentation).map { String(format: "%02x", $0) }.joined()
    }

    /// One `-----BEGIN (RSA )PUBLIC KEY-----` … matching `END` block, whitespace around it only.
    /// Without a complete public-key block the text is simply not a public key.
    private static func checkSingleBlock(_ text: String) throws(Failure) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for label in ["PUBLIC KEY", "RSA PUBLIC KEY"] {
            guard let begin = trimmed.range(of: "-----BEGIN \(label)-----"),
                let end = trimmed.range(of: "-----END \(label)-----", range: begin.upperBound..<trimmed.endIndex)
            else {
                continue
            }
            let onlyBlock =
                begin.lowerBound == trimmed.startIndex && end.upperBound == trimmed.endIndex
                && trimmed.components(separatedBy: "-----BEGIN ").count == 2
            guard onlyBlock else { throw .textAroundPEM }
            return
        }
        throw .notAPublicKey
    }

    /// 65537 as big-endian bytes, leading zeros allowed.
    private static func isF4(_ exponent: Data) -> Bool {
        Array(exponent.drop { $0 == 0 }) == [0x01, 0x00, 0x01]
    }
}
