import Foundation
import Logging
import Testing
import VouchResourceServer

/// Runs a follower of `vouch`'s stream into `verifier` while `body` runs.
func following<Value: Sendable>(
    _ vouch: TestVouch, _ verifier: AccessTokenVerifier, credential: String = "vsc_test-credential",
    _ body: @Sendable (SessionEndingsFollower) async throws -> Value
) async throws -> Value {
    var logger = Logger(label: "test-follower")
    logger.logLevel = .critical
    let follower = SessionEndingsFollower(vouchURL: vouch.url, credential: credential, endings: verifier.endings, logger: logger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await follower.run() }
        defer { group.cancelAll() }
        try await eventually("the stream to open") { follower.isConnected }
        return try await body(follower)
    }
}

@Suite("Following the stream of endings")
struct SessionEndingsTests {
    @Test("a session ended on the stream is refused, though its token was cached")
    func endedSessionRefusedOnHit() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let claims = vouch.claims(clock: clock)
            let token = vouch.signingKey.sign(claims: claims.dictionary)
            let other = vouch.token(clock: clock)
            _ = try await verifier.verify(token)
            try await following(vouch, verifier) { follower in
                let connection = try #require(vouch.streamConnections.first)
                #expect(connection.authorization == "Bearer vsc_test-credential")
                #expect(connection.accept == "text/event-stream")
                #expect(connection.lastEventID == nil)
                #expect(connection.types == "session.ended,user.suspended,cutoff.set")
                // An event that ends nothing is passed over.
                vouch.sendEvent(id: 40, "session.created", ["session_id": UUID().uuidString.lowercased()])
                vouch.sendEvent(
                    id: 41, "session.ended",
                    ["session_id": claims.sessionID.uuidString.lowercased(), "kind": "signed_out", "actor": "user"])
                try await eventually("the entry") { follower.appliedEntryCount == 1 }
                #expect(follower.lastEventID == "41")
                await expectRejection(.sessionEnded, verifier, token)
                _ = try await verifier.verify(other)
            }
        }
    }

    @Test("a suspension's sids are all ended")
    func suspension() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let sessions = (0..<3).map { _ in UUID() }
            let tokens = sessions.map { id in vouch.token(clock: clock) { $0.sessionID = id } }
            try await following(vouch, verifier) { follower in
                vouch.sendEvent(id: 1, "user.suspended", ["ended_session_ids": sessions[..<2].map { $0.uuidString.lowercased() }])
                try await eventually("the entry") { follower.appliedEntryCount == 1 }
                await expectRejection(.sessionEnded, verifier, tokens[0])
                await expectRejection(.sessionEnded, verifier, tokens[1])
                _ = try await verifier.verify(tokens[2])
            }
        }
    }

    @Test("a cutoff ends the tokens whose generation is lower, and only those")
    func cutoffs() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let app = TestClaims.appID.uuidString.lowercased()
            let provider = UUID()
            let key = UUID()
            /// A token of `user` whose every generation is `generation`.
            @Sendable func token(
                generation: Int64, user: String = "alice", appID: UUID = TestClaims.appID, provider: UUID? = provider, key: UUID? = key
            ) -> String {
                vouch.token(clock: clock) {
                    $0.userID = user
                    $0.appID = appID
                    $0.generations = ["app": generation, "user": generation]
                    if let provider {
                        $0.providerID = provider
                        $0.generations["provider"] = generation
                    }
                    if let key {
                        $0.keyID = key
                        $0.generations["key"] = generation
                    }
                }
            }
            try await following(vouch, verifier) { follower in
                // Each scope in turn: generation 5 ends the tokens at 4, not those at 5.
                let entries: [[String: Any]] = [
                    ["scope": "provider", "provider_id": provider.uuidString.lowercased(), "generation": 5, "sessions_ended": 1],
                    ["scope": "key", "key_id": key.uuidString.lowercased(), "generation": 5, "sessions_ended": 1],
                    ["scope": "user", "user_id": "alice", "generation": 5, "reason": "stolen laptop", "sessions_ended": 1],
                    ["scope": "app", "generation": 5, "sessions_ended": 1],
                ]
                for (index, entry) in entries.enumerated() {
                    let scope = entry["scope"] as! String
                    // Before the entry, the old generation passes.
                    let below: String
                    switch scope {
                    case "provider": below = token(generation: 4, key: nil)
                    case "key": below = token(generation: 4, provider: nil)
                    case "user": below = token(generation: 4, provider: nil, key: nil)
                    default: below = token(generation: 4, user: "bob", provider: nil, key: nil)
                    }
                    _ = try await verifier.verify(below)
                    vouch.sendEvent(id: index + 1, "cutoff.set", user: scope == "user" ? "alice" : nil, entry)
                    try await eventually("entry \(index + 1)") { follower.appliedEntryCount == index + 1 }
                    await expectRejection(.sessionEnded, verifier, below)
                    _ = try await verifier.verify(token(generation: 5, user: scope == "app" ? "bob" : "alice"))
                }
                // A lower generation arriving later changes nothing.
                vouch.sendEvent(id: 9, "cutoff.set", user: nil, ["scope": "app", "generation": 2, "sessions_ended": 0])
                try await eventually("the late entry") { follower.appliedEntryCount == 5 }
                await expectRejection(.sessionEnded, verifier, token(generation: 4, user: "carol", provider: nil, key: nil))
            }
        }
    }

    @Test("after a disconnection the follower resumes after the last entry it read")
    func reconnection() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            vouch.setStreamPreamble(": hello\nretry: 20\n\n")
            let sid = UUID()
            try await following(vouch, verifier) { follower in
                vouch.sendEvent(id: 7, "session.ended", ["session_id": UUID().uuidString.lowercased(), "kind": "revoked", "actor": "operator"])
                try await eventually("the entry") { follower.lastEventID == "7" }
                // An event cut by the hang-up is dropped, and comes again after Last-Event-ID.
                vouch.send("id: 8\nevent: session.ended\ndata: {\"id\":\"8\"")
                vouch.hangUp()
                try await eventually("the reconnection") { vouch.streamConnections.count == 2 && follower.isConnected }
                #expect(vouch.streamConnections[1].lastEventID == "7")
                #expect(follower.connectionCount == 2)
                vouch.sendEvent(id: 8, "session.ended", ["session_id": sid.uuidString.lowercased(), "kind": "revoked", "actor": "operator"])
                try await eventually("the replayed entry") { follower.lastEventID == "8" }
                await expectRejection(.sessionEnded, verifier, vouch.token(clock: clock) { $0.sessionID = sid })
            }
        }
    }

    @Test("a refused credential leaves the follower disconnected, trying again")
    func refusedCredential() async throws {
        try await TestVouch.run { vouch in
            let verifier = vouch.verifier(clock: TestClock())
            var logger = Logger(label: "test-follower")
            logger.logLevel = .critical
            let follower = SessionEndingsFollower(vouchURL: vouch.url, credential: "vsc_revoked", endings: verifier.endings, logger: logger)
            let task = Task { await follower.run() }
            try await eventually("a second attempt") { vouch.streamConnections.count >= 2 }
            #expect(!follower.isConnected)
            #expect(follower.connectionCount == 0)
            #expect(vouch.streamConnections.allSatisfy { $0.authorization == "Bearer vsc_revoked" })
            task.cancel()
            await task.value
        }
    }

    @Test("the follower stops when its task is cancelled")
    func cancellation() async throws {
        try await TestVouch.run { vouch in
            let verifier = vouch.verifier(clock: TestClock())
            let follower = SessionEndingsFollower(vouchURL: vouch.url, credential: "vsc_test-credential", endings: verifier.endings)
            let task = Task { await follower.run() }
            try await eventually("the stream to open") { follower.isConnected }
            task.cancel()
            await task.value
            #expect(!follower.isConnected)
        }
    }

    @Test("a cutoff applies to its own app, user, provider or key only")
    func cutoffsMatchTheirObject() {
        let endings = SessionEndings()
        let app = UUID()
        let provider = UUID()
        let key = UUID()
        func cutoff(_ scope: SessionEnding.Scope, app: UUID? = nil, user: String? = nil, provider: UUID? = nil, key: UUID? = nil) -> SessionEnding {
            SessionEnding(eventID: "1", at: Date(), kind: .cutOff, scope: scope, appID: app, userID: user, providerID: provider, keyID: key, generation: 5)
        }
        endings.apply(cutoff(.app, app: app))
        endings.apply(cutoff(.user, app: TestClaims.appID, user: "alice"))
        endings.apply(cutoff(.provider, provider: provider))
        endings.apply(cutoff(.key, key: key))
        func token(app: UUID = TestClaims.appID, user: String = "bob", provider: UUID? = nil, key: UUID? = nil) -> VerifiedAccessToken {
            VerifiedAccessToken(
                userID: user, appID: app, sessionID: UUID(), audience: "a", issuedAt: Date(), expiresAt: Date(), tokenID: "j",
                generations: AccessTokenGenerations(app: 4, user: 4, provider: provider.map { _ in 4 }, key: key.map { _ in 4 }),
                providerID: provider, keyID: key)
        }
        #expect(endings.hasEnded(token(app: app)))
        #expect(!endings.hasEnded(token()))
        #expect(endings.hasEnded(token(user: "alice")))
        #expect(!endings.hasEnded(token(app: UUID(), user: "alice")))
        #expect(endings.hasEnded(token(provider: provider)))
        #expect(!endings.hasEnded(token(provider: UUID())))
        #expect(endings.hasEnded(token(key: key)))
        #expect(!endings.hasEnded(token(key: UUID())))
    }

    @Test("an ended session is remembered for six minutes, a generation for ever")
    func memory() {
        let clock = TestClock()
        let endings = SessionEndings(now: clock.closure)
        let sid = UUID()
        endings.apply(SessionEnding(eventID: "1", at: Date(), kind: .revoked, scope: .session, appID: TestClaims.appID, userID: "alice", sessionID: sid))
        endings.apply(SessionEnding(eventID: "2", at: Date(), kind: .cutOff, scope: .app, appID: TestClaims.appID, generation: 3))
        let token = VerifiedAccessToken(
            userID: "alice", appID: TestClaims.appID, sessionID: sid, audience: "a", issuedAt: Date(), expiresAt: Date(), tokenID: "j",
            generations: AccessTokenGenerations(app: 3, user: 1))
        #expect(endings.hasEnded(token))
        #expect(endings.rememberedSessionCount == 1)
        clock.advance(by: 359)
        #expect(endings.hasEnded(token))
        clock.advance(by: 1)
        #expect(!endings.hasEnded(token))
        #expect(endings.rememberedSessionCount == 0)
        let older = VerifiedAccessToken(
            userID: "alice", appID: TestClaims.appID, sessionID: UUID(), audience: "a", issuedAt: Date(), expiresAt: Date(), tokenID: "j",
            generations: AccessTokenGenerations(app: 2, user: 1))
        clock.advance(by: 86_400)
        #expect(endings.hasEnded(older))
    }

    @Test("an observer hears each ending just after it applies, and hasEnded already answers for it")
    func observersHearEndingsAfterTheyApply() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let claims = vouch.claims(clock: clock)
            let held = try await verifier.verify(vouch.signingKey.sign(claims: claims.dictionary))
            let bystander = try await verifier.verify(vouch.token(clock: clock))
            let observed = verifier.endings.applied()
            let late = verifier.endings.applied()
            try await following(vouch, verifier) { _ in
                vouch.sendEvent(
                    id: 7, "session.ended", ["session_id": claims.sessionID.uuidString.lowercased(), "kind": "revoked", "actor": "operator"])
                var iterator = observed.makeAsyncIterator()
                let ending = try #require(await iterator.next())
                #expect(ending.eventID.isEmpty == false && ending.kind == .revoked && ending.sessionID == claims.sessionID)
                // What a service does with it: re-check the tokens it holds.
                #expect(verifier.endings.hasEnded(held))
                #expect(!verifier.endings.hasEnded(bystander))
                // Every observer hears it, however late it reads.
                var lateIterator = late.makeAsyncIterator()
                #expect(await lateIterator.next()?.sessionID == claims.sessionID)
            }
        }
    }

    @Test("an observer that stops reading is forgotten, and endings still apply")
    func abandonedObserver() async throws {
        let endings = SessionEndings()
        let reader = Task {
            for await _ in endings.applied() {}
        }
        reader.cancel()
        await reader.value
        let sessionID = UUID()
        for index in 0..<2000 {
            endings.apply(SessionEnding(eventID: "\(index)", at: Date(), kind: .revoked, scope: .session, sessionID: sessionID))
        }
        #expect(endings.rememberedSessionCount == 1)
        // A reader that never reads keeps the newest 1 024, no more.
        let idle = endings.applied()
        for index in 0..<1100 {
            endings.apply(SessionEnding(eventID: "later-\(index)", at: Date(), kind: .revoked, scope: .session, sessionID: UUID()))
        }
        var iterator = idle.makeAsyncIterator()
        #expect(await iterator.next()?.eventID == "later-76")
    }
}
