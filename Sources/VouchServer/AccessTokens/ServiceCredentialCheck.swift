import Foundation
import Synchronization
import VouchProtocol
import VouchStore

/// Knows which app a service credential speaks for. A credential's record is cached for at most
/// a second, so that a service introspecting on every request costs no store read per request,
/// and a revocation takes effect on every instance within that second.
final class ServiceCredentialCheck: Sendable {
    let store: any Store
    let uptime: @Sendable () -> Double
    private let cache = Mutex<[[UInt8]: (record: ServiceCredentialRecord?, at: Double)]>([:])

    static let cacheSeconds = 1.0
    /// The most credentials remembered; past it the cache starts afresh (a burst of unknown
    /// credentials costs store reads, never memory).
    static let cacheLimit = 1024

    init(store: any Store, uptime: @escaping @Sendable () -> Double) {
        self.store = store
        self.uptime = uptime
    }

    /// The app the `Authorization: Bearer <credential>` header speaks for; throws the 401 of
    /// PROTOCOL §8.16 when the header names no live credential.
    func appID(authorization: String?) async throws -> UUID {
        guard let text = SessionCredentials.token(fromAuthorization: authorization),
            ServiceCredentialText.isWellFormed(text)
        else { throw Self.refusal }
        let hash = ServiceCredentialText.hash(text)
        let now = uptime()
        let cached = cache.withLock { cache in cache[hash].flatMap { now - $0.at < Self.cacheSeconds ? $0 : nil } }
        let record: ServiceCredentialRecord?
        if let cached {
            record = cached.record
        } else {
            record = try await store.serviceCredential(hash: hash)
            cache.withLock { cache in
                if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
                cache[hash] = (record, now)
            }
        }
        guard let record, !record.isRevoked else { throw Self.refusal }
        return record.appID
    }

    static let refusal = APIError(
        .serviceCredentialRequired,
        "A valid service credential is required: Authorization: Bearer <credential> (POST /admin/apps/<app>/service-credentials makes one).",
        headers: [.wwwAuthenticate: #"Bearer realm="vouch", error="invalid_token""#])
}
