import Crypto
import Foundation
import VouchTokens

/// The dashboard's signed-in browsers, in memory: a restart signs everyone out, which is the
/// safe direction. Bounded in count (the oldest session goes first when it is full) and in time
/// (an absolute lifetime, no sliding renewal).
///
/// The cookie carries a random 256-bit token; only its SHA-256 is kept here, so this table holds
/// nothing a browser could present.
actor DashboardSessions {
    struct Session: Sendable {
        /// Hex SHA-256 of the cookie token: the key here, and a non-secret name for the session.
        let id: String
        /// Sent back in every state-changing form; compared in constant time.
        let csrfToken: String
        let expiresAt: Int64
        /// A one-shot message for the next page (post/redirect/get).
        var notice: String?
        /// Providers created or opened in this session: the store has no provider listing.
        var providers: [UUID] = []
    }

    static let defaultCapacity = 256
    static let defaultLifetimeSeconds: Int64 = 8 * 3600

    private var sessions: [String: Session] = [:]
    private let capacity: Int
    private let lifetimeSeconds: Int64
    private let clock: @Sendable () -> Int64

    init(capacity: Int = defaultCapacity, lifetimeSeconds: Int64 = defaultLifetimeSeconds, clock: @escaping @Sendable () -> Int64) {
        self.capacity = max(1, capacity)
        self.lifetimeSeconds = lifetimeSeconds
        self.clock = clock
    }

    var lifetime: Int64 { lifetimeSeconds }

    /// Opens a session; returns the cookie token (shown to the browser once) and the session.
    func open() -> (token: String, session: Session) {
        let now = clock()
        sessions = sessions.filter { $0.value.expiresAt > now }
        while sessions.count >= capacity, let oldest = sessions.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
            sessions[oldest.key] = nil
        }
        let token = Base64URL.encode(SecureRandom.bytes(32))
        let session = Session(
            id: Self.id(of: token), csrfToken: Base64URL.encode(SecureRandom.bytes(32)),
            expiresAt: now + lifetimeSeconds)
        sessions[session.id] = session
        return (token, session)
    }

    /// The live session the cookie token names, or `nil` (unknown, expired or signed out).
    func session(token: String) -> Session? {
        guard token.utf8.count <= 128 else { return nil }
        return session(id: Self.id(of: token))
    }

    func session(id: String) -> Session? {
        guard let session = sessions[id] else { return nil }
        guard session.expiresAt > clock() else {
            sessions[id] = nil
            return nil
        }
        return session
    }

    func close(id: String) {
        sessions[id] = nil
    }

    var count: Int { sessions.count }

    func setNotice(_ notice: String, id: String) {
        sessions[id]?.notice = notice
    }

    /// The pending notice, cleared as it is read.
    func takeNotice(id: String) -> String? {
        defer { sessions[id]?.notice = nil }
        return sessions[id]?.notice
    }

    /// Remembers a provider for the session's provider list (most recent first, at most 50).
    func remember(provider: UUID, id: String) {
        guard var session = sessions[id] else { return }
        session.providers.removeAll { $0 == provider }
        session.providers.insert(provider, at: 0)
        session.providers = Array(session.providers.prefix(50))
        sessions[id] = session
    }

    static func id(of token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
