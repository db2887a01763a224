import Testing
@testable import VouchServer

@Suite("SecureRandom")
struct SecureRandomTests {
    @Test("every length is filled whole, past getrandom's 256-byte unit too", arguments: [0, 1, 7, 8, 9, 31, 32, 33, 255, 256, 257, 4096])
    func lengths(_ count: Int) {
        let first = SecureRandom.bytes(count), second = SecureRandom.bytes(count)
        #expect(first.count == count && second.count == count)
        if count >= 16 {
            #expect(first != second)
            // A buffer left unfilled past some point would end in zeros.
            #expect(first.suffix(16).contains { $0 != 0 } && second.suffix(16).contains { $0 != 0 })
        }
    }

    @Test("bytes are spread over every value (a loose uniformity check over 256 KiB)")
    func spread() {
        var counts = [Int](repeating: 0, count: 256)
        for byte in SecureRandom.bytes(256 * 1024) { counts[Int(byte)] += 1 }
        // 1024 expected per value; a fair source stays far inside these bounds (over 10 sigma).
        #expect(counts.allSatisfy { (700...1350).contains($0) }, "\(counts.min()!)…\(counts.max()!)")
    }

    @Test("the fallback fills every byte as well")
    func fallback() {
        for count in [0, 1, 8, 13, 64] {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
            defer { buffer.deallocate() }
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            SecureRandom.fillFromStandardLibrary(buffer)
            if count >= 8 { #expect(buffer.suffix(4).contains { $0 != 0 } || buffer.prefix(4).contains { $0 != 0 }) }
        }
    }
}
