import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reads and decodes JSON request bodies with the protocol's limits and error answers:
/// over 64 KiB → 413, wrong content type or malformed JSON → 400 `invalid_request`,
/// a field of the wrong type → 422 `invalid_property` naming it.
enum RequestBodyReader {
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: VouchRequestContext) async throws -> T {
        let bytes = try await collect(request)
        try checkContentType(request)
        guard !bytes.isEmpty else { throw APIError(.invalidRequest, "A JSON object body is required.") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let DecodingError.typeMismatch(_, context) {
            throw wrongType(context)
        } catch let DecodingError.valueNotFound(_, context) {
            throw wrongType(context)
        } catch let DecodingError.keyNotFound(key, _) {
            throw APIError.missingProperty(key.stringValue)
        } catch {
            throw APIError(.invalidRequest, "The body is not a valid JSON object.")
        }
    }

    /// Reads the whole body (bounded); for routes that take none, this still enforces the limit.
    static func collect(_ request: Request) async throws -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > RequestLimits.maximumBodySize {
            throw tooLarge
        }
        do {
            var buffer = try await request.body.collect(upTo: RequestLimits.maximumBodySize)
            return buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch is NIOTooManyBytesError {
            throw tooLarge
        }
    }

    static let tooLarge = APIError(.tooLarge, "The request body is larger than 64 KiB.")

    /// `application/json`, optionally with `charset=utf-8` (any case); nothing else.
    private static func checkContentType(_ request: Request) throws {
        guard let value = request.headers[.contentType] else {
            throw APIError(.invalidRequest, "Content-Type must be application/json.")
        }
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.first == "application/json" else {
            throw APIError(.invalidRequest, "Content-Type must be application/json.")
        }
        for parameter in parts.dropFirst() where parameter.hasPrefix("charset=") {
            let charset = parameter.dropFirst("charset=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard charset == "utf-8" || charset == "utf8" else {
                throw APIError(.invalidRequest, "Only the UTF-8 charset is accepted.")
            }
        }
    }

    private static func wrongType(_ context: DecodingError.Context) -> APIError {
        let property = context.codingPath.map(\.stringValue).joined(separator: ".")
        guard !property.isEmpty else { return APIError(.invalidRequest, "The body must be a JSON object.") }
        return APIError.invalidProperty(property, "The property `\(property)` has the wrong type.")
    }
}
