import VouchProtocol

/// Writes JSON bodies straight into bytes, for the answers of the hot client routes.
///
/// `JSONEncoder` builds a tree of boxed values, sorts keys through dictionaries and then
/// serialises it: on `GET /users/me` that was a tenth of the request's CPU. The few response
/// types that every client hits write themselves here instead, in exactly the spelling
/// `JSONEncoder` gives them with `.sortedKeys` and `.withoutEscapingSlashes` (a test holds the
/// two outputs equal byte for byte), so clients cannot tell which one answered.
struct JSONBodyWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the object being written has a member yet (for the commas).
    private var needsComma = false

    init() { bytes.reserveCapacity(256) }

    /// `{`, the members `body` writes (in sorted order: the caller writes them so), `}`.
    mutating func object(_ body: (inout JSONBodyWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { bytes.append(contentsOf: "null".utf8) }
        needsComma = true
    }

    mutating func member(_ name: StaticString, _ value: some JSONBodyWritable) {
        key(name)
        value.write(to: &self)
        needsComma = true
    }

    private mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        // Two bytes, not a string's UTF-8 view: appending a view retains its string, once for
        // every member of every answer.
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Escapes as `JSONEncoder` does: `"` and `\` with a backslash, the control characters that
    /// have a short form with it, the others as `\u00XX` (lower-case hex); everything else,
    /// `/` and non-ASCII included, as it is.
    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
                case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
                case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
                case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
                case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
                case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: #"\u00"#.utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A response type that writes its own JSON body (see `JSONBodyWriter`).
protocol JSONBodyWritable: Encodable {
    func write(to writer: inout JSONBodyWriter)
}

extension JSONBodyWritable {
    var jsonBody: [UInt8] {
        var writer = JSONBodyWriter()
        write(to: &writer)
        return writer.bytes
    }
}

// Members in sorted order, as `.sortedKeys` writes them.

extension NonceResponse: JSONBodyWritable {
    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("expires_at", expiresAt)
            object.member("nonce", nonce)
        }
    }
}

extension Identity: JSONBodyWritable {
    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("avatar_url", avatarURL)
            object.member("display_name", displayName)
            object.member("first_name", firstName)
            object.member("id", id)
            object.member("last_name", lastName)
            object.member("user_id", userID)
        }
    }
}

extension SessionResponse: JSONBodyWritable {
    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("expires_at", expiresAt)
            object.member("session_token", sessionToken)
            object.member("user", user)
        }
    }
}

extension CurrentUserResponse: JSONBodyWritable {
    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("session", session)
            object.member("user", user)
        }
    }
}

extension CurrentUserResponse.Session: JSONBodyWritable {
    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("created_at", createdAt)
            object.member("expires_at", expiresAt)
        }
    }
}
