import Crypto
import HTTPTypes

/// The admin token as the server holds it: only its SHA-256, compared in constant time, so
/// neither memory nor timing gives the token away.
struct AdminToken: Sendable {
    private let hash: [UInt8]

    init(_ token: String) {
        hash = Array(SHA256.hash(data: Array(token.utf8)))
    }

    func matches(_ candidate: String) -> Bool {
        ConstantTime.equal(Array(SHA256.hash(data: Array(candidate.utf8))), hash)
    }

    /// Whether the request carries `Authorization: Bearer <admin token>`.
    func authorizes(_ headers: HTTPFields) -> Bool {
        guard var header = headers.combinedValue(.authorization) else { return false }
        guard
            let token = header.withUTF8({ bytes in
                bytes[...].droppingPrefix(caseInsensitive: "bearer ").map { String(decoding: $0, as: UTF8.self) }
            })
        else {
            return false
        }
        return matches(token)
    }
}
