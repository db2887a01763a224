import VouchTokens

/// A webhook endpoint's signing secret: `whsec_` and 32 random bytes in base64url. The prefix lets
/// a secret scanner recognise one; the whole text, as shown, is the HMAC key (`WebhookSignature`).
enum WebhookSecretText {
    static let prefix = "whsec_"

    static func make() -> String { prefix + Base64URL.encode(SecureRandom.bytes(32)) }
}
