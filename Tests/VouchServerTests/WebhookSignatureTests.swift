import Crypto
import Foundation
import Testing
import VouchTestSupport

@testable import VouchServer

/// A delivery's signature checks out with the documented Python receiver (the standard library's
/// hmac, independent of swift-crypto) and with the server's own check, and nothing else does.
@Suite("Webhook signatures: HMAC-SHA256 of <t>.<body>, checked the documented way")
struct WebhookSignatureTests {
    static let secret = "whsec_Qx3v9Jp2mLr8TbZ0cYw4Nd6Fh1Kg7Us5Ae_Vo-Ri"
    static let body = #"{"id":"evt_1","type":"session.ended","data":{"user_id":"ünïcode \"quoted\""}}"#
    static let sentAt: Int64 = 1_795_000_000

    static func python(header: String, body: String, secret: String = secret, now: Int64 = sentAt + 10) async throws -> Int32 {
        let script = PyJWT.packageRoot.appendingPathComponent("scripts/verify_webhook.py").path
        let result = try await ChildProcess.run(
            executable: "/usr/bin/env", arguments: ["python3", script, "--secret", secret, "--header", header, "--now", String(now)],
            standardInput: body)
        guard case .exited(let status) = result.termination else { return -1 }
        return status
    }

    @Test("the header is t=<seconds>,v1=<64 hex digits>, and both checks accept it")
    func accepted() async throws {
        let header = WebhookSignature.header(body: Array(Self.body.utf8), secret: Self.secret, timestamp: Self.sentAt)
        #expect(header.hasPrefix("t=\(Self.sentAt),v1="))
        #expect(header.count == "t=\(Self.sentAt),v1=".count + 64)
        #expect(WebhookSignature.verify(header: header, body: Array(Self.body.utf8), secret: Self.secret, now: Self.sentAt + 10))
        #expect(try await Self.python(header: header, body: Self.body) == 0)
        #expect(SwiftReceiver.verify(header: header, body: Data(Self.body.utf8), secret: Self.secret, now: Self.sentAt + 10))
        // A receiver holding two secrets while one is rotated: any v1 that matches.
        let rotated = header + ",v1=" + String(repeating: "0", count: 64)
        #expect(try await Self.python(header: rotated, body: Self.body) == 0)
        #expect(WebhookSignature.verify(header: rotated, body: Array(Self.body.utf8), secret: Self.secret, now: Self.sentAt))
    }

    @Test("a changed body, another secret, a stale or future time, or a mangled header is refused by both checks")
    func refused() async throws {
        let header = WebhookSignature.header(body: Array(Self.body.utf8), secret: Self.secret, timestamp: Self.sentAt)
        let cases: [(header: String, body: String, secret: String, now: Int64)] = [
            (header, Self.body + " ", Self.secret, Self.sentAt),
            (header, Self.body, Self.secret + "x", Self.sentAt),
            (header, Self.body, Self.secret, Self.sentAt + WebhookSignature.toleranceSeconds + 1),
            (header, Self.body, Self.secret, Self.sentAt - WebhookSignature.toleranceSeconds - 1),
            (header.replacingOccurrences(of: "t=\(Self.sentAt)", with: "t=\(Self.sentAt + 1)"), Self.body, Self.secret, Self.sentAt),
            (header.replacingOccurrences(of: "v1=", with: "v0="), Self.body, Self.secret, Self.sentAt),
            ("", Self.body, Self.secret, Self.sentAt),
        ]
        for (index, refused) in cases.enumerated() {
            #expect(
                !WebhookSignature.verify(header: refused.header, body: Array(refused.body.utf8), secret: refused.secret, now: refused.now),
                "case \(index)")
            #expect(try await Self.python(header: refused.header, body: refused.body, secret: refused.secret, now: refused.now) == 1, "case \(index)")
            #expect(
                !SwiftReceiver.verify(header: refused.header, body: Data(refused.body.utf8), secret: refused.secret, now: refused.now),
                "case \(index)")
        }
    }

    @Test("docs/PROTOCOL.md §8.17 prints the very receiver checks these tests run, in Python and in Swift")
    func documentedChecksAreTheTestedOnes() throws {
        let root = PyJWT.packageRoot
        let protocolText = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        let swiftSource = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try #require(swiftSource.range(of: "// docs:webhook-check-swift:" + "begin\n"))
        let end = try #require(swiftSource.range(of: "    // docs:webhook-check-swift:" + "end"))
        let swiftLines = swiftSource[begin.upperBound..<end.lowerBound].split(separator: "\n").map { $0.dropFirst(4) }
        let pythonSource = try String(contentsOf: root.appendingPathComponent("scripts/verify_webhook.py"), encoding: .utf8)
        let pythonFunction = try #require(pythonSource.range(of: "def verify(")).lowerBound
        let pythonEnd = try #require(pythonSource.range(of: "\n\n\ndef main")).lowerBound
        let pythonLines = pythonSource[pythonFunction..<pythonEnd].split(separator: "\n")
        #expect(swiftLines.count >= 10 && pythonLines.count >= 7)
        for line in swiftLines + pythonLines {
            let printed = protocolText.contains(line)
            #expect(printed, "PROTOCOL.md lacks: \(line)")
        }
    }
}

/// The Swift receiver's check exactly as docs/PROTOCOL.md §8.17 prints it (swift-crypto or
/// CryptoKit only), so the documented lines are the tested ones.
enum SwiftReceiver {
    // docs:webhook-check-swift:begin
    static func verify(header: String, body: Data, secret: String, now: Int64) -> Bool {
        let parts = header.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }.filter { $0.count == 2 }
        let times = parts.filter { $0[0] == "t" }.map { $0[1] }
        guard times.count == 1, let t = Int64(times[0]), abs(now - t) <= 300 else { return false }
        let key = SymmetricKey(data: Data(secret.utf8))
        let signed = Data("\(times[0]).".utf8) + body
        return parts.filter { $0[0] == "v1" }.contains { candidate in
            let hex = Array(candidate[1].utf8)
            guard hex.count == 64 else { return false }
            let bytes = stride(from: 0, to: 64, by: 2).compactMap { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16) }
            return bytes.count == 32 && HMAC<SHA256>.isValidAuthenticationCode(bytes, authenticating: signed, using: key)
        }
    }
    // docs:webhook-check-swift:end
}
