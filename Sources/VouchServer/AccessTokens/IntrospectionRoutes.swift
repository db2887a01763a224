import Foundation
import Hummingbird
import VouchProtocol
import VouchStore
import VouchSupport
import VouchTokens

/// `POST /introspect` (RFC 7662, PROTOCOL §8.16): whether a session token or an access token is
/// live, asked by one of the app's services with its service credential.
///
/// Every failure answers `{"active": false}` after the same work: a token shaped like a JWS gets
/// one signature check and one session look-up whatever is wrong with it, any other token one hash
/// and one look-up, so that neither the answer nor its time tells which rule refused it.
struct IntrospectionRoutes {
    let credentials: ServiceCredentialCheck
    let store: any Store
    let ring: SigningKeyRing
    let clock: @Sendable () -> Int64
    let metrics: ServerMetrics

    var routes: RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/introspect", method: .post) { request, _ in try await introspect(request) }
        return routes
    }

    private func introspect(_ request: Request) async throws -> Response {
        let appID = try await credentials.appID(authorization: request.headers.combinedValue(.authorization))
        let token = try await Self.token(from: request)
        let answer = try await verdict(on: token, forApp: appID)
        metrics.recordIntrospection(active: answer.active)
        return JSONResponse.make(answer)
    }

    func verdict(on token: String, forApp appID: UUID) async throws -> IntrospectionResponse {
        let now = clock()
        if token.utf8.contains(UInt8(ascii: ".")) {
            let read = await ring.read(token, now: now)
            let claims = try? read.get()
            // A look-up whatever the reading said, of an id no session has when it said no.
            let lookup = try await store.sessionLookup(sessionID: claims?.sessionID ?? UUID())
            guard let claims, let lookup, lookup.standing(at: now).isLive, claims.appID == appID,
                lookup.session.appID == appID, lookup.session.userID == claims.subject
            else { return .inactive }
            return IntrospectionResponse(
                active: true, tokenType: "access_token", subject: claims.subject, appID: appID, sessionID: claims.sessionID,
                issuedAt: claims.issuedAt, expiresAt: claims.expiresAt, audience: claims.audience, issuer: claims.issuer,
                tokenID: claims.tokenID)
        }
        let lookup = try await store.sessionLookup(tokenHash: SessionToken.storageKey(token))
        guard let lookup, lookup.standing(at: now).isLive, lookup.session.appID == appID else { return .inactive }
        let session = lookup.session
        return IntrospectionResponse(
            active: true, tokenType: "session_token", subject: session.userID, appID: appID, sessionID: session.sessionID,
            issuedAt: session.createdAt, expiresAt: session.expiresAt, audience: nil, issuer: ring.issuer, tokenID: nil)
    }

    /// RFC 7662's form body (`token=…`, other parameters ignored), or a JSON `{"token"}`.
    static func token(from request: Request) async throws -> String {
        let mediaType = RequestBodyReader.mediaType(request.headers.combinedValue(.contentType))
        let bytes = try await RequestBodyReader.collect(request)
        let token: String?
        switch mediaType {
        case "application/x-www-form-urlencoded":
            guard let form = FormBody.parse(bytes) else {
                throw APIError(.invalidRequest, "The form body is malformed (a bad %-escape, invalid UTF-8, or a parameter given twice).")
            }
            token = form["token"]
        case "application/json":
            token = try RequestBodyReader.decode(IntrospectionJSONRequest.self, json: ByteBuffer(bytes: bytes)).token
        default:
            throw APIError(.invalidRequest, "Content-Type must be application/x-www-form-urlencoded (RFC 7662) or application/json.")
        }
        guard let token, !token.isEmpty else { throw APIError.missingProperty("token") }
        return token
    }
}

/// `POST /introspect`'s JSON body.
struct IntrospectionJSONRequest: Decodable {
    let token: String?
}

/// RFC 7662's answer: `{"active": false}` alone, or the token's facts.
struct IntrospectionResponse: Encodable, JSONBodyWritable {
    let active: Bool
    var tokenType: String? = nil
    var subject: String? = nil
    var appID: UUID? = nil
    var sessionID: UUID? = nil
    var issuedAt: Int64? = nil
    var expiresAt: Int64? = nil
    var audience: String? = nil
    var issuer: String? = nil
    var tokenID: String? = nil

    static let inactive = IntrospectionResponse(active: false)

    enum CodingKeys: String, CodingKey {
        case active
        case tokenType = "token_type"
        case subject = "sub"
        case appID = "app"
        case sessionID = "sid"
        case issuedAt = "iat"
        case expiresAt = "exp"
        case audience = "aud"
        case issuer = "iss"
        case tokenID = "jti"
        case clientID = "client_id"
    }

    /// The same bytes `encode(to:)` gives with sorted keys (a test holds them equal).
    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("active", active)
            if active {
                object.member("app", appID.map(UUIDText.lowercase))
                if let audience { object.member("aud", audience) }
                object.member("client_id", appID.map(UUIDText.lowercase))
                object.member("exp", expiresAt)
                object.member("iat", issuedAt)
                object.member("iss", issuer)
                if let tokenID { object.member("jti", tokenID) }
                object.member("sid", sessionID.map(UUIDText.lowercase))
                object.member("sub", subject)
                object.member("token_type", tokenType)
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(active, forKey: .active)
        try container.encodeIfPresent(tokenType, forKey: .tokenType)
        try container.encodeIfPresent(subject, forKey: .subject)
        try container.encodeIfPresent(appID?.uuidString.lowercased(), forKey: .appID)
        try container.encodeIfPresent(sessionID?.uuidString.lowercased(), forKey: .sessionID)
        try container.encodeIfPresent(issuedAt, forKey: .issuedAt)
        try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(audience, forKey: .audience)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encodeIfPresent(tokenID, forKey: .tokenID)
        // RFC 7662 §2.2: the app the token was issued to.
        try container.encodeIfPresent(appID?.uuidString.lowercased(), forKey: .clientID)
    }
}
