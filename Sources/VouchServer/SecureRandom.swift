/// Bytes from the system CSPRNG, for every secret the server or the CLI makes (session tokens,
/// nonces, registration secrets, the admin token).
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
