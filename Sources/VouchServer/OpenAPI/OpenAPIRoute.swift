import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /openapi.json`: the OpenAPI 3.1 document of every route, exactly the bytes of
/// `Sources/VouchServer/OpenAPI/openapi.json` as they were when the binary was built.
///
/// The document is written by hand beside the routes, not generated from them, and is held to
/// the running server by schemathesis (docs/ARCHITECTURE.md says why). It is compiled in, so a
/// server never serves a copy that differs from what it was built with, and it is open like
/// `/health`: it describes routes, it holds nothing about any app or user.
struct OpenAPIRoute {
    static let document: [UInt8] = PackageResources.openapi_json

    /// A strong validator derived from the bytes: it changes exactly when the document does.
    static let entityTag: String = {
        let digest = SHA256.hash(data: document)
        return "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }()

    /// Cacheable for an hour, then revalidated cheaply with `If-None-Match`.
    static let cacheControl = "public, max-age=3600"

    var routes: RouteCollection<VouchRequestContext> {
        RouteCollection(context: VouchRequestContext.self).on("/openapi.json", method: .get) { request, _ in
            if Self.matches(request.headers[.ifNoneMatch]) {
                return Response(
                    status: .notModified,
                    headers: [.eTag: Self.entityTag, .cacheControl: Self.cacheControl])
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: JSONResponse.contentType, .eTag: Self.entityTag,
                    .cacheControl: Self.cacheControl,
                ],
                body: .init(byteBuffer: ByteBuffer(bytes: Self.document)))
        }
    }

    /// `If-None-Match` (RFC 9110 §13.1.2): `*`, or a list naming this document's tag (weak
    /// comparison, so `W/"…"` from a cache that weakened it also matches).
    static func matches(_ ifNoneMatch: String?) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == entityTag || tag == "W/" + entityTag
        }
    }
}
