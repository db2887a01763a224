#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes from the system CSPRNG, for every secret the server or the CLI makes (session tokens,
/// nonces, registration secrets, the admin token).
///
/// One `getrandom(2)` for the whole buffer on Linux. `SystemRandomNumberGenerator` makes one
/// system call per eight bytes (the kernel's CSPRNG state set up each time): four per session
/// token and four per nonce, where one does. `arc4random_buf` on Apple platforms, which is their
/// CSPRNG and makes no system call.
package enum SecureRandom {
    package static func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// Fills `buffer` entirely.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Glibc)
            var filled = 0
            while filled < buffer.count, let base = buffer.baseAddress {
                // Up to 256 bytes come whole; a signal may interrupt a longer read part way.
                let read = systemGetRandom(base + filled, buffer.count - filled, 0)
                if read > 0 {
                    filled += read
                } else if read < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            // A kernel without getrandom(2) (before 3.17): the standard library's generator, which
            // reads the same CSPRNG another way.
            if filled < buffer.count { fillFromStandardLibrary(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) }
        #elseif canImport(Darwin)
            if let base = buffer.baseAddress { arc4random_buf(base, buffer.count) }
        #else
            fillFromStandardLibrary(buffer)
        #endif
    }

    #if canImport(Glibc)
        /// glibc's `getrandom` (2.25 and later), which Swift's Glibc module does not import.
        @_silgen_name("getrandom")
        private static func systemGetRandom(_ buffer: UnsafeMutableRawPointer, _ count: Int, _ flags: UInt32) -> Int
    #endif

    static func fillFromStandardLibrary(_ buffer: UnsafeMutableRawBufferPointer) {
        var generator = SystemRandomNumberGenerator()
        var filled = 0
        while filled < buffer.count {
            withUnsafeBytes(of: generator.next()) { word in
                let take = min(word.count, buffer.count - filled)
                for index in 0..<take { buffer[filled + index] = word[index] }
                filled += take
            }
        }
    }
}
