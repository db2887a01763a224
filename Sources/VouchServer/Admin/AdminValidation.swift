import VouchProtocol
import VouchStore

/// Checks on admin input, with the 422 that names the property.
enum AdminValidation {
    /// A human-readable name: 1…128 bytes of text that shows as what it says. C0 and C1 control
    /// characters and the bidirectional controls (overrides, embeddings, isolates, marks) are
    /// refused: U+202E in an app name would reverse the text around it wherever it is shown.
    static func name(_ name: String, property: String = "name") throws -> String {
        guard (1...RequestLimits.maximumNameBytes).contains(name.utf8.count) else {
            throw APIError.invalidProperty(property, "`\(property)` must be 1…128 bytes.")
        }
        if let scalar = name.unicodeScalars.first(where: isForbiddenInText) {
            let codePoint = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw APIError.invalidProperty(
                property, "`\(property)` contains \(codePoint), a control or bidirectional formatting character; remove it.")
        }
        return name
    }

    static func isForbiddenInText(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.properties.isBidiControl
    }

    static func ttl(_ ttl: Int64) throws -> Int64 {
        guard AdminAPI.sessionTTLRange.contains(ttl) else {
            throw APIError.invalidProperty("session_ttl_seconds", "`session_ttl_seconds` must be between 30 and 31536000.")
        }
        return ttl
    }

    static func challengeMargin(_ seconds: Int64) throws -> Int64 {
        try Self.inRange(seconds, within: AppRecord.challengeMarginRange, property: "challenge_margin_seconds")
    }

    static func accessTokenTTL(_ seconds: Int64) throws -> Int64 {
        try Self.inRange(seconds, within: AppRecord.accessTokenTTLRange, property: "access_token_ttl_seconds")
    }

    /// A number of seconds in `range`, or the 422 naming `property` and the range.
    private static func inRange(_ value: Int64, within range: ClosedRange<Int64>, property: String) throws -> Int64 {
        guard range.contains(value) else {
            throw APIError.invalidProperty(property, "`\(property)` must be between \(range.lowerBound) and \(range.upperBound).")
        }
        return value
    }

    /// Each audience valid (`AppRecord.isValidAudience`), none twice, at most
    /// `AppRecord.maximumAudiences`.
    static func audiences(_ audiences: [String]) throws -> [String] {
        guard audiences.count <= AppRecord.maximumAudiences else {
            throw APIError.invalidProperty("audiences", "`audiences` holds at most \(AppRecord.maximumAudiences) audiences.")
        }
        guard audiences.allSatisfy(AppRecord.isValidAudience) else {
            throw APIError.invalidProperty(
                "audiences", "Each audience is 1…200 characters of printable ASCII without spaces (a URL or a name).")
        }
        guard Set(audiences).count == audiences.count else {
            throw APIError.invalidProperty("audiences", "`audiences` names an audience twice.")
        }
        return audiences
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
