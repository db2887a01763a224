/// Additions on times that come from tokens, which may be anywhere in 0…Int64.max.
public enum Saturating {
    public static func add(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        return overflow ? (rhs > 0 ? .max : .min) : sum
    }
}
