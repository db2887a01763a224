import NIOCore
import VouchProtocol
import VouchStore
import VouchSupport

/// Writes JSON bodies straight into bytes, for the answers of the hot client routes.
///
/// `JSONEncoder` builds a tree of boxed values, sorts keys through dictionaries and then
/// serialises it, a large share of a hot route's CPU (docs/PERFORMANCE.md, "The request path").
/// The few response types that every client hits write themselves here instead, in exactly the
/// spelling `JSONEncoder` gives them with `.sortedKeys` and `.withoutEscapingSlashes` (a test
/// holds the two outputs equal byte for byte), so clients cannot tell which one answered.
///
/// The bytes are gathered in a kilobyte held in the writer itself (on the stack) and go into the
/// response's buffer with one call when the body is done, or whenever the kilobyte is full (a
/// profile with a long avatar URL). Written into the buffer byte by byte, every brace, quote and
/// colon would be a `ByteBuffer` call, each with a uniqueness, a capacity and a dynamic
/// exclusivity check on the buffer's storage; and a scratch area handed to a closure that writes
/// the value copies the value into the closure, a reference taken to each of its strings.
struct JSONBodyWriter {
    private var buffer: ByteBuffer
    private var pending = Pending()
    /// Bytes of `pending` in use.
    private var pendingCount = 0
    /// Whether the object being written has a member yet (for the commas).
    private var needsComma = false

    /// Room for a sign-in's answer with a typical profile (~300 bytes) without growing.
    init() { buffer = ByteBufferAllocator().buffer(capacity: 512) }

    /// The body, everything gathered included.
    mutating func finished() -> ByteBuffer {
        writeOutPending()
        return buffer
    }

    /// `{`, the members `body` writes (in sorted order: the caller writes them so), `}`.
    mutating func object(_ body: (inout JSONBodyWriter) -> Void) {
        put(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        put(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { put("null") }
        needsComma = true
    }

    mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        put(value ? "true" : "false")
        needsComma = true
    }

    mutating func member(_ name: StaticString, _ value: Int64?) {
        key(name)
        if var digits = value.map(String.init) {
            digits.withUTF8 { put($0) }
        } else {
            put("null")
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

    /// `,` when needed, then `"name":`.
    private mutating func key(_ name: StaticString) {
        if needsComma { put(UInt8(ascii: ",")) }
        put(UInt8(ascii: "\""))
        put(name)
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
    }

    /// A string value, quoted and escaped as `JSONEncoder` escapes: `"` and `\` with a
    /// backslash, the control characters that have a short form with it, the others as `\u00XX`
    /// (lower-case hex); everything else, `/` and non-ASCII included, as it is.
    ///
    /// A native string's bytes are read where they are: `withUTF8` is mutating, and the copy it
    /// needed took a reference to every string written (the users' fields are shared by caches).
    private mutating func string(_ value: String) {
        if value.utf8.withContiguousStorageIfAvailable({ string(utf8: $0) }) == nil {
            var copy = value
            copy.withUTF8 { string(utf8: $0) }
        }
    }

    private mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        put(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            put(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            runStart = index + 1
            put(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(byte)
            case 0x08: put(UInt8(ascii: "b"))
            case 0x0C: put(UInt8(ascii: "f"))
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0D: put(UInt8(ascii: "r"))
            case 0x09: put(UInt8(ascii: "t"))
            default:
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(HexDigit.lowercase(byte >> 4))
                put(HexDigit.lowercase(byte & 0x0F))
            }
        }
        put(UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        put(UInt8(ascii: "\""))
    }

    private mutating func put(_ byte: UInt8) {
        if pendingCount == Pending.size { writeOutPending() }
        let index = pendingCount
        withUnsafeMutableBytes(of: &pending) { $0[index] = byte }
        pendingCount = index + 1
    }

    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.count > Pending.size - pendingCount {
            writeOutPending()
            guard bytes.count <= Pending.size else {
                buffer.writeBytes(UnsafeRawBufferPointer(bytes))
                return
            }
        }
        guard let base = bytes.baseAddress else { return }
        let index = pendingCount
        withUnsafeMutableBytes(of: &pending) { ($0.baseAddress! + index).copyMemory(from: base, byteCount: bytes.count) }
        pendingCount = index + bytes.count
    }

    private mutating func put(_ literal: StaticString) {
        literal.withUTF8Buffer { put($0) }
    }

    private mutating func writeOutPending() {
        let count = pendingCount
        guard count > 0 else { return }
        _ = withUnsafeBytes(of: &pending) { buffer.writeBytes(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        pendingCount = 0
    }

    /// A kilobyte, as Swift can hold one inline without an allocation on every platform Vouch
    /// builds for (`InlineArray` needs the newest Apple systems).
    private struct Pending {
        typealias Eight = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
        var words:
            (
                Eight, Eight, Eight, Eight, Eight, Eight, Eight, Eight,
                Eight, Eight, Eight, Eight, Eight, Eight, Eight, Eight
            )
        static var size: Int { 1024 }

        init() {
            let eight: Eight = (0, 0, 0, 0, 0, 0, 0, 0)
            words = (
                eight, eight, eight, eight, eight, eight, eight, eight,
                eight, eight, eight, eight, eight, eight, eight, eight
            )
        }
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

extension AccessTokenResponse: JSONBodyWritable {
    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("access_token", accessToken)
            object.member("audience", audience)
            object.member("expires_at", expiresAt)
            object.member("token_type", tokenType)
        }
    }
}

extension NonceResponse: JSONBodyWritable {
    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("expires_at", expiresAt)
            object.member("nonce", nonce)
        }
    }
}

extension CurrentUserResponse.Session: JSONBodyWritable {
    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("created_at", createdAt)
            object.member("expires_at", expiresAt)
            object.member("session_id", sessionID)
        }
    }
}
