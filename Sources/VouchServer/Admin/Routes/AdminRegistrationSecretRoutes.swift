import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// `/admin/apps/:app/registration-secrets`: the Sinch profile's shared secrets (PROTOCOL §4):
/// create (shown once), list, revoke now or after a grace period.
struct AdminRegistrationSecretRoutes {
    let store: any Store
    let clock: @Sendable () -> Int64

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.post("/apps/:app/registration-secrets") { _, context in try await create(context) }
        routes.get("/apps/:app/registration-secrets") { _, context in
            let app = try await AdminLookup.app(context, in: store)
            let now = clock()
            return JSONResponse.make(try await store.registrationSecrets(appID: app.id).map { $0.summary(at: now) })
        }
        // The contract's spelling (204), and the same answering with the secret's new standing.
        routes.delete("/apps/:app/registration-secrets/:key") { request, context in
            _ = try await revoke(request, context)
            return JSONResponse.noContent()
        }
        routes.post("/apps/:app/registration-secrets/:key/revoke") { request, context in
            let (revoked, now) = try await revoke(request, context)
            return JSONResponse.make(revoked.summary(at: now))
        }
        return routes
    }

    private func create(_ context: AdminContext) async throws -> Response {
        let app = try await AdminLookup.app(context, in: store)
        let secret = RegistrationSecretRecord(applicationKey: UUID(), appID: app.id, secret: SecureRandom.bytes(32), createdAt: clock())
        try await store.createRegistrationSecret(secret)
        AuditNote.object("registration_secret", secret.applicationKey.lowercased)
        return JSONResponse.make(
            RegistrationSecretResponse(
                applicationKey: secret.applicationKey.lowercased, applicationSecret: Data(secret.secret).base64EncodedString()),
            status: .created)
    }

    private func revoke(_ request: Request, _ context: AdminContext) async throws -> (RegistrationSecretRecord, Int64) {
        let app = try await AdminLookup.app(context, in: store)
        let applicationKey = try PathID.uuid(context, "key", what: "Registration secret")
        let body = try await RequestBodyReader.decodeIfPresent(RevokeRegistrationSecretRequest.self, from: request, context: context)
        let grace = body?.graceSeconds ?? 0
        guard AdminAPI.revocationGraceRange.contains(grace) else {
            throw APIError.invalidProperty("grace_seconds", "`grace_seconds` must be between 0 and 2592000 (30 days).")
        }
        let now = clock()
        do {
            return (try await store.revokeRegistrationSecret(applicationKey: applicationKey, appID: app.id, at: now + grace), now)
        } catch StoreError.notFound {
            throw APIError.notFound("Registration secret")
        }
    }
}
