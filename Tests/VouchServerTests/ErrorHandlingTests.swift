import Foundation
import Testing
import VouchProtocol

@Suite("Error bodies and limits (PROTOCOL §2)")
struct ErrorHandlingTests {
    @Test("error bodies are byte for byte the protocol's shape")
    func exactBodies() async throws {
        try await LiveServer.run { server in
            let missing = try await server.post("/sessions", ["identity_token": "x"])
            #expect(
                missing.text
                    == #"{"code":104,"data":{"property":"app_id"},"id":"missing_property","message":"The property `app_id` is required.","url":"https://vouch.dev/docs/errors#missing_property"}"#
            )
            let denied = try await server.request(.GET, "/admin/apps")
            #expect(
                denied.text
                    == #"{"code":101,"id":"access_denied","message":"A valid admin token is required: Authorization: Bearer <admin token>.","url":"https://vouch.dev/docs/errors#access_denied"}"#
            )
            for answer in [missing, denied] {
                #expect(answer.header("Content-Type") == "application/json; charset=utf-8")
                #expect(Set(answer.json.keys).isSubset(of: ["id", "code", "message", "url", "data"]))
            }
        }
    }

    @Test("unknown routes 404, wrong methods 405 with Allow")
    func routing() async throws {
        try await LiveServer.run { server in
            let unknown = try await server.request(.GET, "/nope")
            #expect(unknown.status == 404)
            #expect(unknown.json["code"] as? Int == 102)
            let wrong = try await server.request(.PUT, "/nonces")
            #expect(wrong.status == 405)
            #expect(wrong.json["id"] as? String == "method_not_allowed")
            #expect(wrong.json["code"] as? Int == 109)
            #expect(wrong.header("Allow") == "POST")
            #expect(try await server.request(.GET, "/sessions/abc").header("Allow") == "DELETE")
        }
    }

    @Test("bodies over 64 KiB are 413 too_large, with or without Content-Length")
    func tooLarge() async throws {
        try await LiveServer.run { server in
            let big = String(repeating: "a", count: 64 * 1024 + 1)
            for path in ["/sessions", "/nonces", "/admin/apps"] {
                let answer = try await server.request(.POST, path, body: big, admin: true)
                #expect(answer.status == 413, "\(path)")
                #expect(answer.json["id"] as? String == "too_large")
                #expect(answer.json["code"] as? Int == 111)
            }
            let exactly = try await server.request(.POST, "/sessions", body: "{\"identity_token\":\"" + String(repeating: "a", count: 60_000) + "\"}")
            #expect(exactly.status == 422, "a body under the limit is read")
        }
    }

    @Test("malformed bodies are 400 invalid_request, wrong types 422 naming the property")
    func malformed() async throws {
        try await LiveServer.run { server in
            for body in ["{", "[]", "null", "\"text\"", "{\"identity_token\":", "\u{FF}\u{FE}", ""] {
                let answer = try await server.request(.POST, "/sessions", body: body)
                #expect(answer.status == 400, "\(body.debugDescription): \(answer.text)")
                #expect(answer.json["id"] as? String == "invalid_request")
                #expect(answer.json["code"] as? Int == 10)
            }
            for contentType in [
                "text/plain", "application/json; charset=latin1", "application/jsonx",
                "application/json; charset=\"utf-8", "application/json, text/plain",
            ] {
                let answer = try await server.request(.POST, "/sessions", body: "{}", contentType: contentType)
                #expect(answer.status == 400, "\(contentType)")
            }
            for contentType in [
                "application/json; charset=UTF-8", "Application/JSON", " application/json ;\tcharset=\"utf8\" ",
                "application/json; foo=bar",
            ] {
                #expect(
                    try await server.request(
                        .POST, "/sessions", body: #"{"identity_token":"x","app_id":"y"}"#,
                        contentType: contentType
                    ).status == 403, "\(contentType)")
            }
            // Wrong types of the other member, of `null` (as absent) and of the nonce body.
            let wrongApp = try await server.request(.POST, "/sessions", body: #"{"identity_token":"x","app_id":["y"]}"#)
            #expect(wrongApp.status == 422)
            #expect(wrongApp.data["property"] as? String == "app_id")
            let nullToken = try await server.request(.POST, "/sessions", body: #"{"identity_token":null,"app_id":"y"}"#)
            #expect(nullToken.status == 422)
            #expect(nullToken.json["id"] as? String == "missing_property")
            let wrongNonceApp = try await server.request(.POST, "/nonces", body: #"{"app_id":false}"#)
            #expect(wrongNonceApp.status == 422)
            #expect(wrongNonceApp.data["property"] as? String == "app_id")
            let wrongType = try await server.request(.POST, "/sessions", body: #"{"identity_token":7,"app_id":"y"}"#)
            #expect(wrongType.status == 422)
            #expect(wrongType.data["property"] as? String == "identity_token")
        }
    }

    @Test("rate limit: a burst of 2N, then 429 with Retry-After, refilled at N a second (on the server's clock)")
    func rateLimit() async throws {
        // The limiter reads the test's clock, which stands still unless moved: the counts below
        // hold however slowly the requests are made.
        try await LiveServer.run(rateLimit: 3) { server in
            var statuses: [Int] = []
            var refused: HTTPResult?
            for _ in 0..<10 {
                let answer = try await server.request(.POST, "/nonces")
                statuses.append(answer.status)
                if answer.status == 429, refused == nil { refused = answer }
            }
            #expect(statuses == Array(repeating: 201, count: 6) + Array(repeating: 429, count: 4), "\(statuses)")
            let limited = try #require(refused)
            #expect(limited.json["id"] as? String == "rate_limit_exceeded")
            #expect(limited.json["code"] as? Int == 7)
            #expect(limited.header("Retry-After") == "1", "one token comes back within a second at 3/s")
            #expect(limited.data["retry_after"] as? Int == 1)
            #expect(try await server.request(.GET, "/health").status == 200, "other routes are not limited")
            #expect(
                try await server.post("/sessions", ["identity_token": "x", "app_id": "y"]).status == 429,
                "POST /sessions shares the budget")

            server.clock.advance(by: 1)
            var refilled: [Int] = []
            for _ in 0..<4 { refilled.append(try await server.request(.POST, "/nonces").status) }
            #expect(refilled == [201, 201, 201, 429], "three tokens a second: \(refilled)")
        }
    }
}
