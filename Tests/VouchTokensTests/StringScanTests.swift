import Testing
import VouchProtocol
@testable import VouchTokens

/// The string scanner reads eight bytes at a time until one of them is special; these hold it to
/// the byte-by-byte definition, and the parser's answers to the byte-by-byte parser's.
@Suite("StrictJSON: strings read eight bytes at a time")
struct StringScanTests {
    static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
    }

    static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    @Test("every byte value at every position of an otherwise plain word")
    func everyByteEverywhere() {
        for filler in [UInt8(ascii: "a"), 0x20, 0x7F, 0x80, 0xFF] {
            for position in 0..<8 {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[position] = UInt8(value)
                    #expect(
                        StringBytes.hasSpecialByte(Self.word(bytes)) == Self.isSpecial(UInt8(value)),
                        "filler \(filler), byte \(value) at \(position)")
                }
            }
        }
    }

    @Test("random words, special bytes rare and common, against the byte-by-byte answer")
    func randomWords() {
        var generator = SystemRandomNumberGenerator()
        let pool: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]
        for round in 0..<200_000 {
            let bytes = (0..<8).map { _ in
                round % 2 == 0 ? UInt8.random(in: 0...255, using: &generator) : pool.randomElement(using: &generator)!
            }
            #expect(StringBytes.hasSpecialByte(Self.word(bytes)) == bytes.contains(where: Self.isSpecial), "\(bytes)")
        }
    }

    @Test("a quote, an escape or a control character at any offset of a long string")
    func specialAtEveryOffset() throws {
        for length in 0..<40 {
            for position in 0...length {
                let plain = String(repeating: "x", count: length)
                let before = String(plain.prefix(position)), after = String(plain.dropFirst(position))
                // An escape anywhere decodes.
                let escaped = try StrictJSON().parseMembers(Array(#"{"a":"\#(before)\n\#(after)"}"#.utf8))
                #expect(escaped["a"] == .string(before + "\n" + after))
                // A raw control character is refused at its own offset (`{"a":"` is six bytes).
                #expect(throws: StrictJSON.Failure.invalidString(offset: 6 + position)) {
                    try StrictJSON().parseMembers(Array(#"{"a":"\#(before)"#.utf8) + [0x09] + Array(#"\#(after)"}"#.utf8))
                }
                // The closing quote ends it wherever it falls.
                let plainMembers = try StrictJSON().parseMembers(Array(#"{"\#(plain)":"\#(plain)"}"#.utf8))
                #expect(plainMembers[plain] == .string(plain))
            }
        }
    }

    @Test("non-ASCII behind a run of plain bytes still makes a name non-ASCII (KELVIN SIGN is K)")
    func nonASCIIPastTheFirstWord() {
        for prefix in ["", "a", "aaaaaaa", "aaaaaaaa", "aaaaaaaaaaaaaaaaa"] {
            for suffix in ["", "b", "bbbbbbbbb"] {
                let kelvin = prefix + "\u{212A}" + suffix, k = prefix + "K" + suffix
                #expect(throws: StrictJSON.Failure.duplicateName(k), "\(prefix)…\(suffix)") {
                    try StrictJSON().parseMembers(Array("{\"\(kelvin)\":1,\"\(k)\":2}".utf8))
                }
                #expect(throws: StrictJSON.Failure.duplicateName(kelvin), "\(prefix)…\(suffix)") {
                    try StrictJSON().parseMembers(Array("{\"\(k)\":1,\"\(kelvin)\":2}".utf8))
                }
            }
        }
    }

    @Test("duplicates among plain names found by their bytes, escaped ones by their text")
    func duplicatesByBytes() {
        #expect(throws: StrictJSON.Failure.duplicateName("iss")) {
            try StrictJSON().parseMembers(Array(#"{"iss":1,"sub":2,"iat":3,"iss":4}"#.utf8))
        }
        // The value before an escaped name is not taken for the name.
        #expect(throws: StrictJSON.Failure.duplicateName("iss")) {
            try StrictJSON().parseMembers(Array(#"{"iss":"x","a":"iss","i\u0073s":2}"#.utf8))
        }
        #expect(throws: Never.self) {
            try StrictJSON().parseMembers(Array(#"{"iss":"sub","sub":"iss","is":1,"issu":2}"#.utf8))
        }
    }
}
