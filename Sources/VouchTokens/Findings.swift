import VouchProtocol

/// Collects broken rules while a policy runs.
///
/// In `.firstOnly` mode (`POST /sessions`) adding a finding stops the evaluation at once, so
/// nothing after the first broken rule runs. In `.all` mode (the validation tool) evaluation goes
/// on and reports everything it can still check without trusting the unverified claims.
struct Findings {
    enum Mode {
        case firstOnly
        case all
    }

    /// `.firstOnly` mode found its finding. Typed, so that stopping at the first broken rule is an
    /// ordinary return rather than an error to be cast.
    struct Stop: Error {}

    let mode: Mode
    private(set) var rejections: [TokenRejection] = []

    init(mode: Mode) { self.mode = mode }

    mutating func add(_ rejection: TokenRejection) throws(Stop) {
        rejections.append(rejection)
        if mode == .firstOnly { throw Stop() }
    }

    mutating func add(_ reason: RejectionReason, param: String? = nil, claim: String? = nil, hint: String? = nil) throws(Stop) {
        try add(TokenRejection(reason, param: param, claim: claim, hint: hint))
    }

    var isEmpty: Bool { rejections.isEmpty }

    /// The findings in the order of PROTOCOL §5.4 (stable within one reason).
    var ordered: [TokenRejection] {
        guard rejections.count > 1 else { return rejections }
        return rejections.enumerated().sorted { lhs, rhs in
            lhs.element.reason == rhs.element.reason ? lhs.offset < rhs.offset : lhs.element.reason < rhs.element.reason
        }.map(\.element)
    }
}
