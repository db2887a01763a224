import Crypto
import Foundation
import Testing
import VouchTokens
import _CryptoExtras

/// A hex member of a Wycheproof test case as bytes.
func hexField(_ test: [String: Any], _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
    let text = try #require(test[name] as? String, "member \(name)", sourceLocation: sourceLocation)
    return try #require([UInt8](hex: text), "member \(name) is not hex", sourceLocation: sourceLocation)
}

/// Project Wycheproof vectors through the exact primitives the verifier calls (`RS256.isValid`,
/// `HS256.isValid`).
@Suite("Wycheproof")
struct WycheproofTests {
    @Test(
        "RSASSA-PKCS1-v1_5 SHA-256: valid accepted, invalid and acceptable rejected",
        arguments: [
            "rsa_signature_2048_sha256_test.json", "rsa_signature_3072_sha256_test.json",
            "rsa_signature_4096_sha256_test.json",
        ])
    func rsaSignatures(file: String) throws {
        let document = try Vectors.json("wycheproof/" + file)
        let groups = try #require(document["testGroups"] as? [[String: Any]])
        var counts: [String: Int] = [:]
        for group in groups {
            let derHex = try #require(group["publicKeyDer"] as? String)
            let der = try #require([UInt8](hex: derHex))
            let key = try _RSA.Signing.PublicKey(unsafeDERRepresentation: der)
            // The PEM spelling of the same group names the same key.
            if let pem = group["publicKeyPem"] as? String {
                let fromPEM = try _RSA.Signing.PublicKey(unsafePEMRepresentation: pem)
                #expect(fromPEM.derRepresentation == key.derRepresentation)
            }
            #expect(key.keySizeInBits == group["keySize"] as? Int)
            let tests = try #require(group["tests"] as? [[String: Any]])
            for test in tests {
                let id = test["tcId"] as? Int ?? -1
                let comment = test["comment"] as? String ?? ""
                let result = try #require(test["result"] as? String)
                let message = try hexField(test, "msg")
                let signature = try hexField(test, "sig")
                let accepted = RS256.isValid(signature: signature, for: message, publicKey: key)
                switch result {
                case "valid":
                    #expect(accepted, "\(file) tcId \(id) (\(comment)) is valid but was rejected")
                case "invalid", "acceptable":
                    // `acceptable` (e.g. a DigestInfo without the NULL parameter) is must-reject for JWS.
                    #expect(!accepted, "\(file) tcId \(id) (\(comment)) is \(result) but was accepted")
                default:
                    Issue.record("\(file) tcId \(id): unknown result \(result)")
                }
                counts[result, default: 0] += 1
            }
        }
        let total = counts.values.reduce(0, +)
        print("Wycheproof \(file): \(total) cases (\(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))")
        #expect(total > 0)
        #expect(counts["valid", default: 0] > 0)
        #expect(counts["invalid", default: 0] > 0)
        if let declared = document["numberOfTests"] as? Int { #expect(total == declared) }
    }

    @Test("HMAC-SHA256 with 256-bit tags: valid accepted, invalid rejected")
    func hmacSHA256() throws {
        let file = "hmac_sha256_test.json"
        let document = try Vectors.json("wycheproof/" + file)
        let groups = try #require(document["testGroups"] as? [[String: Any]])
        var counts: [String: Int] = [:]
        var skippedGroups = 0
        for group in groups {
            guard group["tagSize"] as? Int == 256 else {
                skippedGroups += 1
                continue
            }
            let tests = try #require(group["tests"] as? [[String: Any]])
            for test in tests {
                let id = test["tcId"] as? Int ?? -1
                let comment = test["comment"] as? String ?? ""
                let result = try #require(test["result"] as? String)
                let key = SymmetricKey(data: try hexField(test, "key"))
                let message = try hexField(test, "msg")
                let tag = try hexField(test, "tag")
                let accepted = HS256.isValid(tag: tag, for: message, key: key)
                switch result {
                case "valid": #expect(accepted, "\(file) tcId \(id) (\(comment)) is valid but was rejected")
                case "invalid": #expect(!accepted, "\(file) tcId \(id) (\(comment)) is invalid but was accepted")
                default: Issue.record("\(file) tcId \(id): unexpected result \(result) for HMAC")
                }
                counts[result, default: 0] += 1
            }
        }
        let total = counts.values.reduce(0, +)
        print(
            "Wycheproof \(file): \(total) cases with 256-bit tags (valid \(counts["valid", default: 0]), invalid \(counts["invalid", default: 0])); \(skippedGroups) groups with other tag sizes skipped"
        )
        #expect(total > 0)
        #expect(counts["valid", default: 0] > 0)
        #expect(counts["invalid", default: 0] > 0)
    }
}
