/// One JSON value as RFC 8259 reads it, numbers kept as written so that `1700000000` and `1.7e9`
/// stay distinct (the token's times must be integers).
enum JSONValue: Sendable, Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var object: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The value when it is an integer literal (no fraction, no exponent) that fits 64 bits.
    var integer: Int64? {
        guard case .number(let literal) = self, !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
            return nil
        }
        return Int64(literal)
    }
}
