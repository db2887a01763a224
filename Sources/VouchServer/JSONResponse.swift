import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// JSON bodies in the one spelling every answer uses: `application/json; charset=utf-8`,
/// sorted keys (stable output for tests and diffs), slashes unescaped (ids are `layer:///…`).
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data: Data
        let finalStatus: HTTPResponse.Status
        if let encoded = try? encoder().encode(value) {
            data = encoded
            finalStatus = status
        } else {
            data = internalErrorBody
            finalStatus = .internalServerError
        }
        return Response(
            status: finalStatus,
            headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The bytes of a body, for the few answers written below Hummingbird (connection errors).
    static func encode(_ value: some Encodable) -> Data {
        (try? encoder().encode(value)) ?? internalErrorBody
    }

    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Encoding our own Codable types cannot fail; should it ever, answer this fixed 500 body
    /// rather than crash.
    private static let internalErrorBody = Data(
        #"{"code":100,"id":"internal_server_error","message":"An internal error occurred.","url":"https://vouch.dev/docs/errors#internal_server_error"}"#.utf8)

    static func noContent() -> Response {
        Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }
}
