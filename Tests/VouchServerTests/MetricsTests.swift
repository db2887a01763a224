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
}
