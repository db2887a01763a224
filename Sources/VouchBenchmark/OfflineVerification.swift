import Foundation
import VouchResourceServer

/// What a service pays to verify a Vouch access token offline with `VouchResourceServer`
/// (docs/PERFORMANCE.md, "Access tokens"): the token of a running `vouch serve`, its keys fetched
/// from that server's JWKS once, then the same token verified over and over, as a service sees
/// one user's requests. CPU a verification, to hold against the server's CPU for one
/// `GET /users/me`.
enum OfflineVerification {
    static func run(server: String, tokenFile: String, seconds: Double) async throws {
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let audience = claim("aud", of: token) else { throw BenchmarkError("\(tokenFile) holds no access token") }
        let verifier = AccessTokenVerifier(issuer: server, audience: audience)
        _ = try await verifier.verify(token)
        let cached = try await Measurement.run("service: verify a token seen before", seconds: seconds, batch: 100) {
            for _ in 0..<100 { _ = try await verifier.verify(token) }
        }
        print(cached.line)
        print("offline verification (cache hit) = \(String(format: "%.2f", cached.cpuMicros)) µs CPU")
    }

    /// A claim of a token, read without verifying it (the benchmark pins what it reads).
    static func claim(_ name: String, of token: String) -> String? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return nil
        }
        return object[name] as? String
    }
}
