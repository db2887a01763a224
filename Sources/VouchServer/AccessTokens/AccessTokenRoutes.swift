import Foundation
import Hummingbird
import VouchProtocol
import VouchStore
import VouchTokens

/// `POST /sessions/access-token` (PROTOCOL §8.16): a short-lived token that the app's other
/// services verify offline, minted for a live session.
struct AccessTokenRoutes {
    let authenticator: Authenticator
    let ring: SigningKeyRing
    let metrics: ServerMetrics

    var routes: RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/sessions/access-token", method: .post) { request, context in try await mint(request, context) }
        return routes
    }

    private func mint(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let caller = try await authenticator.authenticate(authorization: request.headers.combinedValue(.authorization))
        let body = try await RequestBodyReader.decodeIfPresent(AccessTokenRequest.self, from: request, context: context)
        let session = caller.session
        guard let app = try await authenticator.store.app(id: session.appID) else {
            throw authenticator.challenge(.sessionUnknown)
        }
        let audience = try Self.audience(body?.audience, of: app)
        let now = authenticator.clock()
        let claims = AccessTokenClaims(
            issuer: ring.issuer, subject: session.userID, audience: audience, appID: app.id, sessionID: session.sessionID,
            issuedAt: now, expiresAt: min(now + app.accessTokenTTLSeconds, session.expiresAt),
            tokenID: AccessTokenMinter.tokenID(random: SecureRandom.bytes(16)), generations: session.generations.accessTokenGenerations(of: session))
        let token = AccessTokenMinter.mint(claims, with: try await ring.signingKey())
        metrics.accessTokenMinted()
        return JSONResponse.make(
            AccessTokenResponse(accessToken: token, expiresAt: Timestamp.rfc3339(claims.expiresAt), audience: audience))
    }

    /// The app's id when none is asked for; otherwise one the app registered.
    static func audience(_ requested: String?, of app: AppRecord) throws -> String {
        let appAudience = app.id.uuidString.lowercased()
        guard let requested else { return appAudience }
        guard requested == appAudience || app.audiences.contains(requested) else {
            throw APIError.invalidProperty(
                "audience", "`audience` must be the app's id or one of its registered audiences (PATCH /admin/apps/<app>).")
        }
        return requested
    }
}

extension SessionGenerations {
    /// What an access token of `session` carries.
    func accessTokenGenerations(of session: SessionRecord) -> AccessTokenGenerations {
        AccessTokenGenerations(
            app: app, user: user,
            provider: zip(session.providerID, provider).map { AccessTokenGenerations.Scoped(id: $0, generation: $1) },
            key: zip(session.keyID, key).map { AccessTokenGenerations.Scoped(id: $0, generation: $1) })
    }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
