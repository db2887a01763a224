import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// A user's own sessions, with their session (PROTOCOL §8.14): every session is a device, which
/// the user can list and sign out. Signing a device out ends its session as `signed_out`, which
/// tells that device to forget the user rather than sign in again.
struct DeviceRoutes {
    let authenticator: Authenticator
    let audit: UserAuditLog

    var store: any Store { authenticator.store }

    var routes: RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/sessions", method: .get) { request, _ in try await list(request) }
        routes.on("/sessions/id/:session_id", method: .delete) { request, context in try await signOut(request, context) }
        routes.on("/sessions/sign-out-others", method: .post) { request, context in try await signOutOthers(request, context) }
        return routes
    }

    private func list(_ request: Request) async throws -> Response {
        let caller = try await authenticator.authenticate(authorization: request.headers.combinedValue(.authorization))
        let sessions = try await store.liveSessions(
            appID: caller.session.appID, userID: caller.session.userID, now: authenticator.clock())
        return JSONResponse.make(
            SessionListResponse(sessions: sessions.map { $0.session.summary(current: $0.session.sessionID == caller.session.sessionID) }))
    }

    /// Another user's session id is 404, the same as an unknown one: nobody learns which ids exist.
    private func signOut(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let caller = try await authenticator.authenticate(authorization: request.headers.combinedValue(.authorization))
        guard let sessionID = context.parameters.get("session_id").flatMap(LayerID.parseUUID) else {
            throw APIError.notFound("Session")
        }
        let now = authenticator.clock()
        guard
            let found = try await store.endSession(
                sessionID: sessionID, owner: (caller.session.appID, caller.session.userID), reason: .signedOut, now: now)
        else { throw APIError.notFound("Session") }
        if found.standing(at: now).isLive {
            await audit.record(
                action: "session.sign_out", session: caller.session, at: now, note: "session \(sessionID.lowercased)",
                logger: context.logger)
        }
        return JSONResponse.noContent()
    }

    private func signOutOthers(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let caller = try await authenticator.authenticate(authorization: request.headers.combinedValue(.authorization))
        let now = authenticator.clock()
        let ended = try await store.signOutOtherSessions(
            appID: caller.session.appID, userID: caller.session.userID, keeping: caller.session.tokenHash, now: now)
        await audit.record(
            action: "session.sign_out_others", session: caller.session, at: now, note: "\(ended) sessions ended",
            logger: context.logger)
        return JSONResponse.make(SessionsEndedResponse(sessionsEnded: ended))
    }
}

extension SessionRecord {
    /// The session as its user or an operator sees it (`current` only in the user's own listing).
    func summary(current: Bool) -> SessionSummary {
        SessionSummary(
            sessionID: sessionID.lowercased, device: device, createdAt: Timestamp.rfc3339(createdAt),
            lastSeenAt: Timestamp.rfc3339(lastSeenAt), expiresAt: Timestamp.rfc3339(expiresAt), current: current,
            providerID: providerID.map(LayerID.provider), keyID: keyID?.lowercased)
    }
}
