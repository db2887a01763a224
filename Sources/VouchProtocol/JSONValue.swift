import Foundation

/// Any JSON value, for the parts of the protocol whose shape is open: the `data` of an error body,
/// and a token's header and claims as the validation tool shows them.
///
/// Numbers keep their literal spelling, because the token rules depend on it: `1700000000`,
/// `1700000000.0` and `1.7e9` are the same value but only the first is an integer claim.
///
/// Not `indirect`: arrays and objects already hold their elements on the heap, and an indirect
/// enum would put every string and number of a token in a box of its own as well.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The value as an integer when it is written as one (no fraction, no exponent) and fits.
    public var integerValue: Int64? {
        if case .number(let number) = self { return number.integerValue }
        return nil
    }
}

/// A JSON number as written.
public struct JSONNumber: Sendable, Equatable, CustomStringConvertible {
    /// The literal, e.g. `-12`, `3.5`, `1e9`.
    public let literal: String

    public init(literal: String) { self.literal = literal }
    public init(_ value: Int64) { self.literal = String(value) }

    /// Whether the literal has neither fraction nor exponent.
    public var isIntegerLiteral: Bool {
        func isFractionOrExponent(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
        }
        return
            !(literal.utf8.withContiguousStorageIfAvailable { $0.contains(where: isFractionOrExponent) }
            ?? literal.utf8.contains(where: isFractionOrExponent))
    }

    /// The value when written as an integer that fits in 64 bits.
    public var integerValue: Int64? {
        literal.utf8.withContiguousStorageIfAvailable(Self.integer(fromDigits:))
            ?? (isIntegerLiteral ? Int64(literal) : nil)
    }

    /// `Int64(literal)` for a literal with no fraction or exponent, read from its bytes in one pass
    /// (every `iat` and `exp` of every token is read this way): an optional sign, then at least one
    /// digit and nothing else, within 64 bits.
    static func integer(fromDigits bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return nil }
        // Accumulated as a negative number, whose range reaches Int64.min.
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, underflowed) = shifted.subtractingReportingOverflow(Int64(digit))
            guard !overflowed && !underflowed else { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    var doubleValue: Double? { Double(literal) }

    public var description: String { literal }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(JSONNumber(literal: String(value)))
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let number):
            // Foundation cannot write a literal as is: integers stay exact, other finite values go
            // as doubles, and what no double can hold (1e400) is shown as its text.
            if let integer = number.integerValue {
                try container.encode(integer)
            } else if let double = number.doubleValue, double.isFinite {
                try container.encode(double)
            } else {
                try container.encode(number.literal)
            }
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
