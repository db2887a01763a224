import Crypto
import Foundation
import VouchSupport

/// The Sinch profile's daily signing key: HMAC-SHA256(key: application secret, message: "YYYYMMDD").
///
/// Deriving a key per day means a leaked daily key is worth at most three days (the verifier's
/// window), while the application secret itself never leaves the app's backend and the server.
public enum SinchSigningKey {
    /// The `kid` prefix that names this derivation.
    static let kidPrefix = "hkdfv1-"

    public static func derive(secret: [UInt8], date: CivilDate) -> SymmetricKey {
        let code = HMAC<SHA256>.authenticationCode(for: Array(date.compact.utf8), using: SymmetricKey(data: secret))
        return SymmetricKey(data: Array(code))
    }

    /// The `kid` of a date: `hkdfv1-YYYYMMDD`.
    public static func kid(for date: CivilDate) -> String { kidPrefix + date.compact }

    /// The date a `kid` names, or `nil` when it is not `hkdfv1-` followed by a real date.
    public static func date(fromKID kid: String) -> CivilDate? {
        guard kid.bytesHavePrefix(kidPrefix) else { return nil }
        // Read in place after the (ASCII) prefix: no string is made of the date.
        let prefixCount = kidPrefix.utf8.count
        return kid.utf8.withContiguousStorageIfAvailable { CivilDate(compactUTF8: UnsafeBufferPointer(rebasing: $0[prefixCount...])) }
            ?? CivilDate(compact: Substring(kid.utf8.dropFirst(prefixCount)))
    }

    /// Decodes an application secret as issued: standard base64 (padding optional).
    public static func decodeSecret(_ base64: String) -> [UInt8]? {
        var text = base64.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), !data.isEmpty else { return nil }
        return Array(data)
    }
}
