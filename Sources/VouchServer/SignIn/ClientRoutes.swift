import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// The client API of PROTOCOL §3: what an app's SDK calls.
struct ClientRoutes {
    let authenticator: Authenticator
    let signIns: SignInRecorder
    let rateLimiter: RateLimiter?

    var routes: RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/health", method: .get) { _, _ in try await health() }
        routes.on("/nonces", method: .post) { request, context in try await createNonce(request, context) }
        routes.on("/sessions", method: .post) { request, context in try await createSession(request, context) }
        routes.on("/sessions/:token", method: .delete) { request, context in try await deleteSession(request, context) }
        routes.on("/users/me", method: .get) { request, _ in try await currentUser(request) }
        return routes
    }

    private func health() async throws -> Response {
        do {
            try await authenticator.store.ping()
        } catch {
            throw APIError.storeUnavailable
        }
        return JSONResponse.make(HealthResponse(status: "ok"))
    }

    /// An empty body asks for a nonce any app accepts; `{"app_id"}` binds it to that app.
    private func createNonce(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        try enforceRateLimit(context)
        let body = try await RequestBodyReader.decodeIfPresent(CreateNonceRequest.self, from: request, context: context)
        var appID: UUID?
        if let appText = body?.appID {
            guard let id = LayerID.parseApp(appText), try await authenticator.store.app(id: id) != nil else {
                throw APIError.invalidAppID
            }
            appID = id
        }
        return JSONResponse.make(authenticator.issueNonce(appID: appID), status: .created)
    }

    private func createSession(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let outcome: SignInOutcome
        let appID: UUID
        do {
            try enforceRateLimit(context)
            let body = try await RequestBodyReader.decode(CreateSessionRequest.self, from: request, context: context)
            let token: String
            (token, appID) = try AppLookup.tokenAndAppID(body)
            let device = try body.device.flatMap(Self.validated)
            outcome = try await authenticator.signIn(identityToken: token, appID: appID, device: device)
        } catch {
            signIns.recordRefusal(error)
            throw error
        }
        signIns.record(outcome, appID: appID)
        switch outcome {
        case .signedIn(let session): return JSONResponse.make(session, status: .created)
        case .refused(let rejection, let serverTime): throw APIError.rejectedToken(rejection, serverTime: serverTime)
        }
    }

    private func deleteSession(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        try await authenticator.deauthenticate(token: token.removingPercentEncoding ?? token)
        return JSONResponse.noContent()
    }

    private func currentUser(_ request: Request) async throws -> Response {
        let authenticated = try await authenticator.authenticate(authorization: request.headers.combinedValue(.authorization))
        return JSONResponse.make(
            CurrentUserAnswer(
                user: authenticated.user,
                sessionCreatedAt: Timestamp.rfc3339(authenticated.session.createdAt),
                sessionExpiresAt: Timestamp.rfc3339(authenticated.session.expiresAt),
                sessionID: authenticated.session.sessionID.lowercased))
    }

    /// Each field under the rules of names (422 naming `device.<field>`); an empty description is
    /// no device.
    static func validated(_ device: DeviceDescription) throws -> DeviceDescription? {
        let checked = DeviceDescription(
            name: try device.name.map { try AdminValidation.name($0, property: "device.name") },
            platform: try device.platform.map { try AdminValidation.name($0, property: "device.platform") },
            appVersion: try device.appVersion.map { try AdminValidation.name($0, property: "device.app_version") })
        return checked.isEmpty ? nil : checked
    }

    private func enforceRateLimit(_ context: VouchRequestContext) throws {
        guard let rateLimiter, let wait = rateLimiter.acquire(client: context.clientIP) else { return }
        throw APIError(
            .rateLimitExceeded, "Too many requests; retry after \(wait) s.",
            data: ["retry_after": .number(JSONNumber(Int64(wait)))], headers: [.retryAfter: String(wait)])
    }
}
