import Foundation

/// Parses the two `Authorization` forms of PROTOCOL §3:
/// `Layer session-token="<t>"` (or single quotes) and `Bearer <t>`.
enum SessionCredentials {
    static func token(fromAuthorization header: String?) -> String? {
        guard let header, header.utf8.count <= RequestLimits.maximumSessionTokenLength + 64 else { return nil }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        let token: Substring
        if let rest = trimmed.dropPrefix(caseInsensitive: "Bearer ") {
            token = rest.drop { $0 == " " }
        } else if let rest = trimmed.dropPrefix(caseInsensitive: "Layer ") {
            let parameter = rest.drop { $0 == " " }
            guard let value = parameter.dropPrefix(caseInsensitive: "session-token="),
                  let quote = value.first, quote == "\"" || quote == "'",
                  value.count >= 2, value.last == quote else { return nil }
            token = value.dropFirst().dropLast()
        } else {
            return nil
        }
        guard !token.isEmpty, token.utf8.count <= RequestLimits.maximumSessionTokenLength,
              !token.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" }) else { return nil }
        return String(token)
    }
}

extension StringProtocol {
    func dropPrefix(caseInsensitive prefix: String) -> SubSequence? {
        guard count >= prefix.count, self.prefix(prefix.count).lowercased() == prefix.lowercased() else { return nil }
        return dropFirst(prefix.count)
    }
}
