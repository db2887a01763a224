import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// Apps (create, rename, session lifetime, challenge margin, access tokens, live sockets) and their
/// registration secrets.
extension DashboardRoutes {
    /// The signed-in pages of this area, added to the group that requires a dashboard session.
    var appsArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        routes.on("/dashboard/apps", method: .get) { _, context in try await appsPage(context) }
        routes.on("/dashboard/apps", method: .post) { request, context in try await createApp(request, context) }
        routes.on("/dashboard/apps/:app", method: .post) { request, context in try await updateApp(request, context) }
        routes.on("/dashboard/apps/:app/secrets", method: .get) { _, context in
            try await secretsPage(context, appID: try Self.uuid(context, "app", what: "App"))
        }
        routes.on("/dashboard/apps/:app/secrets", method: .post) { _, context in try await createSecret(context) }
        routes.on("/dashboard/apps/:app/secrets/:key/revoke", method: .post) { request, context in try await revokeSecret(request, context) }
        return routes
    }

    /// The apps page; with `created`, the service credential just made is shown on it this once
    /// (answered 201, not redirected to, so that no later page can show it again).
    func appsPage(
        _ context: DashboardContext, created: CreatedServiceCredential? = nil, error: DashboardError? = nil
    ) async throws -> Response {
        let chrome = try await chrome(context, "apps", error: error?.message)
        var apps: [[String: Any]] = []
        let sockets = await liveSockets.socketCounts()
        for app in try await store.apps() {
            apps.append([
                "uuid": app.id.lowercased, "id": LayerID.app(app.id), "name": app.name, "ttl": DurationText.format(app.sessionTTLSeconds),
                "margin": DurationText.format(app.challengeMarginSeconds), "liveSockets": sockets[app.id] ?? 0,
                "accessTTL": DurationText.format(app.accessTokenTTLSeconds), "audiences": app.audiences,
                "audiencesText": app.audiences.joined(separator: "\n"),
                "serviceCredentials": try await serviceCredentialRows(of: app.id),
                "createdAt": Timestamp.rfc3339(app.createdAt), "csrf": chrome.csrfToken,
                "cutoff": try await lastCutoff(.app(app.id)), "cutoffPath": "/dashboard/apps/\(app.id.lowercased)/cutoff",
            ])
        }
        var values: [String: Any] = ["apps": apps, "csrf": chrome.csrfToken]
        if let created { values["createdCredential"] = created.values }
        return renderer.page(
            "apps", title: "Apps", values: values, chrome: chrome,
            status: error?.status ?? (created == nil ? .ok : .created))
    }

    private func createApp(_ request: Request, _ context: DashboardContext) async throws -> Response {
        try await attempt(
            {
                let form = try await DashboardForm.read(request)
                let app = AppRecord(
                    id: UUID(), name: try AdminValidation.name(form["name"] ?? ""),
                    sessionTTLSeconds: try Self.ttl(form) ?? AdminAPI.defaultSessionTTL, createdAt: clock())
                try await store.createApp(app)
                AuditNote.created(app: app.id)
                await notice("Created app \(app.name): \(LayerID.app(app.id))", context)
                return DashboardResponse.redirect(to: "/dashboard/apps")
            }, orShow: { try await appsPage(context, error: $0) })
    }

    private func updateApp(_ request: Request, _ context: DashboardContext) async throws -> Response {
        try await attempt(
            {
                let form = try await DashboardForm.read(request)
                let id = try Self.uuid(context, "app", what: "App")
                let name = try form["name"].map { try AdminValidation.name($0) }
                let ttl = try Self.ttl(form)
                let margin = try Self.duration(
                    form, "challenge_margin_seconds", "The challenge margin", within: AppRecord.challengeMarginRange)
                let accessTTL = try Self.duration(
                    form, "access_token_ttl_seconds", "The access-token lifetime", within: AppRecord.accessTokenTTLRange)
                let audiences = try Self.audiences(form)
                // Partial in the store: a concurrent change of another field is not overwritten.
                let changes = AppChanges(
                    name: name, sessionTTLSeconds: ttl, challengeMarginSeconds: margin, accessTokenTTLSeconds: accessTTL,
                    audiences: audiences)
                let app: AppRecord
                do {
                    app = try await store.updateApp(id: id, changes: changes)
                } catch StoreError.notFound {
                    throw DashboardError(.notFound, "App not found.")
                }
                await notice("Saved app \(app.name).", context)
                return DashboardResponse.redirect(to: "/dashboard/apps")
            }, orShow: { try await appsPage(context, error: $0) })
    }

    /// The session lifetime typed in `form`, or nil when the field is empty or absent.
    static func ttl(_ form: DashboardForm) throws -> Int64? {
        try duration(form, "session_ttl_seconds", "The session lifetime", within: AdminAPI.sessionTTLRange)
    }

    /// The audiences typed in `form`, one per line (blank lines and surrounding spaces ignored),
    /// checked as the admin API checks them; nil when the field is absent, so that a form without
    /// it leaves the list alone, and an empty list when it is sent empty.
    ///
    /// One per line rather than comma-separated: an audience may contain a comma, never a line
    /// break.
    static func audiences(_ form: DashboardForm) throws -> [String]? {
        guard let text = form["audiences"] else { return nil }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return try AdminValidation.audiences(lines.filter { !$0.isEmpty })
    }

    /// A duration field (`DurationText`) within `range`, or nil when it is empty or absent.
    static func duration(
        _ form: DashboardForm, _ field: String, _ what: String,
        within range: ClosedRange<Int64>
    ) throws -> Int64? {
        guard let text = form.text(field) else { return nil }
        guard let seconds = DurationText.seconds(text) else {
            throw DashboardError(.unprocessableContent, "\(what) must be a duration \(DurationText.examples).")
        }
        guard range.contains(seconds) else {
            throw DashboardError(
                .unprocessableContent,
                "\(what) must be between \(DurationText.format(range.lowerBound)) "
                    + "and \(DurationText.format(range.upperBound)).")
        }
        return seconds
    }

    // MARK: Registration secrets

    private func secretsPage(
        _ context: DashboardContext, appID: UUID, created: RegistrationSecretRecord? = nil,
        error: DashboardError? = nil
    ) async throws -> Response {
        guard let app = try await store.app(id: appID) else { throw DashboardError(.notFound, "App not found.") }
        let chrome = try await chrome(context, "apps", error: error?.message)
        let now = clock()
        let secrets: [[String: Any]] = try await store.registrationSecrets(appID: app.id).map { secret in
            let summary = secret.summary(at: now)
            return [
                "application_key": summary.applicationKey, "status": summary.status.rawValue,
                "created_at": summary.createdAt, "revoked_at": summary.revokedAt ?? "",
                "active": summary.status == .active,
            ]
        }
        var values: [String: Any] = [
            "appName": app.name, "appID": LayerID.app(app.id), "appUUID": app.id.lowercased,
            "secrets": secrets, "csrf": chrome.csrfToken,
        ]
        if let created {
            values["created"] = [
                "applicationKey": created.applicationKey.lowercased,
                "applicationSecret": Data(created.secret).base64EncodedString(),
            ]
        }
        return renderer.page(
            "secrets", title: "Registration secrets", values: values, chrome: chrome,
            status: error?.status ?? (created == nil ? .ok : .created))
    }

    /// Answers with the page itself (no redirect): the secret is shown this once.
    private func createSecret(_ context: DashboardContext) async throws -> Response {
        let appID = try Self.uuid(context, "app", what: "App")
        guard try await store.app(id: appID) != nil else { throw DashboardError(.notFound, "App not found.") }
        let secret = RegistrationSecretRecord(applicationKey: UUID(), appID: appID, secret: SecureRandom.bytes(32), createdAt: clock())
        try await store.createRegistrationSecret(secret)
        AuditNote.object("registration_secret", secret.applicationKey.lowercased)
        return try await secretsPage(context, appID: appID, created: secret)
    }

    private func revokeSecret(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let appID = try Self.uuid(context, "app", what: "App")
        return try await attempt(
            {
                let form = try await DashboardForm.read(request)
                let key = try Self.uuid(context, "key", what: "Registration secret")
                let grace = try Self.duration(form, "grace_seconds", "The grace period", within: AdminAPI.revocationGraceRange) ?? 0
                do {
                    _ = try await store.revokeRegistrationSecret(applicationKey: key, appID: appID, at: clock() + grace)
                } catch StoreError.notFound {
                    throw DashboardError(.notFound, "Registration secret not found.")
                }
                await notice("Revoked \(key.lowercased)" + (grace > 0 ? " (it keeps working for \(DurationText.format(grace)))." : "."), context)
                return DashboardResponse.redirect(to: "/dashboard/apps/\(appID.lowercased)/secrets")
            }, orShow: { try await secretsPage(context, appID: appID, error: $0) })
    }
}
