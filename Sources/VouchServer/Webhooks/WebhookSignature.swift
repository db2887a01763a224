import Crypto
import Foundation
import VouchSupport

/// `Vouch-Signature: t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of `<t>.<body>` under the endpoint's
/// secret (PROTOCOL §8.17). The time is inside what is signed, so a receiver that refuses old times
/// refuses a replayed delivery; the scheme is named (`v1`) so a later one can be sent beside it.
enum WebhookSignature {
    static let headerName = "Vouch-Signature"
    /// How far a receiver should let `t` stray from its own clock, in seconds (the documented check).
    static let toleranceSeconds: Int64 = 300

    /// The header's value for `body` sent at `timestamp`. The key is the secret's text as UTF-8,
    /// exactly as shown once at creation, so a receiver needs no decoding step to get it right.
    static func header(body: some DataProtocol, secret: String, timestamp: Int64) -> String {
        "t=\(timestamp),v1=\(hex(mac(body: body, secret: secret, timestamp: timestamp)))"
    }

    /// Whether `header` carries a `v1` signature of `body` under `secret` with a time within the
    /// tolerance of `now`: the receiver's check, for tests and Swift receivers to mirror.
    static func verify(header: String, body: some DataProtocol, secret: String, now: Int64) -> Bool {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            switch pair[0].trimmingCharacters(in: .whitespaces) {
            case "t": timestamp = Int64(pair[1])
            case "v1": signatures.append(String(pair[1]))
            default: continue
            }
        }
        guard let timestamp, abs(now - timestamp) <= toleranceSeconds else { return false }
        let expected = Array(hex(mac(body: body, secret: secret, timestamp: timestamp)).utf8)
        // Every candidate compared in full, whatever the first one said.
        return signatures.reduce(false) { found, candidate in ConstantTime.equal(Array(candidate.utf8), expected) || found }
    }

    private static func mac(body: some DataProtocol, secret: String, timestamp: Int64) -> HashedAuthenticationCode<SHA256> {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: Array(secret.utf8)))
        hmac.update(data: Array("\(timestamp).".utf8))
        hmac.update(data: body)
        return hmac.finalize()
    }

    private static func hex(_ code: HashedAuthenticationCode<SHA256>) -> String {
        String(decoding: code.flatMap { [HexDigit.lowercase($0 >> 4), HexDigit.lowercase($0 & 0x0F)] }, as: UTF8.self)
    }
}
