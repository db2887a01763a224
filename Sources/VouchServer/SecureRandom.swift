/// Bytes from the system CSPRNG, for every secret the server or the CLI makes (session tokens,
/// nonces, registration secrets, the admin token).
///
/// Eight bytes per draw from `SystemRandomNumberGenerator` (one `getrandom(2)` each on Linux), as
/// swift-crypto fills its own keys: `UInt8.random(using:)` drew a whole word per byte, 32 system
/// calls for a session token, which was a twentieth of a sign-in's CPU.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var generator = SystemRandomNumberGenerator()
            var filled = 0
            while filled < count {
                withUnsafeBytes(of: generator.next()) { word in
                    let take = min(word.count, count - filled)
                    for index in 0..<take { buffer[filled + index] = word[index] }
                    filled += take
                }
            }
            initialized = count
        }
    }
}
