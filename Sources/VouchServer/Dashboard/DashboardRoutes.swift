import Foundation
import Hummingbird
import VouchProtocol
import VouchStore
import VouchTokens

/// The developer dashboard at `/dashboard`: server-rendered pages over the same store and
/// `Authenticator` the admin API uses. Its public part is the sign-in page and the assets;
/// everything else is registered on a group whose middleware requires a signed-in session
/// (and a CSRF token on every state-changing request), with `DashboardContext` as its context.
struct DashboardRoutes: Sendable {
    let store: any Store
    let authenticator: Authenticator
    let adminToken: AdminToken
    let sessions: DashboardSessions
    let cookies: DashboardCookies
    /// Sign-in attempts per client address: 5 a second, bursts of 10. The admin token cannot be
    /// guessed, but nobody should be able to try.
    let signInLimiter: RateLimiter
    /// Records every state-changing form of the signed-in pages.
    let audit: AdminAuditMiddleware<VouchRequestContext>
    /// Flushed before the audit page reads the log.
    let rejections: SignInRejectionLog
    /// This instance's live-channel sockets, counted by app on the apps page.
    let liveSockets: LiveHub
    /// What webhook URLs may reach (`vouch serve --allow-loopback-outbound`).
    let outbound: OutboundPolicy
    /// What an erased user is called in the audit log.
    let pseudonyms: UserPseudonyms
    /// Providers' fetched keys: a provider page's "Fetch now".
    let keySets: ProviderKeySets
    let renderer = DashboardRenderer()
    let clock: @Sendable () -> Int64

    var operations: AdminOperations { AdminOperations(store: store, clock: clock) }
    var userData: UserDataOperations { UserDataOperations(store: store, pseudonyms: pseudonyms, clock: clock) }

    /// The dashboard on `router`: its public area, then every signed-in area on the group whose
    /// middleware requires a dashboard session (and a CSRF token on every state-changing request)
    /// and whose context is `DashboardContext`, so that a page cannot be added unguarded.
    func register(on router: some RouterMethods<VouchRequestContext>) {
        router.addRoutes(publicArea)
        let signedIn = router.group()
            .add(middleware: DashboardErrorMiddleware(renderer: renderer))
            .add(middleware: DashboardSessionMiddleware(sessions: sessions))
            .add(middleware: audit)
            .group(context: DashboardContext.self)
        for area in [
            sessionArea, appsArea, serviceCredentialsArea, webhooksArea, providersArea, usersArea, devicesArea, cutoffsArea, validationArea,
            auditArea,
        ] {
            signedIn.addRoutes(area)
        }
    }

    /// What a browser may ask for without a session: the sign-in page and the assets.
    private var publicArea: RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/", method: .get) { _, _ in DashboardResponse.redirect(to: "/dashboard") }
        routes.group()
            .add(middleware: DashboardErrorMiddleware(renderer: renderer))
            .on("/dashboard/sign-in", method: .get) { _, _ in signInPage() }
            .on("/dashboard/sign-in", method: .post) { request, context in try await signIn(request, context) }
            .on("/dashboard/assets/:file", method: .get) { _, context in try asset(context.parameters.get("file") ?? "") }
        return routes
    }

    /// The signed-in session itself: the landing redirect and signing out.
    private var sessionArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        routes.on("/dashboard", method: .get) { _, _ in DashboardResponse.redirect(to: "/dashboard/apps") }
        routes.on("/dashboard/sign-out", method: .post) { _, context in await signOut(context) }
        return routes
    }

    // MARK: Sign-in

    /// The sign-in form, with a fresh double-submit token in a cookie and in the form: a page of
    /// another site cannot sign a browser in (it can read neither).
    private func signInPage(error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        var values: [String: Any] = ["csrf": token, "hours": Int(DashboardSessions.defaultLifetimeSeconds / 3600)]
        if let error { values["error"] = error }
        return renderer.page(
            "sign-in", title: "Sign in", values: values, chrome: nil, status: status,
            cookies: [cookies.set(DashboardCookies.signIn, token, maxAge: 3600)])
    }

    private func signIn(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        if let wait = signInLimiter.acquire(client: context.clientIP) {
            var response = signInPage(error: "Too many sign-in attempts; try again in \(wait) s.", status: .tooManyRequests)
            response.headers[.retryAfter] = String(wait)
            return response
        }
        let form = try await DashboardForm.read(request)
        guard let expected = DashboardCookies.value(DashboardCookies.signIn, in: request.headers), let sent = form["csrf"],
            ConstantTime.equal(Array(sent.utf8), Array(expected.utf8))
        else {
            return signInPage(error: "The sign-in form expired or was not sent by this page; try again.", status: .forbidden)
        }
        guard let token = form["admin_token"]?.trimmingCharacters(in: .whitespacesAndNewlines), adminToken.matches(token) else {
            return signInPage(error: "That is not the admin token.", status: .forbidden)
        }
        let (cookieToken, session) = await sessions.open()
        // The one admin action outside the signed-in pages: who opened a session, and when.
        // Failed attempts are not written (the rate limit bounds them, the log would not).
        await audit.write(
            NewAuditEntry(
                at: clock(), kind: .admin, actor: AdminPrincipal.dashboardSession(id: session.id).auditActor,
                action: AuditAction.dashboardSignIn, outcome: "ok"), logger: context.logger)
        return DashboardResponse.redirect(
            to: "/dashboard/apps",
            cookies: [
                cookies.set(DashboardCookies.session, cookieToken, maxAge: await sessions.lifetime),
                cookies.clear(DashboardCookies.signIn),
            ])
    }

    private func signOut(_ context: DashboardContext) async -> Response {
        await sessions.close(id: context.sessionID)
        return DashboardResponse.redirect(to: "/dashboard/sign-in", cookies: [cookies.clear(DashboardCookies.session)])
    }

    private func asset(_ name: String) throws -> Response {
        guard let file = DashboardAssets.files[name] else { throw DashboardError(.notFound, "No such file.") }
        return DashboardResponse.asset(file.text, contentType: file.contentType)
    }

    // MARK: Shared by the pages

    /// The layout's view of the session: its CSRF token and the notice left by the last post.
    func chrome(_ context: DashboardContext, _ section: String, error: String? = nil) async throws -> DashboardChrome {
        guard let session = await sessions.session(id: context.sessionID) else {
            throw DashboardError(.forbidden, "Your dashboard session has ended; sign in again.")
        }
        return DashboardChrome(
            csrfToken: session.csrfToken, section: section,
            notice: await sessions.takeNotice(id: context.sessionID), error: error)
    }

    /// Runs a form's action; a refusal (bad input, unknown object) is shown inline on `page`
    /// with its status, a server fault propagates to the error page.
    func attempt(
        _ action: () async throws -> Response,
        orShow page: (DashboardError) async throws -> Response
    ) async throws -> Response {
        do {
            return try await action()
        } catch {
            let failure = DashboardError.from(error)
            guard failure.status.code < 500 else { throw error }
            return try await page(failure)
        }
    }

    func notice(_ text: String, _ context: DashboardContext) async {
        await sessions.setNotice(text, id: context.sessionID)
    }

    func appOptions(selected: UUID?) async throws -> [[String: Any]] {
        try await store.apps().map { ["uuid": $0.id.lowercased, "name": $0.name, "selected": $0.id == selected] }
    }

    static func uuid(_ context: DashboardContext, _ name: String, what: String) throws -> UUID {
        guard let text = context.parameters.get(name), let id = LayerID.parseUUID(text) else {
            throw DashboardError(.notFound, "\(what) not found.")
        }
        return id
    }

    static func uuid(_ text: String?, what: String) throws -> UUID {
        guard let text, let id = LayerID.parseUUID(text) else { throw DashboardError(.notFound, "\(what) not found.") }
        return id
    }
}
