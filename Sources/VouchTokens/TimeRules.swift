/// The time rules #18–#19 both profiles share.
struct TimeRules {
    let now: Int64
    let leeway: Int64

    func check(issuedAt: Int64?, expiresAt: Int64?, _ findings: inout Findings) throws(Findings.Stop) {
        if let expiresAt, now >= Saturating.add(expiresAt, leeway) {
            try findings.add(.expired, claim: "exp")
        }
        if let issuedAt, issuedAt > Saturating.add(now, leeway) {
            let hint =
                issuedAt > ClaimRules.millisecondsThreshold
                ? "`iat` looks like milliseconds since 1970; it must be in seconds"
                : "`iat` is \(issuedAt - now) s ahead of the server clock (server_time)"
            try findings.add(.notBefore, claim: "iat", hint: hint)
        }
    }
}
