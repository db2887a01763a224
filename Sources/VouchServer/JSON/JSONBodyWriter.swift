import NIOCore
import VouchProtocol
import VouchStore

/// Writes JSON bodies straight into bytes, for the answers of the hot client routes.
///
/// `JSONEncoder` builds a tree of boxed values, sorts keys through dictionaries and then
/// serialises it: on `GET /users/me` that was a tenth of the request's CPU. The few response
/// types that every client hits write themselves here instead, in exactly the spelling
/// `JSONEncoder` gives them with `.sortedKeys` and `.withoutEscapingSlashes` (a test holds the
/// two outputs equal byte for byte), so clients cannot tell which one answered.
///
/// The bytes go straight into the buffer the response is sent from: written into an array they
/// were then copied into a buffer of their own, an allocation and a copy on every answer.
struct JSONBodyWriter {
    private(set) var buffer: ByteBuffer
    /// Whether the object being written has a member yet (for the commas).
    private var needsComma = false

    /// Room for a sign-in's answer with a typical profile (~300 bytes) without growing; a longer
    /// profile (an avatar URL may be 1 KiB) grows it once.
    init() { buffer = ByteBufferAllocator().buffer(capacity: 512) }

    /// What was written, as bytes (for tests).
    var bytes: [UInt8] { Array(buffer.readableBytesView) }

    /// `{`, the members `body` writes (in sorted order: the caller writes them so), `}`.
    mutating func object(_ body: (inout JSONBodyWriter) -> Void) {
        buffer.writeInteger(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        buffer.writeInteger(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { buffer.writeStaticString("null") }
        needsComma = true
    }

    /// A user's `<identity>` object (PROTOCOL §3), written from the record itself: building an
    /// `Identity` first copied every string of a record that the stores' caches share.
    mutating func member(_ name: StaticString, identityOf user: UserRecord) {
        key(name)
        object { object in
            object.member("avatar_url", user.profile.avatarURL)
            object.member("display_name", user.profile.displayName)
            object.member("first_name", user.profile.firstName)
            object.member("id", LayerID.identity(user.userID))
            object.member("last_name", user.profile.lastName)
            object.member("user_id", user.userID)
        }
        needsComma = true
    }

    mutating func member(_ name: StaticString, _ value: some JSONBodyWritable) {
        key(name)
        value.write(to: &self)
        needsComma = true
    }

    private mutating func key(_ name: StaticString) {
        if needsComma { buffer.writeInteger(UInt8(ascii: ",")) }
        buffer.writeInteger(UInt8(ascii: "\""))
        buffer.writeStaticString(name)
        // Two bytes, not a string's UTF-8 view: writing a view retains its string, once for
        // every member of every answer.
        buffer.writeInteger(UInt8(ascii: "\""))
        buffer.writeInteger(UInt8(ascii: ":"))
    }

    /// Escapes as `JSONEncoder` does: `"` and `\` with a backslash, the control characters that
    /// have a short form with it, the others as `\u00XX` (lower-case hex); everything else,
    /// `/` and non-ASCII included, as it is.
    ///
    /// A native string's bytes are read where they are: `withUTF8` is mutating, and the copy it
    /// needed took a reference to every string written (the users' fields are shared by caches).
    private mutating func string(_ value: String) {
        buffer.writeInteger(UInt8(ascii: "\""))
        if value.utf8.withContiguousStorageIfAvailable({ escaped($0) }) == nil {
            var copy = value
            copy.withUTF8 { escaped($0) }
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[runStart..<index])))
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): buffer.writeStaticString(#"\""#)
            case UInt8(ascii: "\\"): buffer.writeStaticString(#"\\"#)
            case 0x08: buffer.writeStaticString(#"\b"#)
            case 0x0C: buffer.writeStaticString(#"\f"#)
            case 0x0A: buffer.writeStaticString(#"\n"#)
            case 0x0D: buffer.writeStaticString(#"\r"#)
            case 0x09: buffer.writeStaticString(#"\t"#)
            default:
                buffer.writeStaticString(#"\u00"#)
                buffer.writeInteger(HexDigit.lowercase(byte >> 4))
                buffer.writeInteger(HexDigit.lowercase(byte & 0x0F))
            }
        }
        buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count])))
    }
}

/// A response type that writes its own JSON body (see `JSONBodyWriter`).
protocol JSONBodyWritable: Encodable {
    func write(to writer: inout JSONBodyWriter)
}

extension JSONBodyWritable {
    /// The body, in the buffer it is sent from.
    var jsonBuffer: ByteBuffer {
        var writer = JSONBodyWriter()
        write(to: &writer)
        return writer.buffer
    }

    /// The body as bytes (for tests).
    var jsonBody: [UInt8] { Array(jsonBuffer.readableBytesView) }
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
