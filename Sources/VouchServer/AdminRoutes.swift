import Crypto
import Foundation
import Hummingbird
import VouchProtocol
import VouchStore
import VouchTokens

/// The admin API of PROTOCOL §4. Registered only on `AdminArea`'s group, whose middleware has
/// authenticated the admin bearer token before any handler here runs.
struct AdminRoutes {
    static let sessionTTLRange: ClosedRange<Int64> = 30...31_536_000
    static let defaultSessionTTL: Int64 = 2_592_000
    static let revocationGraceRange: ClosedRange<Int64> = 0...2_592_000

    let store: any Store
    let authenticator: Authenticator
    let clock: @Sendable () -> Int64

    private var operations: AdminOperations { AdminOperations(store: store, clock: clock) }

    func register(_ routes: RouteRegistrar<VouchRequestContext>) {
        routes.on(.post, "/admin/apps", admin(createApp))
        routes.on(.get, "/admin/apps", admin { _, _ in try await listApps() })
        routes.on(.get, "/admin/apps/:app", admin { _, context in try await showApp(context) })
        routes.on(.patch, "/admin/apps/:app", admin(updateApp))
        routes.on(.post, "/admin/providers", admin(createProvider))
        routes.on(.get, "/admin/providers/:provider", admin { _, context in try await showProvider(context) })
        routes.on(.put, "/admin/providers/:provider/apps/:app", admin { _, context in try await bind(context, bound: true) })
        routes.on(.delete, "/admin/providers/:provider/apps/:app", admin { _, context in try await bind(context, bound: false) })
        routes.on(.post, "/admin/providers/:provider/keys", admin(createKey))
        routes.on(.get, "/admin/providers/:provider/keys", admin { _, context in try await listKeys(context) })
        routes.on(.get, "/admin/keys/:key", admin { _, context in try await showKey(context) })
        routes.on(.patch, "/admin/keys/:key", admin(updateKey))
        routes.on(.delete, "/admin/keys/:key", admin { _, context in try await deleteKey(context) })
        routes.on(.post, "/admin/apps/:app/registration-secrets", admin { _, context in try await createSecret(context) })
        routes.on(.get, "/admin/apps/:app/registration-secrets", admin { _, context in try await listSecrets(context) })
        routes.on(.delete, "/admin/apps/:app/registration-secrets/:key", admin { request, context in
            _ = try await revokeSecret(request, context)
            return JSONResponse.noContent()
        })
        routes.on(.post, "/admin/apps/:app/registration-secrets/:key/revoke", admin { request, context in
            let (revoked, now) = try await revokeSecret(request, context)
            return JSONResponse.make(revoked.summary(at: now))
        })
        routes.on(.get, "/admin/apps/:app/users/:user", admin { _, context in try await showUser(context) })
        routes.on(.patch, "/admin/apps/:app/users/:user", admin(updateUser))
        routes.on(.delete, "/admin/apps/:app/users/:user/sessions", admin { _, context in try await revokeUserSessions(context) })
        routes.on(.post, "/admin/tools/validate-identity-token", admin(validateToken))
    }

    /// Defence in depth: the group's middleware authenticated the request; a handler still
    /// refuses to run for a context that no authentication stamped.
    private func admin(_ handler: @escaping @Sendable (Request, VouchRequestContext) async throws -> Response)
        -> @Sendable (Request, VouchRequestContext) async throws -> Response {
        { request, context in
            guard context.adminPrincipal != nil else { throw APIError.accessDenied }
            return try await handler(request, context)
        }
    }

    // MARK: Apps

    private func createApp(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let body = try await RequestBodyReader.decode(CreateAppRequest.self, from: request, context: context)
        guard let name = body.name else { throw APIError.missingProperty("name") }
        let app = AppRecord(id: UUID(), name: try AdminValidation.name(name),
                            sessionTTLSeconds: try AdminValidation.ttl(body.sessionTTLSeconds ?? Self.defaultSessionTTL),
                            createdAt: clock())
        try await store.createApp(app)
        AuditNote.created(app: app.id)
        return JSONResponse.make(app.response, status: .created)
    }

    private func listApps() async throws -> Response {
        JSONResponse.make(try await store.apps().map(\.response))
    }

    private func showApp(_ context: VouchRequestContext) async throws -> Response {
        JSONResponse.make(try await existingApp(context).response)
    }

    private func updateApp(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let id = try PathID.uuid(context, "app", what: "App")
        let body = try await RequestBodyReader.decode(UpdateAppRequest.self, from: request, context: context)
        let name = try body.name.map { try AdminValidation.name($0) }
        let ttl = try body.sessionTTLSeconds.map { try AdminValidation.ttl($0) }
        do {
            // Partial in the store: a concurrent PATCH of the other field is not overwritten.
            return JSONResponse.make(try await store.updateApp(id: id, name: name, sessionTTLSeconds: ttl).response)
        } catch StoreError.notFound {
            throw APIError.notFound("App")
        }
    }

    // MARK: Providers

    private func createProvider(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let body = try await RequestBodyReader.decode(CreateProviderRequest.self, from: request, context: context)
        guard let name = body.name else { throw APIError.missingProperty("name") }
        let provider = ProviderRecord(id: UUID(), name: try AdminValidation.name(name), appIDs: [], createdAt: clock())
        try await store.createProvider(provider)
        AuditNote.object("provider", provider.id.lowercased)
        return JSONResponse.make(provider.response, status: .created)
    }

    private func showProvider(_ context: VouchRequestContext) async throws -> Response {
        let id = try PathID.uuid(context, "provider", what: "Provider")
        guard let provider = try await store.provider(id: id) else { throw APIError.notFound("Provider") }
        return JSONResponse.make(provider.response)
    }

    private func bind(_ context: VouchRequestContext, bound: Bool) async throws -> Response {
        let providerID = try PathID.uuid(context, "provider", what: "Provider")
        let appID = try PathID.uuid(context, "app", what: "App")
        try await operations.setBinding(provider: providerID, app: appID, bound: bound)
        return JSONResponse.noContent()
    }

    // MARK: Keys

    private func createKey(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let providerID = try PathID.uuid(context, "provider", what: "Provider")
        let body = try await RequestBodyReader.decode(CreateKeyRequest.self, from: request, context: context)
        guard try await store.provider(id: providerID) != nil else { throw APIError.notFound("Provider") }
        let publicKey: PublicKeyInfo
        var privateKeyPEM: String?
        switch (body.publicKey, body.generate ?? false) {
        case (.some, true):
            throw APIError.invalidProperty("generate", "Send either `public_key` or `generate: true`, not both.")
        case (.some(let pem), false):
            publicKey = try AdminOperations.publicKey(fromPEM: pem)
        case (.none, true):
            let pair = try RSAKeyPair.generate()
            publicKey = try PublicKeyInfo(pem: pair.publicKeyPEM)
            privateKeyPEM = pair.privateKeyPEM
        case (.none, false):
            throw APIError.missingProperty("public_key")
        }
        let key = try await operations.addKey(publicKey, to: providerID)
        var response = key.response
        response.privateKey = privateKeyPEM
        return JSONResponse.make(response, status: .created)
    }

    private func listKeys(_ context: VouchRequestContext) async throws -> Response {
        let providerID = try PathID.uuid(context, "provider", what: "Provider")
        guard try await store.provider(id: providerID) != nil else { throw APIError.notFound("Provider") }
        return JSONResponse.make(try await store.keys(ofProvider: providerID).map(\.response))
    }

    private func showKey(_ context: VouchRequestContext) async throws -> Response {
        JSONResponse.make(try await existingKey(context).response)
    }

    private func updateKey(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let id = try PathID.uuid(context, "key", what: "Key")
        let body = try await RequestBodyReader.decode(UpdateKeyRequest.self, from: request, context: context)
        guard let statusText = body.status else { throw APIError.missingProperty("status") }
        guard let status = KeyStatus(rawValue: statusText), status != .deleted else {
            throw APIError.invalidProperty("status", "`status` must be `active` or `disabled` (delete with DELETE).")
        }
        AuditNote.action(status == .active ? "key.enable" : "key.disable")
        // The store refuses a tombstone in the statement that writes: no read-then-write here.
        do {
            return JSONResponse.make(try await store.setKeyStatus(id: id, to: status).response)
        } catch StoreError.notFound {
            throw APIError.notFound("Key")
        } catch StoreError.tombstone {
            throw APIError(.conflict, "The key was deleted and cannot be changed.")
        }
    }

    private func deleteKey(_ context: VouchRequestContext) async throws -> Response {
        let id = try PathID.uuid(context, "key", what: "Key")
        do {
            _ = try await store.setKeyStatus(id: id, to: .deleted)
        } catch StoreError.notFound {
            throw APIError.notFound("Key")
        }
        return JSONResponse.noContent()
    }

    // MARK: Registration secrets

    private func createSecret(_ context: VouchRequestContext) async throws -> Response {
        let app = try await existingApp(context)
        let secret = RegistrationSecretRecord(applicationKey: UUID(), appID: app.id, secret: SecureRandom.bytes(32), createdAt: clock())
        try await store.createRegistrationSecret(secret)
        AuditNote.object("registration_secret", secret.applicationKey.lowercased)
        return JSONResponse.make(RegistrationSecretResponse(
            applicationKey: secret.applicationKey.lowercased, applicationSecret: Data(secret.secret).base64EncodedString()),
            status: .created)
    }

    private func listSecrets(_ context: VouchRequestContext) async throws -> Response {
        let app = try await existingApp(context)
        let now = clock()
        return JSONResponse.make(try await store.registrationSecrets(appID: app.id).map { $0.summary(at: now) })
    }

    /// `DELETE …/registration-secrets/<key>` (the contract's spelling, 204) and
    /// `POST …/<key>/revoke` (the same, answering with the secret's new standing).
    private func revokeSecret(_ request: Request, _ context: VouchRequestContext) async throws -> (RegistrationSecretRecord, Int64) {
        let app = try await existingApp(context)
        let applicationKey = try PathID.uuid(context, "key", what: "Registration secret")
        let body = try await RequestBodyReader.decodeIfPresent(RevokeRegistrationSecretRequest.self, from: request, context: context)
        let grace = body?.graceSeconds ?? 0
        guard Self.revocationGraceRange.contains(grace) else {
            throw APIError.invalidProperty("grace_seconds", "`grace_seconds` must be between 0 and 2592000 (30 days).")
        }
        let now = clock()
        do {
            return (try await store.revokeRegistrationSecret(applicationKey: applicationKey, appID: app.id, at: now + grace), now)
        } catch StoreError.notFound {
            throw APIError.notFound("Registration secret")
        }
    }

    // MARK: Users

    private func showUser(_ context: VouchRequestContext) async throws -> Response {
        let app = try await existingApp(context)
        let userID = try PathID.userID(context)
        guard let user = try await store.user(appID: app.id, userID: userID) else { throw APIError.notFound("User") }
        return try await userStatus(user)
    }

    private func updateUser(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let app = try await existingApp(context)
        let userID = try PathID.userID(context)
        let body = try await RequestBodyReader.decode(UpdateUserRequest.self, from: request, context: context)
        guard let suspended = body.suspended else { throw APIError.missingProperty("suspended") }
        AuditNote.action(suspended ? "user.suspend" : "user.unsuspend")
        let user = try await store.setSuspended(appID: app.id, userID: userID, suspended: suspended, now: clock())
        return try await userStatus(user)
    }

    private func revokeUserSessions(_ context: VouchRequestContext) async throws -> Response {
        let app = try await existingApp(context)
        try await store.revokeSessions(appID: app.id, userID: try PathID.userID(context), now: clock())
        return JSONResponse.noContent()
    }

    private func userStatus(_ user: UserRecord) async throws -> Response {
        let active = try await store.activeSessionCount(appID: user.appID, userID: user.userID, now: clock())
        return JSONResponse.make(UserStatusResponse(user: user.identity, suspended: user.suspended, activeSessions: active))
    }

    // MARK: Tools

    private func validateToken(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let body = try await RequestBodyReader.decode(ValidateTokenRequest.self, from: request, context: context)
        let (token, app) = try await AppLookup.tokenAndApp(body, store: store)
        let answer = try await authenticator.validate(identityToken: token, app: app)
        return JSONResponse.make(answer, echoing: ["header": .object(answer.header), "claims": .object(answer.claims)])
    }

    // MARK: Lookups

    private func existingApp(_ context: VouchRequestContext) async throws -> AppRecord {
        guard let app = try await store.app(id: try PathID.uuid(context, "app", what: "App")) else { throw APIError.notFound("App") }
        return app
    }

    private func existingKey(_ context: VouchRequestContext) async throws -> KeyRecord {
        guard let key = try await store.key(id: try PathID.uuid(context, "key", what: "Key")) else { throw APIError.notFound("Key") }
        return key
    }
}
