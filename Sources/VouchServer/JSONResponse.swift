import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// JSON bodies in the one spelling every answer uses: `application/json; charset=utf-8`,
/// sorted keys (stable output for tests and diffs), slashes unescaped (ids are `layer:///…`).
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own Codable types cannot fail; should it ever, answer a fixed 500 body
        // rather than crash.
        let data: Data
        let finalStatus: HTTPResponse.Status
        if let encoded = try? encoder.encode(value) {
            data = encoded
            finalStatus = status
        } else {
            data = Data(#"{"code":100,"id":"internal_server_error","message":"An internal error occurred.","url":"https://vouch.dev/docs/errors#internal_server_error"}"#.utf8)
            finalStatus = .internalServerError
        }
        return Response(
            status: finalStatus,
            headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func noContent() -> Response {
        Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }
}
