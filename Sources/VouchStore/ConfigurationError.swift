/// A configuration value outside what its component accepts, found by that component's
/// `validate()` (the server's, each store's), which `vouch serve` runs before anything starts.
/// Every range is a static member beside its field, and nothing clamps a value later.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field, as its component names it (`sessionCacheCapacity`).
    public let field: String
    /// What the field accepts, in words (`0…1000000`).
    public let accepted: String

    public init(field: String, accepted: String) {
        self.field = field
        self.accepted = accepted
    }

    /// Throws unless `range` holds `value`.
    public static func check<Value: Comparable>(
        _ value: Value, in range: ClosedRange<Value>, _ field: String,
        unit: String = ""
    ) throws(ConfigurationError) {
        guard !range.contains(value) else { return }
        throw ConfigurationError(field: field, accepted: "\(range.lowerBound)…\(range.upperBound)\(unit)")
    }

    public var description: String { "\(field) must be \(accepted)" }
}
