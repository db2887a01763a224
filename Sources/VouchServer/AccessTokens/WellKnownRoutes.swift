import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /.well-known/jwks.json` and `GET /.well-known/openid-configuration` (PROTOCOL §8.16):
/// what generic JWT middleware in any language needs to verify Vouch's access tokens.
struct WellKnownRoutes {
    let ring: SigningKeyRing

    var routes: RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/.well-known/jwks.json", method: .get) { _, _ in try await jwks() }
        routes.on("/.well-known/openid-configuration", method: .get) { _, _ in configuration() }
        return routes
    }

    /// The keys this instance has loaded, with a cache lifetime the rotation schedule's lead
    /// covers twice. On a fresh database the first key is made before answering, so that the
    /// set a verifier caches first is never empty.
    private func jwks() async throws -> Response {
        if ring.current.signing == nil { _ = try await ring.signingKey() }
        return Self.response(ring.current.jwks, maxAge: ring.schedule.jwksMaxAgeSeconds)
    }

    private func configuration() -> Response {
        let issuer = ring.issuer
        let body = """
            {"issuer":\(Self.quoted(issuer)),"jwks_uri":\(Self.quoted(issuer + "/.well-known/jwks.json")),\
            "introspection_endpoint":\(Self.quoted(issuer + "/introspect")),\
            "id_token_signing_alg_values_supported":["ES256"],\
            "introspection_endpoint_auth_methods_supported":["bearer"],\
            "response_types_supported":[],"subject_types_supported":["public"],\
            "claims_supported":["iss","sub","aud","app","sid","iat","exp","jti","gen","provider_id","key_id"]}
            """
        return Self.response(Array(body.utf8), maxAge: ring.schedule.jwksMaxAgeSeconds)
    }

    static func response(_ body: [UInt8], maxAge: Int64) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "public, max-age=\(maxAge)"
        headers[.contentLength] = String(body.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A JSON string of a configured URL (validated: printable ASCII, no quote or backslash).
    private static func quoted(_ text: String) -> String { "\"\(text)\"" }
}
