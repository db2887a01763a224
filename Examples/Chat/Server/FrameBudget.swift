/// How many frames a socket may still send: a token bucket that refills at `perSecond` up to
/// `burst`, so that one client's flood costs the hub nothing past its share.
struct FrameBudget {
    let perSecond: Double
    let burst: Double
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant

    init(perSecond: Int, burst: Int, now: ContinuousClock.Instant = .now) {
        self.perSecond = Double(perSecond)
        self.burst = Double(burst)
        self.tokens = Double(burst)
        self.refilledAt = now
    }

    /// Takes one frame's token, if there is one.
    mutating func take(now: ContinuousClock.Instant = .now) -> Bool {
        tokens = min(burst, tokens + (now - refilledAt).seconds * perSecond)
        refilledAt = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
