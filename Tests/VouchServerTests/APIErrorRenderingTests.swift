import Foundation
import Hummingbird
import NIOFoundationCompat
import HummingbirdTesting
import Testing
@testable import VouchServer

/// `APIError` is an `HTTPResponseError`: it renders its PROTOCOL §2 body and headers itself,
/// wherever it is caught, with no middleware of Vouch's in the way.
@Suite("API errors render themselves")
struct APIErrorRenderingTests {
    @Test("Hummingbird's own router answers a thrown APIError with its JSON body, status and headers")
    func rendersWithoutMiddleware() async throws {
        let router = Router(context: VouchRequestContext.self)
        router.get("/refused") { _, _ -> Response in
            throw APIError(.conflict, "It exists already.", data: ["property": "name"], headers: [.retryAfter: "7"])
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await client.execute(uri: "/refused", method: .get) { response in
                #expect(response.status == .conflict)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                #expect(response.headers[.retryAfter] == "7")
                let body = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect(body["id"] as? String == "conflict")
                #expect(body["message"] as? String == "It exists already.")
                #expect((body["data"] as? [String: Any])?["property"] as? String == "name")
            }
        }
    }
}
