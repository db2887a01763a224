import Hummingbird
import VouchResourceServer

/// Lets through only requests whose `Authorization: Bearer` token `AccessTokenVerifier` accepts,
/// and puts the token's facts on the context (``VouchAuthenticatedRequestContext/vouchUser``).
///
/// The refusals follow RFC 6750 §3, so that a client library knows to fetch a new access token: a
/// request without a bearer token gets 401 with `WWW-Authenticate: Bearer`, a refused token 401
/// with `Bearer error="invalid_token"`, and both a JSON body naming the reason (never the token).
/// While the issuer's keys have never been fetched the answer is 503: the token may be fine, and a
/// client that fetched a new one would be refused the same way.
public struct VouchAccessTokenMiddleware<Context: VouchAuthenticatedRequestContext>: RouterMiddleware {
    /// The verifier every request goes through, shared so that its caches serve them all.
    public let verifier: AccessTokenVerifier

    /// - Parameter verifier: shared by every request (and by the stream follower that feeds its endings).
    public init(verifier: AccessTokenVerifier) {
        self.verifier = verifier
    }

    /// Verifies the bearer token before `next` runs, so that no handler behind it sees a request
    /// without a verified user.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = Self.bearerToken(request.headers[.authorization]) else {
            return Self.refusal(.unauthorized, challenge: "Bearer", error: "invalid_request", reason: "missing_token")
        }
        let user: VerifiedAccessToken
        do {
            user = try await verifier.verify(token)
        } catch {
            if error.kind == .keysUnavailable {
                return Self.refusal(.serviceUnavailable, challenge: nil, error: "temporarily_unavailable", reason: error.kind.description)
            }
            return Self.refusal(.unauthorized, challenge: #"Bearer error="invalid_token""#, error: "invalid_token", reason: error.kind.description)
        }
        var context = context
        context.vouchUser = user
        return try await next(request, context)
    }

    /// The token of `Authorization: Bearer <token>`; the scheme's case does not matter (RFC 7235 §2.1).
    static func bearerToken(_ header: String?) -> String? {
        guard let header, header.utf8.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        let token = header.dropFirst(7).drop(while: { $0 == " " })
        guard !token.isEmpty, !token.contains(" ") else { return nil }
        return String(token)
    }

    private static func refusal(_ status: HTTPResponse.Status, challenge: String?, error: String, reason: String) -> Response {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if let challenge { headers[.wwwAuthenticate] = challenge }
        let body = #"{"error":"\#(error)","reason":"\#(reason)"}"#
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
