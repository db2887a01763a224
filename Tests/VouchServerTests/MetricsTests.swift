import Foundation
import Testing
import VouchProtocol
import VouchStore

@Suite("Prometheus metrics at /metrics")
struct MetricsTests {
    @Test("requests by method, route pattern and status; sign-ins by outcome and reason; no ids in labels")
    func counts() async throws {
        try await LiveServer.run { server in
            let app = AppRecord(id: UUID(), name: "Chat", sessionTTLSeconds: 3600, createdAt: server.clock.now)
            try await server.store.createApp(app)
            #expect(try await server.request(.GET, "/health").status == 200)
            #expect(try await server.request(.GET, "/health").status == 200)
            #expect(try await server.request(.GET, "/no/such/route").status == 404)
            #expect(try await server.request(.DELETE, "/sessions/secret-looking-token").status == 204)
            let rejected = try await server.post("/sessions", ["identity_token": "a.b.c", "app_id": LayerID.app(app.id)])
            #expect(rejected.status == 422)
            let refused = try await server.post("/sessions", ["identity_token": "a.b.c", "app_id": "layer:///apps/\(UUID())"])
            #expect(refused.status == 403)

            let answer = try await server.request(.GET, "/metrics")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = answer.text
            #expect(text.contains(#"vouch_http_requests_total{method="GET",route="/health",status="200"} 2"#), "\(text)")
            #expect(text.contains(#"route="NotFound",status="404"} 1"#))
            #expect(text.contains(#"vouch_http_requests_total{method="DELETE",route="/sessions/{token}",status="204"} 1"#))
            #expect(text.contains(#"vouch_http_requests_total{method="POST",route="/sessions",status="422"} 1"#))
            let reason = try #require(rejected.data["reason"] as? String)
            #expect(text.contains(#"vouch_sign_ins_total{outcome="rejected",reason="\#(reason)"} 1"#))
            #expect(text.contains(#"vouch_sign_ins_total{outcome="refused",reason="invalid_app_id"} 1"#))
            #expect(text.contains("vouch_http_request_duration_seconds_bucket"))
            #expect(!text.contains("secret-looking-token"))
            #expect(!text.contains(app.id.lowercased))
        }
    }

    @Test("every store operation is timed by operation, and its failures counted by operation and kind")
    func storeOperations() async throws {
        try await LiveServer.run { server in
            #expect(try await server.request(.GET, "/admin/apps", admin: true).status == 200)
            #expect(try await server.request(.GET, "/admin/apps", admin: true).status == 200)
            let unknown = "/admin/providers/\(UUID().lowercased)/apps/\(UUID().lowercased)"
            #expect(try await server.request(.PUT, unknown, admin: true).status == 404)

            let text = try await server.request(.GET, "/metrics").text
            #expect(text.contains(#"vouch_store_operation_duration_seconds_count{operation="apps"} 2"#), "\(text)")
            #expect(text.contains(#"vouch_store_operation_duration_seconds_bucket{operation="apps",le="0.000"#))
            #expect(text.contains(#"vouch_store_operation_duration_seconds_count{operation="bindProvider"} 1"#))
            #expect(text.contains(#"vouch_store_errors_total{operation="bindProvider",kind="not_found"} 1"#))
            #expect(!text.contains(#"vouch_store_errors_total{operation="apps""#))
        }
    }

    @Test("the backend's own one-round-trip reads are the ones timed, not the protocol's fallbacks")
    func combinedReadsForwarded() async throws {
        try await LiveServer.run { server in
            let session = try await Fixture.make(server).signedInSession()
            #expect(try await server.request(.GET, "/users/me", headers: ["Authorization": "Bearer \(session)"]).status == 200)

            let text = try await server.request(.GET, "/metrics").text
            // A fallback would show as its parts (`session`, `user`, `serverNonceUsed`…) instead.
            #expect(text.contains(#"vouch_store_operation_duration_seconds_count{operation="signInFacts"} 1"#), "\(text)")
            #expect(text.contains(#"vouch_store_operation_duration_seconds_count{operation="createSession"} 1"#))
            #expect(text.contains(#"vouch_store_operation_duration_seconds_count{operation="sessionLookup"} 1"#))
            #expect(text.contains(#"vouch_store_operation_duration_seconds_count{operation="session"} 0"#))
            #expect(text.contains(#"vouch_store_operation_duration_seconds_count{operation="user"} 0"#))
            #expect(text.contains(#"vouch_sign_ins_total{outcome="accepted",reason="none"} 1"#))
        }
    }

    @Test("live sessions: a gauge set by housekeeping on its interval, not per request")
    func liveSessions() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let first = try await fixture.signedInSession(user: "alice")
            _ = try await fixture.signedInSession(user: "bob")
            // Counted by housekeeping only (here: when the test says), never by a request.
            try await server.purges.purgeNow()
            var text = try await server.request(.GET, "/metrics").text
            #expect(text.contains("vouch_live_sessions 2.0"), "\(text)")

            #expect(try await server.request(.DELETE, "/sessions/\(first)").status == 204)
            try await server.purges.purgeNow()
            text = try await server.request(.GET, "/metrics").text
            #expect(text.contains("vouch_live_sessions 1.0"), "\(text)")

            server.clock.advance(by: 31 * 86_400)
            try await server.purges.purgeNow()
            #expect(try await server.request(.GET, "/metrics").text.contains("vouch_live_sessions 0.0"))
        }
    }
}
