import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchTokens
import _CryptoExtras

/// The published JWS examples (RFC 7515 App. A, RFC 7520 §4) through `HS256.isValid` / `RS256.isValid`.
@Suite("RFC JWS examples")
struct RFCExampleTests {
    struct Example {
        let id: String
        let alg: String
        let key: [String: Any]
        let signingInput: [UInt8]
        let signature: [UInt8]
    }

    static func example(_ id: String) throws -> Example {
        let document = try Vectors.json("jose-rfc-examples.json")
        let vectors = try #require(document["vectors"] as? [[String: Any]])
        let vector = try #require(vectors.first { $0["id"] as? String == id }, "no vector \(id)")
        let compact = try #require(vector["compact"] as? String)
        let parts = JWS.parts(compact)
        try #require(parts.count == 3)
        return Example(
            id: id, alg: try #require(vector["alg"] as? String), key: try #require(vector["key"] as? [String: Any]),
            // The signing input is the base64url text as received, never a re-serialisation.
            signingInput: Array((parts[0] + "." + parts[1]).utf8),
            signature: try #require(foundationBase64URLDecode(parts[2])))
    }

    static func keyMember(_ key: [String: Any], _ name: String) throws -> [UInt8] {
        let text = try #require(key[name] as? String, "JWK member \(name)")
        return try #require(foundationBase64URLDecode(text), "JWK member \(name)")
    }

    /// Checks the example's signature with the primitive its `alg` names.
    static func verifies(_ example: Example, signature: [UInt8], input: [UInt8]? = nil) throws -> Bool {
        let message = input ?? example.signingInput
        switch example.alg {
        case "HS256":
            return HS256.isValid(tag: signature, for: message, key: SymmetricKey(data: try keyMember(example.key, "k")))
        case "RS256":
            let publicKey = try _RSA.Signing.PublicKey(n: try keyMember(example.key, "n"), e: try keyMember(example.key, "e"))
            return RS256.isValid(signature: signature, for: message, publicKey: publicKey)
        default:
            Issue.record("unexpected alg \(example.alg)")
            return false
        }
    }

    @Test(
        "signature verifies; one flipped bit of the signature or of the input does not",
        arguments: ["rfc7515-A.1-HS256", "rfc7515-A.2-RS256", "rfc7520-4.1-RS256", "rfc7520-4.4-HS256"])
    func signatureVerifies(id: String) throws {
        let example = try Self.example(id)
        #expect(example.signature.count == (example.alg == "HS256" ? 32 : 256))
        #expect(try Self.verifies(example, signature: example.signature))

        for bit in [0, 7, example.signature.count * 8 - 1] {
            var flipped = example.signature
            flipped[bit / 8] ^= UInt8(1 << (bit % 8))
            #expect(try !Self.verifies(example, signature: flipped), "\(id): signature with bit \(bit) flipped accepted")
        }
        var input = example.signingInput
        input[input.count / 2] ^= 0x01
        #expect(try !Self.verifies(example, signature: example.signature, input: input), "\(id): altered input accepted")
        #expect(try !Self.verifies(example, signature: Array(example.signature.dropLast())), "\(id): truncated signature accepted")
        #expect(try !Self.verifies(example, signature: []), "\(id): empty signature accepted")
    }

    @Test("RFC 7515 A.2: re-signing with the JWK's private key reproduces the published signature")
    func rs256IsDeterministic() throws {
        let example = try Self.example("rfc7515-A.2-RS256")
        let key = example.key
        let privateKey = try _RSA.Signing.PrivateKey(
            n: try Self.keyMember(key, "n"), e: try Self.keyMember(key, "e"), d: try Self.keyMember(key, "d"),
            p: try Self.keyMember(key, "p"), q: try Self.keyMember(key, "q"))
        #expect(try RS256.sign(example.signingInput, privateKey: privateKey) == example.signature)
    }

    @Test("RFC 7515 A.1: HS256.sign reproduces the published tag")
    func hs256Sign() throws {
        let example = try Self.example("rfc7515-A.1-HS256")
        let key = SymmetricKey(data: try Self.keyMember(example.key, "k"))
        #expect(HS256.sign(example.signingInput, key: key) == example.signature)
    }

    @Test("RFC 7515 A.5 (alg none, empty signature) is refused by the verifier")
    func unsecuredExampleRefused() async throws {
        let document = try Vectors.json("jose-rfc-examples.json")
        let vectors = try #require(document["vectors"] as? [[String: Any]])
        let compact = try #require(vectors.first { $0["id"] as? String == "rfc7515-A.5-none" }?["compact"] as? String)
        let rejection = await rejection(of: compact, appID: LayerWorld.appID, context: LayerWorld.context(), now: 1_300_000_000)
        // No `cty` and an `iss` outside `layer:///`: judged as an ID token (§8.18), whose first
        // missing header parameter is `kid`.
        #expect(rejection?.reason == .headerParamNotFound)
        #expect(rejection?.param == "kid")
    }
}
