import Foundation
import VouchStore
import VouchTokens

/// What an erased user is called in the audit log: `erased-` and 24 hex digits of
/// HMAC-SHA256(server secret, app id ‖ 0 ‖ user id). Stable (the same user of the same app gets
/// the same pseudonym on every instance, so an auditor can still tell one erased user's entries
/// from another's) and, without the secret, not reversible by trying user ids. The secret lives
/// in the store, beside the nonce secret, and is made on the first start.
struct UserPseudonyms: Sendable {
    static let secretName = "user-pseudonym-v1"
    private static let digestBytes = 12

    private let key: KeyedHMAC

    init(secret: [UInt8]) { self.key = KeyedHMAC(key: secret) }

    static func load(from store: any Store) async throws -> UserPseudonyms {
        UserPseudonyms(secret: try await store.secret(named: secretName, orInsert: SecureRandom.bytes(32)))
    }

    func pseudonym(appID: UUID, userID: String) -> String {
        var message = withUnsafeBytes(of: appID.uuid) { Array($0) }
        message.append(0)
        message.append(contentsOf: userID.utf8)
        let code = message.withUnsafeBytes { key.code($0) }
        return "erased-" + code.prefix(Self.digestBytes).map { String(format: "%02x", $0) }.joined()
    }
}
