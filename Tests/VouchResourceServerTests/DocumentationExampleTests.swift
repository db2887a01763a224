import Foundation
import HummingbirdTesting
import NIOCore
import Testing
import VouchTestSupport

@Suite("The documentation's example")
struct DocumentationExampleTests {
    @Test("the article shows the example's code exactly")
    func articleMatchesExample() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = tests.deletingLastPathComponent().deletingLastPathComponent()
        let example = try String(contentsOf: tests.appendingPathComponent("DocumentationExample.swift"), encoding: .utf8)
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/VouchResourceServer/VouchResourceServer.docc/GettingStarted.md"), encoding: .utf8)
        let start = try #require(example.range(of: "// example-start\n"))
        let end = try #require(example.range(of: "// example-end\n"))
        let code = String(example[start.upperBound..<end.lowerBound])
        #expect(article.contains("```swift\n" + code + "```\n"))
    }

    @Test("the example serves a good token, refuses an ended session, and is ready once following")
    func exampleRuns() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock(Date().timeIntervalSince1970)
            let claims = vouch.claims(clock: clock)
            let token = vouch.signingKey.sign(claims: claims.dictionary)
            let app = makeChatService(vouchURL: vouch.url, serviceCredential: "vsc_test-credential", port: 0)
            try await app.test(.live) { client in
                try await eventually("the stream to open") { vouch.streamConnections.count == 1 }
                // The first request fetches the keys; on a loaded machine that fetch may time out, and
                // the example's verifier retries it after its retry interval.
                try await eventually("the keys to be fetched") {
                    try await client.execute(uri: "/rooms/lobby/messages", method: .get, headers: [.authorization: "Bearer \(token)"]) {
                        response in response.status != .serviceUnavailable
                    }
                }
                try await client.execute(uri: "/rooms/lobby/messages", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "the messages of lobby for alice")
                }
                try await client.execute(uri: "/health/ready", method: .get) { response in
                    #expect(response.status == .ok)
                }
                try await client.execute(uri: "/rooms/lobby/messages", method: .get) { response in
                    #expect(response.status == .unauthorized)
                }
                let ending = ["session_id": claims.sessionID.uuidString, "kind": "revoked", "actor": "operator"]
                vouch.sendEvent(id: 1, "session.ended", ending)
                let lastSent = Shared(ContinuousClock.now)
                try await eventually("the session to end") {
                    // A follower that reconnected since (its 45 s read timeout passes on a loaded
                    // machine: this fixture sends no keep-alive) missed it, and this fixture
                    // replays nothing as Vouch would: it is sent again, the same entry, each second.
                    if ContinuousClock.now - lastSent.value > .seconds(1) {
                        vouch.sendEvent(id: 1, "session.ended", ending)
                        lastSent.set(ContinuousClock.now)
                    }
                    return try await client.execute(uri: "/rooms/lobby/messages", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                        response.status == .unauthorized
                    }
                }
                vouch.hangUp()
            }
        }
    }
}
