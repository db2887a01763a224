import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import VouchProtocol
import VouchTokens

/// JSON bodies in the one spelling every answer uses: `application/json; charset=utf-8`,
/// sorted keys (stable output for tests and diffs), slashes unescaped (ids are `layer:///…`).
package enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    /// Every JSON answer's headers, its length included, built fresh with room for exactly these
    /// three (a literal of two grows its storage to add the length). Not shared headers (a
    /// `static let`): every response of every thread would take a reference to that one object,
    /// and Hummingbird copies it anyway to add the length. Every name and value here is a literal
    /// or a short string, so copying the fields in takes no reference at all.
    static func headers(contentLength: Int) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(3)
        fields.append(HTTPField(name: .contentType, value: contentType))
        fields.append(HTTPField(name: .cacheControl, value: "no-store"))
        fields.append(HTTPField(name: .contentLength, value: String(contentLength)))
        return fields
    }

    /// A JSON answer of `body`.
    private static func response(_ status: HTTPResponse.Status, _ body: ByteBuffer) -> Response {
        Response(status: status, headers: headers(contentLength: body.readableBytes), body: .init(byteBuffer: body))
    }

    package static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data: Data
        let finalStatus: HTTPResponse.Status
        if let encoded = try? encoder().encode(value) {
            data = encoded
            finalStatus = status
        } else {
            data = internalErrorBody
            finalStatus = .internalServerError
        }
        return response(finalStatus, ByteBuffer(bytes: data))
    }

    /// The hot client answers, written straight into bytes (see `JSONBodyWriter`).
    static func make(_ value: some JSONBodyWritable, status: HTTPResponse.Status = .ok) -> Response {
        response(status, value.jsonBuffer)
    }

    /// A body that echoes untrusted JSON exactly as it was received: `members` (parsed by
    /// `StrictJSON`, number literals kept) replace the same-named members of `value`'s encoding.
    /// Foundation would print `1700000000.0` as `1700000000`, hiding from a developer the very
    /// thing `eit_claim_wrong_type` is about.
    static func make(_ value: some Encodable, echoing members: [String: JSONValue], status: HTTPResponse.Status = .ok) -> Response {
        guard let encoded = try? encoder().encode(value),
            case .object(var object) = try? StrictJSON(maximumDepth: 128).parse(Array(encoded))
        else {
            return make(value, status: status)
        }
        object.merge(members) { _, echoed in echoed }
        return response(status, ByteBuffer(bytes: CanonicalJSON.serialize(.object(object))))
    }

    /// The bytes of a body, for the few answers written below Hummingbird (connection errors).
    static func encode(_ value: some Encodable) -> Data {
        (try? encoder().encode(value)) ?? internalErrorBody
    }

    /// One encoder for every answer: its settings never change, and `JSONEncoder` may be used
    /// from several tasks at once.
    private static let sharedEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func encoder() -> JSONEncoder { sharedEncoder }

    /// Encoding our own Codable types cannot fail; should it ever, answer this fixed 500 body
    /// rather than crash.
    private static let internalErrorBody = Data(
        #"{"code":100,"id":"internal_server_error","message":"An internal error occurred.","url":"https://vouch.dev/docs/errors#internal_server_error"}"#.utf8)

    static func noContent() -> Response {
        Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }
}
