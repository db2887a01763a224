import VouchStore
import VouchTokens

/// When Vouch's signing keys rotate (PROTOCOL §8.16). A successor is published `publishLead`
/// before it signs, so that every cache of the JWKS holds it before the first token it signs is
/// seen; a predecessor stays published `retention` after it stops, so that every token it signed
/// expires first.
public struct SigningKeySchedule: Sendable, Equatable {
    /// How long a key signs before its successor takes over.
    public var rotationIntervalSeconds: Int64 = 30 * 86_400
    /// How long before it signs a successor is published: at least twice the longest time a
    /// verifier may cache the JWKS.
    public var publishLeadSeconds: Int64 = 2 * 3600
    /// How long after its successor took over a key stays published.
    public var retentionSeconds: Int64 = 900
    /// The JWKS's `Cache-Control: max-age`.
    public var jwksMaxAgeSeconds: Int64 = 300
    /// How often each instance checks whether a rotation is due and reloads the keys another
    /// instance added.
    public var checkIntervalSeconds: Int64 = 60

    public init() {}

    /// Seconds so that tests can rotate every few; `vouch serve` takes whole days.
    static let rotationIntervalRange: ClosedRange<Int64> = 2...(366 * 86_400)
    static let jwksMaxAgeRange: ClosedRange<Int64> = 1...3600
    static let checkIntervalRange: ClosedRange<Int64> = 1...3600

    /// The lead covers two cache lifetimes, and the retention the longest token and the leeway.
    func validate(leewaySeconds: Int64) throws(ConfigurationError) {
        try ConfigurationError.check(
            rotationIntervalSeconds, in: Self.rotationIntervalRange, "signingKeys.rotationIntervalSeconds", unit: " seconds")
        try ConfigurationError.check(jwksMaxAgeSeconds, in: Self.jwksMaxAgeRange, "signingKeys.jwksMaxAgeSeconds", unit: " seconds")
        try ConfigurationError.check(
            checkIntervalSeconds, in: Self.checkIntervalRange, "signingKeys.checkIntervalSeconds", unit: " seconds")
        let leadRange = (2 * jwksMaxAgeSeconds)...(rotationIntervalSeconds)
        try ConfigurationError.check(publishLeadSeconds, in: leadRange, "signingKeys.publishLeadSeconds", unit: " seconds")
        let retentionRange = (AccessTokenClaims.maximumLifetimeSeconds + leewaySeconds)...(30 * 86_400)
        try ConfigurationError.check(retentionSeconds, in: retentionRange, "signingKeys.retentionSeconds", unit: " seconds")
    }
}

/// The keys a schedule makes of the stored ones at a moment: which signs, which are published,
/// which may go, and whether a successor is due. A value computed from the store's list, so that
/// every instance reaches the same verdict from the same rows.
struct SigningKeyPlan: Equatable {
    /// The newest key whose activation has come.
    let signing: SigningKeyRecord?
    /// Every key a live token may name, and a successor ahead of its activation.
    let published: [SigningKeyRecord]
    /// Keys below this sequence are no longer published and may be deleted.
    let firstKept: Int64
    /// The key to add now, if a rotation is due (the first key activates at once: no cache holds
    /// an older set).
    let successor: (sequence: Int64, activatesAt: Int64)?

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.signing == rhs.signing && lhs.published == rhs.published && lhs.firstKept == rhs.firstKept
            && lhs.successor?.sequence == rhs.successor?.sequence && lhs.successor?.activatesAt == rhs.successor?.activatesAt
    }

    init(keys unsorted: [SigningKeyRecord], schedule: SigningKeySchedule, now: Int64) {
        let keys = unsorted.sorted { $0.sequence < $1.sequence }
        signing = keys.last { $0.activatesAt <= now }
        var published: [SigningKeyRecord] = []
        for (index, key) in keys.enumerated() {
            let successor = keys.indices.contains(index + 1) ? keys[index + 1] : nil
            if let successor, successor.activatesAt <= now - schedule.retentionSeconds { continue }
            published.append(key)
        }
        self.published = published
        firstKept = published.first?.sequence ?? (keys.last.map { $0.sequence + 1 } ?? 1)
        guard let newest = keys.last else {
            successor = (1, now)
            return
        }
        let due =
            newest.activatesAt <= now
            && now >= newest.activatesAt + schedule.rotationIntervalSeconds - schedule.publishLeadSeconds
        successor = due ? (newest.sequence + 1, now + schedule.publishLeadSeconds) : nil
    }
}
