import Crypto
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import VouchStore
import VouchTokens

/// Builds the authentication server: routes, middleware and background work, over any `Store`.
public enum VouchServer {
    /// - Parameters:
    ///   - clocks: injected so tests can move time (session expiry, purges, rate limits) without
    ///     sleeping and without depending on the machine's speed.
    ///   - onServerRunning: called with the bound port once the server listens (port 0 picks one).
    ///   - liveFeedConnected: told whether the store's feed of session endings is listening (a
    ///     store shared by many instances), so that a test can wait for it.
    public static func makeApplication(
        configuration: ServerConfiguration,
        store backend: any Store,
        logger: Logger,
        clocks: ServerClocks = .system,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
        liveFeedConnected: @escaping @Sendable (Bool) -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        try configuration.validate()
        let metrics = ServerMetrics()
        metrics.registerSessionsEnded()
        metrics.registerLiveChannel()
        metrics.registerAccessTokens()
        metrics.registerKeySources()
        let endings = LiveWakeSignal()
        let store = InstrumentedStore(base: backend, metrics: metrics, endingsWritten: { endings.wake() })
        let rejections = SignInRejectionLog(metrics: metrics)
        // The level is the server's for its whole run (`--log-level`): whether request lines are
        // written is decided once, here, rather than asked of the logger on every request.
        let parts = try await makeRouter(
            configuration: configuration, store: store, clocks: clocks,
            metrics: metrics, rejections: rejections, logger: logger,
            writesRequestLines: logger.logLevel <= RequestLog.level)
        let ring = parts.ring
        var app = Application(
            router: parts.router,
            server: .guardedHTTP1(limits: configuration.connectionLimits, gate: parts.gate),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "vouch"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                if configuration.publicURL == nil {
                    await ring.setIssuer(ServerConfiguration.developmentURL(host: configuration.host, port: port))
                }
                await onServerRunning(port)
            },
            logger: logger)
        app.addServices(
            HousekeepingService(
                store: store, purgeIntervalSeconds: configuration.purgeIntervalSeconds,
                expiredSessionGraceSeconds: configuration.expiredSessionGraceSeconds,
                auditRetentionSeconds: configuration.auditRetentionDays * 86_400, clocks: clocks, logger: logger,
                metrics: metrics))
        app.addServices(
            LiveEndingsFollower(
                store: store, feed: backend as? any SessionEndingFeed, hub: parts.gate.hub, signal: endings, logger: logger,
                eventStreams: parts.eventStreams, feedConnected: liveFeedConnected))
        app.addServices(
            WebhookDeliveryService(
                store: store, outbound: parts.outbound, client: OutboundHTTPClient(),
                settings: configuration.webhookDeliveries, logger: logger, metrics: metrics))
        app.addServices(SigningKeyRotationService(ring: parts.ring, sleep: { try await Task.sleep(for: $0) }, logger: logger))
        app.addServices(
            SourceKeyUseFlushService(
                counter: parts.sourceKeyUses, store: store, intervalSeconds: configuration.auditFlushIntervalSeconds, logger: logger))
        app.addServices(
            AuditFlushService(
                log: rejections, store: store, intervalSeconds: configuration.auditFlushIntervalSeconds,
                logger: logger))
        return app
    }

    /// Every route and middleware of the server; apart from the application so that a test can
    /// compare the routes it registers with the OpenAPI document's.
    static func makeRouter(
        configuration: ServerConfiguration, store: any Store, clocks: ServerClocks,
        metrics: ServerMetrics, rejections: SignInRejectionLog, logger: Logger,
        writesRequestLines: Bool = true
    ) async throws -> RouterParts {
        let outbound = OutboundPolicy(allowsLoopback: configuration.allowsLoopbackOutbound)
        let keySets = ProviderKeySets(
            store: store, fetcher: KeySourceFetcher(outbound: outbound, timeLimit: configuration.keySources.fetchTimeLimit), settings: configuration.keySources,
            clock: clocks.now,
            metrics: metrics, logger: logger)
        let authenticator = Authenticator(
            store: store, verifier: TokenVerifier(leewaySeconds: configuration.leewaySeconds),
            nonces: try await NonceIssuer.load(from: store), clock: clocks.now, keySets: keySets)
        let signIns = SignInRecorder(metrics: metrics, rejections: rejections)
        let rateLimiter = configuration.rateLimit > 0 ? RateLimiter(ratePerSecond: configuration.rateLimit, clock: clocks.uptime) : nil
        let hub = LiveHub(
            store: store, nonces: { authenticator.issueNonce(appID: $0).nonce }, clock: clocks.now, metrics: metrics,
            logger: logger)
        let gate = LiveGate(
            authenticator: authenticator, hub: hub, signIns: signIns, rateLimiter: rateLimiter,
            trustedProxies: configuration.trustedProxies)
        let router = Router(context: VouchRequestContext.self)
        // Middleware first: a route captures the middleware added before it is registered. The
        // envelope's 405 answers consult the route table, loaded from the router at the end.
        let table = RouteTableBox()
        router.add(
            middleware: RequestEnvelopeMiddleware(
                errors: ErrorAnswers(routes: table), metrics: metrics,
                writesRequestLines: writesRequestLines))
        if !configuration.trustedProxies.isEmpty {
            router.add(middleware: ClientAddressMiddleware(trustedProxies: configuration.trustedProxies))
        }
        // The client API first: the router tries a path's first component against the routes'
        // in the order they were registered, and these are the ones a storm of clients calls.
        router.addRoutes(ClientRoutes(authenticator: authenticator, signIns: signIns, rateLimiter: rateLimiter).routes)
        router.addRoutes(DeviceRoutes(authenticator: authenticator, audit: UserAuditLog(store: store, metrics: metrics)).routes)
        router.addRoutes(LiveRoutes(authenticator: authenticator).routes)
        let ring = SigningKeyRing(
            store: store, schedule: configuration.signingKeys,
            issuer: configuration.publicURL ?? ServerConfiguration.developmentURL(host: configuration.host, port: configuration.port),
            leewaySeconds: configuration.leewaySeconds, clock: clocks.now, uptime: clocks.uptime, logger: logger)
        let credentials = ServiceCredentialCheck(store: store, uptime: clocks.uptime)
        let eventStreams = SessionEventStreams(limit: Self.maximumEventStreams) { metrics.setSessionEventStreams($0) }
        router.addRoutes(AccessTokenRoutes(authenticator: authenticator, ring: ring, metrics: metrics).routes)
        router.addRoutes(WellKnownRoutes(ring: ring).routes)
        router.addRoutes(
            IntrospectionRoutes(credentials: credentials, store: store, ring: ring, clock: clocks.now, metrics: metrics).routes)
        router.addRoutes(
            SecurityEventRoutes(credentials: credentials, store: store, streams: eventStreams, clock: clocks.now).routes)
        router.addRoutes(MetricsRoute(metrics: metrics).routes)
        router.addRoutes(OpenAPIRoute().routes)
        let adminToken = AdminToken(configuration.adminToken)
        let pseudonyms = try await UserPseudonyms.load(from: store)
        AdminArea.register(
            AdminAPI(
                store: store, authenticator: authenticator, rejections: rejections, clock: clocks.now,
                outbound: outbound, pseudonyms: pseudonyms, keySets: keySets
            ).collections,
            on: router, adminToken: adminToken,
            middleware: [AdminAuditMiddleware(store: store, clock: clocks.now, metrics: metrics) { $0.principal }])
        DashboardRoutes(
            store: store, authenticator: authenticator, adminToken: adminToken,
            sessions: DashboardSessions(clock: clocks.now), cookies: DashboardCookies(secure: configuration.secureCookies),
            signInLimiter: RateLimiter(ratePerSecond: 5, clock: clocks.uptime),
            audit: AdminAuditMiddleware(store: store, clock: clocks.now, metrics: metrics) { $0.adminPrincipal },
            rejections: rejections, liveSockets: hub, outbound: outbound, pseudonyms: pseudonyms, keySets: keySets, clock: clocks.now
        )
        .register(on: router)
        table.load(from: router)
        return RouterParts(
            router: router, gate: gate, ring: ring, eventStreams: eventStreams, outbound: outbound,
            sourceKeyUses: authenticator.sourceKeyUses)
    }

    /// What `makeApplication` builds its services from besides the router.
    struct RouterParts {
        let router: Router<VouchRequestContext>
        let gate: LiveGate
        let ring: SigningKeyRing
        let eventStreams: SessionEventStreams
        let outbound: OutboundPolicy
        let sourceKeyUses: SourceKeyUseCounter
    }

    /// The most streams of `GET /events` (its filters included) one instance serves at once.
    static let maximumEventStreams = 256
}
