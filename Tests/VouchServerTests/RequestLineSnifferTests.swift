import Testing
@testable import VouchServer

/// The sniffer reads line by line; what it concludes must be what reading byte by byte concludes,
/// however the bytes are split across reads.
@Suite("Request-line sniffer")
struct RequestLineSnifferTests {
    /// The rule, byte by byte: a line is a request line if a space comes before any colon; the
    /// verdict of the most recent line to pass `longLine` bytes is what counts.
    static func reference(_ bytes: [UInt8], longLine: Int) -> Bool {
        var length = 0, isRequestLine: Bool?, last = false
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                length = 0
                isRequestLine = nil
                continue
            }
            length += 1
            if isRequestLine == nil {
                if byte == UInt8(ascii: " ") { isRequestLine = true } else if byte == UInt8(ascii: ":") { isRequestLine = false }
            }
            if length == longLine + 1 { last = isRequestLine ?? false }
        }
        return last
    }

    @Test("random traffic in random pieces: the same verdict as byte by byte")
    func matchesReference() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = Array("ab: \n\r{}".utf8)
        for round in 0..<2_000 {
            let longLine = Int.random(in: 0...12, using: &generator)
            let bytes = (0..<Int.random(in: 0...80, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let sniffer = RequestLineSniffer(longLine: longLine)
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int.random(in: 1...9, using: &generator))
                bytes[start..<end].withUnsafeBytes { sniffer.observe($0) }
                start = end
            }
            #expect(
                sniffer.lastLongLineWasRequestLine == Self.reference(bytes, longLine: longLine),
                "round \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription), long line \(longLine)")
        }
    }

    @Test("a long request line and a long header line, each split over reads")
    func longLines() {
        let sniffer = RequestLineSniffer(longLine: 8)
        for piece in ["GET /aaaa", "aaaaaaa HTTP/1.1\r\n"] { Array(piece.utf8).withUnsafeBytes { sniffer.observe($0) } }
        #expect(sniffer.lastLongLineWasRequestLine)
        for piece in ["X-Long", ": yyyyyyyyyy\r\n"] { Array(piece.utf8).withUnsafeBytes { sniffer.observe($0) } }
        #expect(!sniffer.lastLongLineWasRequestLine)
    }
}
