/// Base64url without padding (RFC 7515 §2), decoded strictly.
///
/// Strict means one spelling per byte string: no padding, no `+` or `/`, no white space, and the
/// unused bits of the last character must be zero. Lenient decoders accept several spellings of
/// one token, which lets an attacker make "different" tokens out of one signature (and defeats
/// any cache or replay check keyed by the token's text).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks a byte outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// Inlinable so that a caller in another module gets it specialised for its sequence (a
    /// buffer, an array) instead of calling the generic code through run-time metadata.
    @inlinable
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable(encode(buffer:)) { return encoded }
        return Array(bytes).withUnsafeBufferPointer(encode(buffer:))
    }

    /// Straight into the string's own storage: no intermediate array.
    @usableFromInline
    static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> String {
        let outputCount = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: outputCount) { output in
            alphabet.withUnsafeBufferPointer { alphabet in
                var index = 0, written = 0
                while index + 3 <= input.count {
                    let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                    output[written] = alphabet[Int(chunk >> 18 & 63)]
                    output[written + 1] = alphabet[Int(chunk >> 12 & 63)]
                    output[written + 2] = alphabet[Int(chunk >> 6 & 63)]
                    output[written + 3] = alphabet[Int(chunk & 63)]
                    index += 3
                    written += 4
                }
                switch input.count - index {
                case 1:
                    let chunk = UInt32(input[index]) << 16
                    output[written] = alphabet[Int(chunk >> 18 & 63)]
                    output[written + 1] = alphabet[Int(chunk >> 12 & 63)]
                    written += 2
                case 2:
                    let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                    output[written] = alphabet[Int(chunk >> 18 & 63)]
                    output[written + 1] = alphabet[Int(chunk >> 12 & 63)]
                    output[written + 2] = alphabet[Int(chunk >> 6 & 63)]
                    written += 3
                default:
                    break
                }
                return written
            }
        }
    }

    /// Decodes canonical base64url, or returns `nil` for any other spelling. The empty string
    /// decodes to no bytes.
    public static func decodeCanonical(_ text: some Collection<UInt8>) -> [UInt8]? {
        if let decoded = text.withContiguousStorageIfAvailable({ decode($0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decode($0) }
    }

    /// Decodes canonical base64url into temporary storage (on the stack when it is small enough)
    /// for `body`, or returns `nil` for any other spelling: for the token parts that are parsed
    /// and then dropped, so that they cost no allocation.
    public static func withDecodedCanonical<Answer>(
        _ input: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>) -> Answer
    ) -> Answer? {
        guard let outputCount = decodedCount(input.count) else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: outputCount) { buffer -> Answer? in
            guard decode(input, into: buffer) else { return nil }
            return body(UnsafeBufferPointer(buffer))
        }
    }

    private static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let outputCount = decodedCount(input.count) else { return nil }
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            valid = decode(input, into: buffer)
            initialized = valid ? outputCount : 0
        }
        return valid ? output : nil
    }

    /// How many bytes `count` characters decode to; `nil` for a length no canonical spelling has.
    private static func decodedCount(_ count: Int) -> Int? {
        let tail = count % 4
        guard tail != 1 else { return nil }
        return count / 4 * 3 + (tail == 0 ? 0 : tail - 1)
    }

    /// Four characters at a time into three bytes, into `buffer` (exactly `decodedCount` bytes);
    /// `false` for any non-canonical spelling. Every token part goes through here, so it works on
    /// raw buffers rather than through a generic iterator.
    private static func decode(_ input: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let count = input.count
        let tail = count % 4
        return decodeTable.withUnsafeBufferPointer { table -> Bool in
            var read = 0, written = 0
            while read + 4 <= count {
                let a = table[Int(input[read])], b = table[Int(input[read + 1])]
                let c = table[Int(input[read + 2])], d = table[Int(input[read + 3])]
                // 0xFF marks a byte outside the alphabet; every valid value is below 64.
                guard (a | b | c | d) & 0xC0 == 0 else { return false }
                let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                buffer[written] = UInt8(truncatingIfNeeded: chunk >> 16)
                buffer[written + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                buffer[written + 2] = UInt8(truncatingIfNeeded: chunk)
                read += 4
                written += 3
            }
            guard tail >= 2 else { return true }
            let a = table[Int(input[read])], b = table[Int(input[read + 1])]
            let c = tail == 3 ? table[Int(input[read + 2])] : 0
            // The unused low bits of the last character must be zero: one spelling per value.
            let unusedBits: UInt8 = tail == 2 ? b & 0x0F : c & 0x03
            guard (a | b | c) & 0xC0 == 0, unusedBits == 0 else { return false }
            let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
            buffer[written] = UInt8(truncatingIfNeeded: chunk >> 16)
            if tail == 3 { buffer[written + 1] = UInt8(truncatingIfNeeded: chunk >> 8) }
            return true
        }
    }

    public static func decodeCanonical(_ text: String) -> [UInt8]? {
        // The string's own UTF-8 where it lies (a native string's is contiguous): no copy first.
        decodeCanonical(text.utf8)
    }
}
