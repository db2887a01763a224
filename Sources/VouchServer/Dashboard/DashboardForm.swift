import Foundation
import Hummingbird
import NIOCore

/// An `application/x-www-form-urlencoded` body, as the dashboard's forms send it.
struct DashboardForm: Sendable {
    private var fields: [String: String] = [:]

    init(bytes: [UInt8]) throws {
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else {
                throw DashboardError(.badRequest, "The form could not be read.")
            }
            // The first occurrence wins, so a value cannot be overridden by appending to a body.
            if fields[name] == nil { fields[name] = value }
        }
    }

    /// Reads the (bounded) body of a form post.
    static func read(_ request: Request) async throws -> DashboardForm {
        try DashboardForm(bytes: try await RequestBodyReader.collect(request))
    }

    subscript(_ name: String) -> String? { fields[name] }

    /// The field with surrounding whitespace removed, `nil` when absent or empty.
    func text(_ name: String) -> String? {
        guard let value = fields[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
