import VouchProtocol

/// The type and value rules that both profiles apply to claims, in the three passes that keep the
/// order of PROTOCOL §5.4: first every missing claim (#13), then every wrongly typed one (#14),
/// then every bad value (#15) — so that a token with a missing `exp` and a bad `prn` is told about
/// `exp` first, whichever claim a loop happens to reach first.
struct ClaimRules {
    enum Kind {
        case string
        case integer
    }

    struct Rule {
        let name: String
        let kind: Kind
        let required: Bool
    }

    /// Latest issue time a minter accepts: 9999-12-31T23:59:59Z. (The verifier accepts any
    /// non-negative 64-bit time, so that an `iat` in milliseconds reaches rule #19 and its hint.)
    static let latestTime: Int64 = 253_402_300_799
    /// `iat` values above this are almost certainly milliseconds (it is the year 5138 in seconds).
    static let millisecondsThreshold: Int64 = 100_000_000_000

    let claims: JSONMembers
    let rules: [Rule]

    /// Passes #13 and #14; returns the claims that are present with the right type, with their
    /// values. A `null` optional claim counts as absent; a `null` required claim has the wrong type.
    func checkPresenceAndTypes(_ findings: inout Findings) throws(Findings.Stop) -> UsableClaims {
        precondition(rules.count <= UsableClaims.maximumRules, "a profile has at most \(UsableClaims.maximumRules) claim rules")
        // Each rule's claim is looked for once; the passes and every later rule read the result.
        var located = UsableClaims.Positions(repeating: -1)
        for index in rules.indices {
            // A token is at most 8 KiB, so a member's position fits in 32 bits many times over.
            if let member = claims.index(of: rules[index].name) { located[index] = Int32(truncatingIfNeeded: member) }
        }
        for index in rules.indices where rules[index].required && located[index] < 0 {
            try findings.add(.claimNotFound, claim: rules[index].name)
        }
        var usable: UInt64 = 0
        for index in rules.indices where located[index] >= 0 {
            let rule = rules[index]
            let value = claims.members[Int(located[index])].value
            if case .null = value, !rule.required { continue }
            let rightType =
                switch rule.kind {
                case .string: if case .string = value { true } else { false }
                case .integer: if case .number(let number) = value { number.isIntegerLiteral } else { false }
                }
            if rightType {
                usable |= 1 << UInt64(index)
            } else {
                try findings.add(.claimWrongType, claim: rule.name)
            }
        }
        return UsableClaims(rules: rules, claims: claims, located: located, usable: usable)
    }

    func string(_ name: String) -> String? { claims[name]?.stringValue }

    /// An integer claim's value when it is usable: written as an integer, not negative, and within
    /// 64 bits. Adds #15 otherwise (an integer too large for 64 bits is a wrong value, not a wrong
    /// type). Far-future values are left to the time rules, which can say why (milliseconds).
    func time(_ name: String, usable: UsableClaims, _ findings: inout Findings) throws(Findings.Stop) -> Int64? {
        guard case .number(let number) = usable[name] else { return nil }
        guard let value = number.integerValue, value >= 0 else {
            try findings.add(.claimWrongValue, claim: name, hint: "must be Unix seconds: an integer from 0 to 2^63-1")
            return nil
        }
        return value
    }

    /// Adds #15 when a string claim is empty, longer than `maximumBytes` or has control characters.
    @discardableResult
    func checkText(
        _ name: String, usable: UsableClaims, maximumBytes: Int, allowEmpty: Bool = false,
        _ findings: inout Findings
    ) throws(Findings.Stop) -> String? {
        guard case .string(let text) = usable[name] else { return nil }
        if text.isEmpty && !allowEmpty {
            try findings.add(.claimWrongValue, claim: name, hint: "must not be empty")
            return nil
        }
        if text.utf8.count > maximumBytes {
            try findings.add(.claimWrongValue, claim: name, hint: "longer than \(maximumBytes) bytes")
            return nil
        }
        if ControlCharacters.present(in: text) {
            try findings.add(.claimWrongValue, claim: name, hint: "contains control characters")
            return nil
        }
        return text
    }
}

/// The claims a token has with the right type: one bit per rule, and where each rule's claim is
/// among the members, so that judging the types allocates nothing and no claim is searched for
/// twice.
struct UsableClaims {
    /// Layer has nine claim rules and Sinch six.
    typealias Positions = InlineArray<16, Int32>
    static var maximumRules: Int { Positions.count }

    let rules: [ClaimRules.Rule]
    let claims: JSONMembers
    /// The position in `claims.members` of each rule's claim, or -1.
    let located: Positions
    /// Bit `i` set: the claim of `rules[i]` is present, not an optional `null`, of the right type.
    let usable: UInt64

    /// The value of the claim of the rule named `name` when it is usable. Rule names are the
    /// protocol's ASCII names, so `==` compares their bytes.
    subscript(name: String) -> JSONValue? {
        let length = name.utf8.count
        for index in rules.indices where rules[index].name.utf8.count == length && rules[index].name == name {
            return usable & (1 << UInt64(index)) != 0 ? claims.members[Int(located[index])].value : nil
        }
        return nil
    }

    func contains(_ name: String) -> Bool { self[name] != nil }
}
