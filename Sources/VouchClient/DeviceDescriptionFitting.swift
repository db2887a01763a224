extension DeviceDescription {
    /// The server's limit on each field, in UTF-8 bytes (the rule of names).
    static let maximumFieldBytes = 128

    /// The description as the server accepts it, or nil when nothing is left: a sign-in must
    /// never fail because of what the app or the system said about the device (a host name with
    /// a newline, a 10 KB name), so the client mends each field rather than send what the server
    /// refuses with a 422 (`invalid_property` naming `device.name`).
    func fittingServerRules() -> DeviceDescription? {
        let fitted = DeviceDescription(name: Self.fitted(name), platform: Self.fitted(platform), appVersion: Self.fitted(appVersion))
        return fitted.isEmpty ? nil : fitted
    }

    /// Without the characters the server refuses (C0 and C1 controls, bidirectional controls),
    /// trimmed, then cut at a character boundary to fit the limit; nil when nothing is left.
    static func fitted(_ field: String?) -> String? {
        guard let field else { return nil }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: field.unicodeScalars.lazy.filter { $0.properties.generalCategory != .control && !$0.properties.isBidiControl })
        var text = String(scalars).trimmingWhitespace()
        if text.utf8.count > maximumFieldBytes {
            var bytes = 0
            let end =
                text.firstIndex { character in
                    bytes += character.utf8.count
                    return bytes > maximumFieldBytes
                } ?? text.endIndex
            text = String(text[..<end]).trimmingWhitespace()
        }
        return text.isEmpty ? nil : text
    }
}

extension String {
    /// Without leading and trailing white space (no Foundation needed for it).
    fileprivate func trimmingWhitespace() -> String {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return start < end ? String(self[start..<end]) : ""
    }
}
