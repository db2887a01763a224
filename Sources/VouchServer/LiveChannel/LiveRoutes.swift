import Crypto
import Foundation
import Hummingbird
import VouchProtocol
import VouchStore
import VouchTokens

/// The live channel's HTTP side (PROTOCOL §8.15): tickets for browsers, and the answer to a plain
/// `GET /sessions/live` (an upgrade to it never reaches the router: `GuardedHTTP1Channel`).
struct LiveRoutes {
    let authenticator: Authenticator

    var routes: RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/sessions/live-ticket", method: .post) { request, _ in try await issueTicket(request) }
        routes.on("/sessions/live", method: .get) { request, _ in try await notAnUpgrade(request) }
        return routes
    }

    /// A single-use ticket for the caller's session, stored as a hash like a session token.
    private func issueTicket(_ request: Request) async throws -> Response {
        let caller = try await authenticator.authenticate(authorization: request.headers.combinedValue(.authorization))
        var bytes = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeMutableBytes { SecureRandom.fill($0) }
        let ticket = Base64URL.encode(bytes)
        let expiresAt = authenticator.clock() + LiveTicket.maximumLifetimeSeconds
        try await authenticator.store.createLiveTicket(
            LiveTicket(
                ticketHash: Array(SHA256.hash(data: Array(ticket.utf8))), sessionTokenHash: caller.session.tokenHash,
                expiresAt: expiresAt))
        return JSONResponse.make(LiveTicketResponse(ticket: ticket, expiresAt: Timestamp.rfc3339(expiresAt)), status: .created)
    }

    /// The session is checked first, so that a client without one hears the challenge.
    private func notAnUpgrade(_ request: Request) async throws -> Response {
        _ = try await authenticator.authenticate(authorization: request.headers.combinedValue(.authorization))
        throw APIError(
            .upgradeRequired, "GET /sessions/live opens a WebSocket: send the upgrade headers (Upgrade: websocket).",
            headers: [.upgrade: "websocket", .connection: "Upgrade"])
    }
}

/// `POST /sessions/live-ticket`'s answer.
struct LiveTicketResponse: Encodable {
    let ticket: String
    let expiresAt: String

    enum CodingKeys: String, CodingKey {
        case ticket
        case expiresAt = "expires_at"
    }
}
