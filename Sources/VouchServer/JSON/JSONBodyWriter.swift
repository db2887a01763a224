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
/// were then copied into a buffer of their own, an allocation and a copy on every answer. Each
/// member (its comma, key and value, and the braces and commas before it) is written with one
/// reservation of the buffer, its exact length counted first: written byte by byte, every brace,
/// quote and colon was a `ByteBuffer` call of its own (a uniqueness check, a capacity check and a
/// dynamic exclusivity check on the buffer's storage, ~45 of them for a sign-in's answer).
struct JSONBodyWriter {
    private var buffer: ByteBuffer
    /// Whether the object being written has a member yet (for the commas).
    private var needsComma = false
    /// Braces and commas not yet written, little-endian, written in front of the next member or
    /// when the body is finished.
    private var pending: UInt64 = 0
    private var pendingCount = 0

    /// Room for a sign-in's answer with a typical profile (~300 bytes) without growing; a longer
    /// profile (an avatar URL may be 1 KiB) grows it once.
    init() { buffer = ByteBufferAllocator().buffer(capacity: 512) }

    /// The body written so far, everything pending included.
    mutating func finished() -> ByteBuffer {
        if pendingCount > 0 { write(count: 0) { _ in } }
        return buffer
    }

    /// `{`, the members `body` writes (in sorted order: the caller writes them so), `}`.
    mutating func object(_ body: (inout JSONBodyWriter) -> Void) {
        punctuate(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        punctuate(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func member(_ name: StaticString, _ value: String?) {
        if let value {
            if value.utf8.withContiguousStorageIfAvailable({ member(name, utf8: $0) }) == nil {
                var copy = value
                copy.withUTF8 { member(name, utf8: $0) }
            }
        } else {
            commaIfNeeded()
            let keyLength = Self.keyLength(name)
            write(count: keyLength + 4) { out in
                Self.writeKey(name, to: out)
                for (offset, byte) in "null".utf8.enumerated() {
                    out.storeBytes(of: byte, toByteOffset: keyLength + offset, as: UInt8.self)
                }
            }
        }
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

    /// A key whose value is written next, by another call.
    private mutating func key(_ name: StaticString) {
        commaIfNeeded()
        write(count: Self.keyLength(name)) { out in Self.writeKey(name, to: out) }
    }

    /// A key and its string value, escaped.
    private mutating func member(_ name: StaticString, utf8: UnsafeBufferPointer<UInt8>) {
        commaIfNeeded()
        let keyLength = Self.keyLength(name)
        let valueLength = Self.escapedLength(utf8)
        write(count: keyLength + valueLength + 2) { out in
            Self.writeKey(name, to: out)
            out.storeBytes(of: UInt8(ascii: "\""), toByteOffset: keyLength, as: UInt8.self)
            Self.writeEscaped(utf8, to: out + keyLength + 1)
            out.storeBytes(of: UInt8(ascii: "\""), toByteOffset: keyLength + valueLength + 1, as: UInt8.self)
        }
    }

    private mutating func commaIfNeeded() {
        if needsComma { punctuate(UInt8(ascii: ",")) }
    }

    private mutating func punctuate(_ byte: UInt8) {
        if pendingCount == 8 { write(count: 0) { _ in } }
        pending |= UInt64(byte) << (8 * pendingCount)
        pendingCount += 1
    }

    /// Writes what is pending, then `count` bytes that `body` fills in, with one reservation.
    private mutating func write(count: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        let prefix = pendingCount
        var punctuation = pending.littleEndian
        pending = 0
        pendingCount = 0
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: prefix + count) { out in
            let start = out.baseAddress!
            withUnsafeBytes(of: &punctuation) { start.copyMemory(from: $0.baseAddress!, byteCount: prefix) }
            body(start + prefix)
            return prefix + count
        }
    }

    /// `"name":`
    private static func keyLength(_ name: StaticString) -> Int { name.utf8CodeUnitCount + 3 }

    private static func writeKey(_ name: StaticString, to out: UnsafeMutableRawPointer) {
        name.withUTF8Buffer { utf8 in
            out.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
            if let base = utf8.baseAddress { (out + 1).copyMemory(from: base, byteCount: utf8.count) }
            out.storeBytes(of: UInt8(ascii: "\""), toByteOffset: utf8.count + 1, as: UInt8.self)
            out.storeBytes(of: UInt8(ascii: ":"), toByteOffset: utf8.count + 2, as: UInt8.self)
        }
    }

    /// Escapes as `JSONEncoder` does: `"` and `\` with a backslash, the control characters that
    /// have a short form with it, the others as `\u00XX` (lower-case hex); everything else,
    /// `/` and non-ASCII included, as it is.
    private static func escapedLength(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var length = utf8.count
        for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: length += 1
            default: length += 5
            }
        }
        return length
    }

    /// Writes exactly `escapedLength(utf8)` bytes.
    private static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to out: UnsafeMutableRawPointer) {
        guard let base = utf8.baseAddress else { return }
        let backslash = UInt8(ascii: "\\")
        var written = 0
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            (out + written).copyMemory(from: base + runStart, byteCount: index - runStart)
            written += index - runStart
            runStart = index + 1
            let short: UInt8? = switch byte {
            case UInt8(ascii: "\""): UInt8(ascii: "\"")
            case UInt8(ascii: "\\"): backslash
            case 0x08: UInt8(ascii: "b")
            case 0x0C: UInt8(ascii: "f")
            case 0x0A: UInt8(ascii: "n")
            case 0x0D: UInt8(ascii: "r")
            case 0x09: UInt8(ascii: "t")
            default: nil
            }
            out.storeBytes(of: backslash, toByteOffset: written, as: UInt8.self)
            if let short {
                out.storeBytes(of: short, toByteOffset: written + 1, as: UInt8.self)
                written += 2
            } else {
                out.storeBytes(of: UInt8(ascii: "u"), toByteOffset: written + 1, as: UInt8.self)
                out.storeBytes(of: UInt8(ascii: "0"), toByteOffset: written + 2, as: UInt8.self)
                out.storeBytes(of: UInt8(ascii: "0"), toByteOffset: written + 3, as: UInt8.self)
                out.storeBytes(of: HexDigit.lowercase(byte >> 4), toByteOffset: written + 4, as: UInt8.self)
                out.storeBytes(of: HexDigit.lowercase(byte & 0x0F), toByteOffset: written + 5, as: UInt8.self)
                written += 6
            }
        }
        (out + written).copyMemory(from: base + runStart, byteCount: utf8.count - runStart)
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
        return writer.finished()
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
