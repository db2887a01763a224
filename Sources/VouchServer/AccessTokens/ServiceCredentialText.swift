import Crypto
import VouchTokens

/// A service credential's text: `vsc_` and 32 random bytes in base64url. The prefix lets a
/// secret scanner recognise one, and a service mistaking one token kind for another fail at once.
enum ServiceCredentialText {
    static let prefix = "vsc_"
    /// `prefix` + 43 characters.
    static let length = 4 + 43

    static func make() -> String { prefix + Base64URL.encode(SecureRandom.bytes(32)) }

    /// What the store keeps.
    static func hash(_ credential: String) -> [UInt8] { Array(SHA256.hash(data: Array(credential.utf8))) }

    /// Whether `text` has a credential's shape (checked before any store access).
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == length && text.hasPrefix(prefix)
    }
}
