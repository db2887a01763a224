import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// An app's service credentials (PROTOCOL §8.16) on its card of the apps page: listed, created
/// (the credential shown on the answer to the form, once), revoked.
extension DashboardRoutes {
    /// The two forms, added to the group that requires a dashboard session and its CSRF token.
    var serviceCredentialsArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        routes.on("/dashboard/apps/:app/service-credentials", method: .post) { request, context in
            try await createServiceCredential(request, context)
        }
        routes.on("/dashboard/apps/:app/service-credentials/:credential/revoke", method: .post) { _, context in
            try await revokeServiceCredential(context)
        }
        return routes
    }

    /// The rows of an app's "Service credentials" table, oldest first: never the credential,
    /// which the store does not have.
    func serviceCredentialRows(of appID: UUID) async throws -> [[String: Any]] {
        try await store.serviceCredentials(appID: appID).map { credential in
            [
                "id": credential.id.lowercased, "name": credential.name, "createdAt": Timestamp.rfc3339(credential.createdAt),
                "revokedAt": credential.revokedAt.map(Timestamp.rfc3339) ?? "", "revoked": credential.isRevoked,
            ]
        }
    }

    /// Answers with the apps page itself (no redirect): the credential is shown this once, as a
    /// new registration secret is.
    private func createServiceCredential(_ request: Request, _ context: DashboardContext) async throws -> Response {
        try await attempt(
            {
                let form = try await DashboardForm.read(request)
                let appID = try Self.uuid(context, "app", what: "App")
                guard let app = try await store.app(id: appID) else { throw DashboardError(.notFound, "App not found.") }
                let (record, credential) = try await operations.createServiceCredential(appID: app.id, name: form.text("name") ?? "")
                return try await appsPage(
                    context, created: CreatedServiceCredential(appName: app.name, name: record.name, credential: credential))
            }, orShow: { try await appsPage(context, error: $0) })
    }

    private func revokeServiceCredential(_ context: DashboardContext) async throws -> Response {
        try await attempt(
            {
                let appID = try Self.uuid(context, "app", what: "App")
                let id = try Self.uuid(context, "credential", what: "Service credential")
                guard try await store.app(id: appID) != nil else { throw DashboardError(.notFound, "App not found.") }
                let revoked = try await operations.revokeServiceCredential(id: id, appID: appID)
                await notice("Revoked service credential \(revoked.name); services using it are refused within a second.", context)
                return DashboardResponse.redirect(to: "/dashboard/apps")
            }, orShow: { try await appsPage(context, error: $0) })
    }
}

/// A service credential just created, as the apps page shows it once.
struct CreatedServiceCredential {
    let appName: String
    let name: String
    let credential: String

    var values: [String: Any] { ["appName": appName, "name": name, "credential": credential] }
}
