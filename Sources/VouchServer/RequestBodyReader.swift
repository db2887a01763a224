import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import VouchProtocol
import VouchTokens
import VouchSupport

/// Reads and decodes JSON request bodies with the protocol's limits and error answers:
/// over 64 KiB → 413, wrong content type or malformed JSON → 400 `invalid_request`,
/// a field of the wrong type → 422 `invalid_property` naming it.
///
/// Every body goes through the same strict parser as tokens first (`StrictJSON`): UTF-8 only
/// (no byte-order mark, no UTF-16 guessed from the bytes), no duplicate member names (which
/// parsers disagree on: the first wins here, the last in Python and JavaScript), and numbers
/// only as integer literals. Only a body that passes is decoded into its type.
package enum RequestBodyReader {
    /// One decoder for every body: it has no settings, and may be used from several tasks at once.
    private static let decoder = JSONDecoder()

    package static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try decode(type, body: try await collectBuffer(request), request: request)
    }

    /// The body is parsed where it lies, in the buffer it arrived in: copying a sign-in's body
    /// (~1.2 KB) into an array first would cost an allocation too large for the allocator's
    /// per-thread cache, and a copy, on every request.
    private static func decode<T: Decodable>(_ type: T.Type, body: ByteBuffer, request: Request) throws -> T {
        try checkContentType(request)
        return try decode(type, json: body)
    }

    /// A JSON object that arrived other than as a request body (a live-channel frame), under the
    /// same rules and with the same errors.
    static func decode<T: Decodable>(_ type: T.Type, json body: ByteBuffer) throws -> T {
        guard body.readableBytes > 0 else { throw APIError(.invalidRequest, "A JSON object body is required.") }
        let object = try body.withUnsafeReadableBytes { try checkStrictly($0.assumingMemoryBound(to: UInt8.self)) }
        // The hot bodies are read from the object just parsed rather than parsed a second time.
        if let objectType = T.self as? any JSONObjectDecodable.Type,
            let decoded = try objectType.init(jsonObject: object) as? T
        {
            return decoded
        }
        do {
            return try decoder.decode(T.self, from: Data(body.readableBytesView))
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

    /// The same for a route whose body is optional: `nil` when there is none.
    static func decodeIfPresent<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T? {
        let body = try await collectBuffer(request)
        guard body.readableBytes > 0 else { return nil }
        return try decode(type, body: body, request: request)
    }

    /// Reads the whole body (bounded) as bytes; for routes that take none, this still enforces the limit.
    static func collect(_ request: Request) async throws -> [UInt8] {
        var buffer = try await collectBuffer(request)
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    /// Reads the whole body (bounded) into one buffer, empty when there is none.
    private static func collectBuffer(_ request: Request) async throws -> ByteBuffer {
        let declaredLength = request.headers.combinedValue(.contentLength).flatMap { Int($0) }
        if let declaredLength, declaredLength > RequestLimits.maximumBodySize {
            throw tooLarge
        }
        // Without Transfer-Encoding, a request with no Content-Length or a Content-Length of 0 has
        // no body (RFC 9112 §6.3): there is nothing to wait for, and walking the body's async
        // stream to its end would cost a bodiless `POST /nonces` several async calls. (Hummingbird
        // drains whatever a route left unread, as it does for every route that reads no body.)
        if declaredLength ?? 0 == 0, !request.headers.contains(.transferEncoding) {
            return ByteBuffer()
        }
        do {
            return try await request.body.collect(upTo: RequestLimits.maximumBodySize)
        } catch is NIOTooManyBytesError {
            throw tooLarge
        }
    }

    /// The body must be one JSON object as RFC 8259 says it should be exchanged, with integer numbers.
    ///
    /// The object comes back as its members in the order written, as a token's claims do: the
    /// bodies read here have one or two members, which a list finds by name faster than a
    /// dictionary is built (hashing every name, and a reference count per member copied in).
    @discardableResult
    static func checkStrictly(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONMembers {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw APIError(.invalidRequest, "The body starts with a byte-order mark; send UTF-8 JSON without one.")
        }
        let object: JSONMembers
        do {
            object = try StrictJSON().parseMembers(bytes)
        } catch .invalidUTF8 {
            throw APIError(.invalidRequest, "The body is not valid UTF-8; JSON bodies must be UTF-8.")
        } catch .duplicateName(let name) {
            throw APIError(.invalidRequest, "The member `\(name)` appears more than once in the body.")
        } catch .notAnObject {
            throw APIError(.invalidRequest, "The body must be a JSON object.")
        } catch {
            throw APIError(.invalidRequest, "The body is not a valid JSON object.")
        }
        if object.members.contains(where: { hasNonInteger($0.value) }),
            let property = firstNonInteger(in: .object(object.dictionary), path: "")
        {
            throw APIError.invalidProperty(
                property, "The property `\(property)` must be an integer, written without a fraction or an exponent.")
        }
        return object
    }

    /// Whether any number is written with a fraction or an exponent (no paths, no sorting: the
    /// common answer is no).
    private static func hasNonInteger(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let number): !number.isIntegerLiteral
        case .object(let members): members.values.contains(where: hasNonInteger)
        case .array(let elements): elements.contains(where: hasNonInteger)
        default: false
        }
    }

    /// The path of the first number written with a fraction or an exponent, if any.
    private static func firstNonInteger(in value: JSONValue, path: String) -> String? {
        switch value {
        case .number(let number):
            return number.isIntegerLiteral ? nil : path
        case .object(let members):
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                if let found = firstNonInteger(in: member, path: path.isEmpty ? name : "\(path).\(name)") { return found }
            }
            return nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = firstNonInteger(in: element, path: "\(path).\(index)") { return found }
            }
            return nil
        default:
            return nil
        }
    }

    static let tooLarge = APIError(.tooLarge, "The request body is larger than 64 KiB.")

    /// `application/json`, optionally with `charset=utf-8` (any case); nothing else.
    private static func checkContentType(_ request: Request) throws {
        guard let value = request.headers.combinedValue(.contentType) else {
            throw APIError(.invalidRequest, "Content-Type must be application/json.")
        }
        // What nearly every client sends, recognised without taking the header apart.
        if value.utf8.count == 16 && value.bytesEqual("application/json") { return }
        let parts = value.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map(asciiLowercasedTrimmed)
        guard parts.first == "application/json" else {
            throw APIError(.invalidRequest, "Content-Type must be application/json.")
        }
        for parameter in parts.dropFirst() {
            guard let charset = parameter.bytesDroppingPrefix("charset=") else { continue }
            let unquoted =
                charset.count >= 2 && charset.hasPrefix("\"") && charset.hasSuffix("\"")
                ? String(charset.dropFirst().dropLast()) : charset
            guard unquoted == "utf-8" || unquoted == "utf8" else {
                throw APIError(.invalidRequest, "Only the UTF-8 charset is accepted.")
            }
        }
    }

    /// A `Content-Type`'s type and subtype, lowercased, without parameters or the spaces around
    /// them (RFC 9110 §8.3.1); empty when there is none.
    static func mediaType(_ contentType: String?) -> String {
        guard let essence = contentType?.utf8.split(separator: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false).first
        else { return "" }
        return asciiLowercasedTrimmed(essence)
    }

    /// A header fragment without the spaces and tabs around it, with ASCII letters in lower case.
    private static func asciiLowercasedTrimmed(_ bytes: Substring.UTF8View.SubSequence) -> String {
        var part = bytes
        while let first = part.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { part = part.dropFirst() }
        while let last = part.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { part = part.dropLast() }
        return String(decoding: part.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    private static func wrongType(_ context: DecodingError.Context) -> APIError {
        let property = context.codingPath.map(\.stringValue).joined(separator: ".")
        guard !property.isEmpty else { return APIError(.invalidRequest, "The body must be a JSON object.") }
        return APIError.invalidProperty(property, "The property `\(property)` has the wrong type.")
    }
}
