/// An RFC 8259 parser for token headers, claims, key sets and ending entries that refuses what
/// Foundation's decoders let by.
///
/// Foundation keeps one of two members with the same name, so `{"sub":"a","sub":"b"}` could mean
/// different users to different parsers; this parser refuses duplicates, invalid UTF-8, unescaped
/// control characters, lone surrogates, trailing bytes, and nesting deeper than `maximumDepth`
/// (so a deep document is an error, not a stack overflow).
struct StrictJSON {
    struct Failure: Error {}

    let maximumDepth: Int

    init(maximumDepth: Int = 16) {
        self.maximumDepth = maximumDepth
    }

    /// One JSON object: the only top-level value these documents have.
    func parseObject(_ bytes: [UInt8]) throws(Failure) -> [String: JSONValue] {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw Failure() }
        var reader = Reader(bytes: bytes, maximumDepth: maximumDepth)
        reader.skipWhitespace()
        guard case .object(let members) = try reader.readValue(depth: 0) else { throw Failure() }
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw Failure() }
        return members
    }
}

private struct Reader {
    let bytes: [UInt8]
    var index = 0
    let maximumDepth: Int

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
            index += 1
        }
    }

    private func peek() throws(StrictJSON.Failure) -> UInt8 {
        guard index < bytes.count else { throw StrictJSON.Failure() }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws(StrictJSON.Failure) {
        guard try peek() == byte else { throw StrictJSON.Failure() }
        index += 1
    }

    mutating func readValue(depth: Int) throws(StrictJSON.Failure) -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "{"): return .object(try readObject(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try readArray(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return .null
        default: return .number(try readNumber())
        }
    }

    private mutating func readLiteral(_ literal: StaticString) throws(StrictJSON.Failure) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw StrictJSON.Failure() }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { throw StrictJSON.Failure() }
        index += count
    }

    private mutating func readObject(depth: Int) throws(StrictJSON.Failure) -> [String: JSONValue] {
        guard depth <= maximumDepth else { throw StrictJSON.Failure() }
        try expect(UInt8(ascii: "{"))
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            skipWhitespace()
            let name = try readString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let value = try readValue(depth: depth)
            guard members.updateValue(value, forKey: name) == nil else { throw StrictJSON.Failure() }
            skipWhitespace()
            let separator = try peek()
            index += 1
            if separator == UInt8(ascii: "}") { return members }
            guard separator == UInt8(ascii: ",") else { throw StrictJSON.Failure() }
        }
    }

    private mutating func readArray(depth: Int) throws(StrictJSON.Failure) -> [JSONValue] {
        guard depth <= maximumDepth else { throw StrictJSON.Failure() }
        try expect(UInt8(ascii: "["))
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try readValue(depth: depth))
            skipWhitespace()
            let separator = try peek()
            index += 1
            if separator == UInt8(ascii: "]") { return elements }
            guard separator == UInt8(ascii: ",") else { throw StrictJSON.Failure() }
        }
    }

    /// The document was validated as UTF-8 up front, so runs of bytes are copied as they are;
    /// escapes are decoded to UTF-8, surrogate pairs joined and lone surrogates refused.
    private mutating func readString() throws(StrictJSON.Failure) -> String {
        try expect(UInt8(ascii: "\""))
        var output: [UInt8] = []
        while true {
            let byte = try peek()
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                let escaped = try peek()
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = UInt32(try readHex4())
                    if (0xD800...0xDBFF).contains(scalar) {
                        try expect(UInt8(ascii: "\\"))
                        try expect(UInt8(ascii: "u"))
                        let low = UInt32(try readHex4())
                        guard (0xDC00...0xDFFF).contains(low) else { throw StrictJSON.Failure() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw StrictJSON.Failure() }
                    output.append(contentsOf: String(Character(unicode)).utf8)
                default: throw StrictJSON.Failure()
                }
            default:
                guard byte >= 0x20 else { throw StrictJSON.Failure() }
                output.append(byte)
            }
        }
    }

    private mutating func readHex4() throws(StrictJSON.Failure) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = try peek()
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw StrictJSON.Failure()
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as its text.
    private mutating func readNumber() throws(StrictJSON.Failure) -> String {
        let start = index
        if try peek() == UInt8(ascii: "-") { index += 1 }
        if try peek() == UInt8(ascii: "0") {
            index += 1
        } else {
            guard readDigits() > 0 else { throw StrictJSON.Failure() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard readDigits() > 0 else { throw StrictJSON.Failure() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard readDigits() > 0 else { throw StrictJSON.Failure() }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func readDigits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }
}
