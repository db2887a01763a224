import Foundation
import VouchProtocol

/// An RFC 8259 parser for token headers and claims that refuses what Foundation's decoders let by.
///
/// Foundation silently keeps one of two members with the same name, so `{"prn":"alice","prn":"bob"}`
/// would mean different users to different parsers. This parser refuses duplicates, invalid
/// UTF-8, unescaped control characters, lone surrogates and nesting deeper than `maximumDepth`
/// (so a 10 000-deep document is an error, not a stack overflow), and it keeps number literals
/// as written so the token rules can tell `1700000000` from `1.7e9`.
package struct StrictJSON: Sendable {
    package enum Failure: Error, Equatable, Sendable {
        case invalidUTF8
        case unexpectedEnd
        case unexpectedByte(offset: Int)
        case duplicateName(String)
        case tooDeep
        case invalidString(offset: Int)
        case invalidNumber(offset: Int)
        case trailingBytes(offset: Int)
        case notAnObject
    }

    package var maximumDepth: Int

    package init(maximumDepth: Int = 32) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON object (the only top-level value a JOSE header or claims set may be).
    package func parseObject(_ bytes: [UInt8]) throws(Failure) -> [String: JSONValue] {
        let value = try parse(bytes)
        guard case .object(let members) = value else { throw .notAnObject }
        return members
    }

    /// One JSON object as its members in the order written: what the token rules read (a list
    /// searched by name, see `JSONMembers`). Nested objects are dictionaries, as in `parse`.
    package func parseMembers(_ bytes: [UInt8]) throws(Failure) -> JSONMembers {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) in try parseMembers(buffer) }
    }

    package func parseMembers(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONMembers {
        try read(bytes) { (reader) throws(Failure) in
            guard try reader.peek() == UInt8(ascii: "{") else {
                _ = try reader.readValue(depth: 0)
                throw .notAnObject
            }
            return JSONMembers(members: try reader.readMembers(depth: 1))
        }
    }

    package func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) in
            try read(buffer) { (reader) throws(Failure) in try reader.readValue(depth: 0) }
        }
    }

    /// The whole document through `body`, which reads one value: valid UTF-8, no bytes after it.
    /// The reader works on the raw buffer: no reference counting per byte read.
    private func read<Value>(_ buffer: UnsafeBufferPointer<UInt8>, _ body: (inout Reader) throws(Failure) -> Value) throws(Failure) -> Value {
        // Validating up front keeps the string scanner simple: it may copy byte runs as they are.
        guard UTF8Validation.isValid(buffer) else { throw .invalidUTF8 }
        var reader = Reader(bytes: buffer, maximumDepth: maximumDepth)
        reader.skipWhitespace()
        let value = try body(&reader)
        reader.skipWhitespace()
        guard reader.offset == buffer.count else { throw .trailingBytes(offset: reader.offset) }
        return value
    }
}

/// Whether bytes are UTF-8, without making a `String` of them: token parts are ASCII, which is
/// checked eight bytes at a time; anything else goes through the standard library's validation.
enum UTF8Validation {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var index = 0
        var highBits: UInt64 = 0
        while index + 8 <= raw.count {
            highBits |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < raw.count {
            highBits |= UInt64(raw[index])
            index += 1
        }
        return highBits & 0x8080_8080_8080_8080 == 0 || String(validating: bytes, as: UTF8.self) != nil
    }
}

/// The bytes that end a JSON string's plain run: a quote, a backslash or a control character.
enum StringBytes {
    /// Whether any of the eight bytes is `"`, `\` or below 0x20 (bytes from 0x80 up never
    /// count: they are parts of already validated UTF-8). The classic test for a zero byte, `(v -
    /// 0x01…) & ~v & 0x80…`, applied to `v ^ quotes`, `v ^ backslashes` and, for the controls, to
    /// `v - 0x20…`.
    static func hasSpecialByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & highs != 0
    }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var offset = 0
    /// Whether the string `readString` returned last was all ASCII.
    var lastStringWasASCII = true
    /// Where the string `readString` returned last was written, when it had no escapes (its
    /// bytes there are its UTF-8); `nil` otherwise.
    var lastStringBytes: Range<Int>?

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    func peek() throws(StrictJSON.Failure) -> UInt8 {
        guard offset < bytes.count else { throw .unexpectedEnd }
        return bytes[offset]
    }

    mutating func expect(_ byte: UInt8) throws(StrictJSON.Failure) {
        guard try peek() == byte else { throw .unexpectedByte(offset: offset) }
        offset += 1
    }

    mutating func expectLiteral(_ literal: StaticString) throws(StrictJSON.Failure) {
        let utf8 = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in utf8 { try expect(byte) }
    }

    mutating func readValue(depth: Int) throws(StrictJSON.Failure) -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        default: throw .unexpectedByte(offset: offset)
        }
    }

    /// A nested object: read as the top level is, then kept as a dictionary (the parser has
    /// already refused duplicate names, so no member is lost).
    mutating func readObject(depth: Int) throws(StrictJSON.Failure) -> JSONValue {
        .object(JSONMembers(members: try readMembers(depth: depth)).dictionary)
    }

    /// An object as a list, `depth` deep (the top level is 1). A second member of the same name is
    /// refused, the name compared as `String`s compare (canonical equivalence, as a dictionary's
    /// keys compare): stricter than bytes, so that no parser anywhere can read two spellings of
    /// one name as one member. Past a handful of members the names seen are kept in a set, so that
    /// a token of thousands of one-letter members costs no quadratic search.
    mutating func readMembers(depth: Int) throws(StrictJSON.Failure) -> [JSONMembers.Member] {
        guard depth <= maximumDepth else { throw .tooDeep }
        try expect(UInt8(ascii: "{"))
        var members: [JSONMembers.Member] = []
        members.reserveCapacity(8)
        var manyNames: Set<String>?
        var allNamesASCII = true
        // While every name is plain ASCII, where each was written: duplicates are found by
        // comparing those bytes, with no `String` comparison (there are at most 15 here).
        var nameBytes = InlineArray<16, Range<Int>>(repeating: 0..<0)
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            offset += 1
            return members
        }
        while true {
            skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else { throw .unexpectedByte(offset: offset) }
            let name = try readString()
            let nameIsASCII = lastStringWasASCII
            let nameRange = lastStringBytes
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let value = try readValue(depth: depth)
            if manyNames != nil {
                guard manyNames?.insert(name).inserted == true else { throw .duplicateName(name) }
            } else {
                // Between ASCII names canonical equivalence is byte equality, which is cheaper.
                allNamesASCII = allNamesASCII && nameIsASCII && nameRange != nil
                if allNamesASCII, let nameRange {
                    for index in 0..<members.count where sameBytes(nameBytes[index], nameRange) {
                        throw .duplicateName(name)
                    }
                    if members.count < nameBytes.count { nameBytes[members.count] = nameRange }
                } else {
                    for member in members where member.name == name { throw .duplicateName(name) }
                }
                if members.count == 15 { manyNames = Set(members.map(\.name) + [name]) }
            }
            members.append(JSONMembers.Member(name: name, value: value))
            skipWhitespace()
            let separator = try peek()
            offset += 1
            if separator == UInt8(ascii: "}") { return members }
            guard separator == UInt8(ascii: ",") else { throw .unexpectedByte(offset: offset - 1) }
        }
    }

    /// Whether two runs of the document hold the same bytes.
    func sameBytes(_ left: Range<Int>, _ right: Range<Int>) -> Bool {
        guard left.count == right.count, let base = bytes.baseAddress else { return false }
        return memcmp(base + left.lowerBound, base + right.lowerBound, left.count) == 0
    }

    mutating func readArray(depth: Int) throws(StrictJSON.Failure) -> JSONValue {
        guard depth <= maximumDepth else { throw .tooDeep }
        try expect(UInt8(ascii: "["))
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try readValue(depth: depth))
            skipWhitespace()
            let separator = try peek()
            offset += 1
            if separator == UInt8(ascii: "]") { return .array(elements) }
            guard separator == UInt8(ascii: ",") else { throw .unexpectedByte(offset: offset - 1) }
        }
    }

    mutating func readString() throws(StrictJSON.Failure) -> String {
        try expect(UInt8(ascii: "\""))
        // Fast path: most strings have no escape, so they are one run of (already validated)
        // UTF-8 up to the closing quote, made into a String in one step.
        let start = offset
        var highBits: UInt8 = 0
        // Eight bytes at a time while none of them is a quote, a backslash or a control
        // character (a claim like `iss` is dozens of plain bytes); the loop below finds which.
        let raw = UnsafeRawBufferPointer(bytes)
        var wideHighBits: UInt64 = 0
        while offset + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            guard !StringBytes.hasSpecialByte(word) else { break }
            wideHighBits |= word
            offset += 8
        }
        if wideHighBits & 0x8080_8080_8080_8080 != 0 { highBits = 0x80 }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                lastStringWasASCII = highBits & 0x80 == 0
                lastStringBytes = start..<offset - 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset - 1]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw .invalidString(offset: offset) }
            highBits |= byte
            offset += 1
        }
        guard offset < bytes.count else { throw .unexpectedEnd }
        // Escapes may spell any scalar: treated as not ASCII.
        lastStringWasASCII = false
        lastStringBytes = nil
        return try readEscapedString(prefix: bytes[start..<offset])
    }

    /// The slow path, from the first backslash on: runs of plain bytes and decoded escapes.
    mutating func readEscapedString(prefix: Slice<UnsafeBufferPointer<UInt8>>) throws(StrictJSON.Failure) -> String {
        var scalars = String.UnicodeScalarView()
        var run = Array(prefix)
        func flush() {
            guard !run.isEmpty else { return }
            scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            run.removeAll(keepingCapacity: true)
        }
        while true {
            let byte = try peek()
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                offset += 1
                scalars.append(try readEscape())
            case 0x00..<0x20:
                throw .invalidString(offset: offset)
            default:
                run.append(byte)
                offset += 1
            }
        }
    }

    mutating func readEscape() throws(StrictJSON.Failure) -> Unicode.Scalar {
        let byte = try peek()
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try readHex4()
            if (0xD800...0xDBFF).contains(first) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                    throw .invalidString(offset: offset)
                }
                offset += 2
                let second = try readHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw .invalidString(offset: offset) }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw .invalidString(offset: offset) }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw .invalidString(offset: offset) }
            return scalar
        default:
            throw .invalidString(offset: offset - 1)
        }
    }

    mutating func readHex4() throws(StrictJSON.Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try peek()
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .invalidString(offset: offset)
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, kept as text.
    mutating func readNumber() throws(StrictJSON.Failure) -> JSONNumber {
        let start = offset
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count else { throw .invalidNumber(offset: start) }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else {
            guard readDigits() > 0 else { throw .invalidNumber(offset: start) }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard readDigits() > 0 else { throw .invalidNumber(offset: start) }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard readDigits() > 0 else { throw .invalidNumber(offset: start) }
        }
        return JSONNumber(literal: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self))
    }

    mutating func readDigits() -> Int {
        let start = offset
        while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
        return offset - start
    }
}
