/// The audit log's name for each state-changing admin route (API and dashboard), and which path
/// parameter names its object. A state-changing route missing here is still recorded, under
/// `<METHOD> <route>`; a route that changes nothing (the validation tool) is listed as such. A
/// read is recorded only when it is listed (a user's export: personal data leaving the server).
enum AuditedRoutes {
    struct Spec: Sendable {
        /// `nil`: the route changes nothing and is not recorded.
        let action: String?
        /// The object's type and the path parameter holding its id.
        let object: (type: String, parameter: String)?
    }

    static func spec(method: String, route: String) -> Spec? { table["\(method) \(route)"] }

    private static func spec(_ action: String, _ type: String? = nil, _ parameter: String? = nil) -> Spec {
        Spec(action: action, object: type.map { ($0, parameter ?? "") })
    }

    private static let readOnly = Spec(action: nil, object: nil)

    private static let table: [String: Spec] = [
        "POST /admin/apps": spec("app.create", "app"),
        "PATCH /admin/apps/{app}": spec("app.update", "app", "app"),
        "POST /admin/providers": spec("provider.create", "provider"),
        "PATCH /admin/providers/{provider}": spec("provider.update", "provider", "provider"),
        "POST /admin/providers/{provider}/key-source/refresh": spec("provider.key_source_refresh", "provider", "provider"),
        "PUT /admin/providers/{provider}/apps/{app}": spec("provider.bind", "provider", "provider"),
        "DELETE /admin/providers/{provider}/apps/{app}": spec("provider.unbind", "provider", "provider"),
        "POST /admin/providers/{provider}/keys": spec("key.create", "key"),
        "PATCH /admin/keys/{key}": spec("key.update", "key", "key"),
        "DELETE /admin/keys/{key}": spec("key.delete", "key", "key"),
        "POST /admin/apps/{app}/registration-secrets": spec("secret.create", "registration_secret"),
        "DELETE /admin/apps/{app}/registration-secrets/{key}": spec("secret.revoke", "registration_secret", "key"),
        "POST /admin/apps/{app}/registration-secrets/{key}/revoke": spec("secret.revoke", "registration_secret", "key"),
        "POST /admin/apps/{app}/service-credentials": spec("service_credential.create", "service_credential"),
        "DELETE /admin/apps/{app}/service-credentials/{credential}": spec(
            "service_credential.revoke", "service_credential", "credential"),
        "POST /admin/apps/{app}/webhooks": spec("webhook.create", "webhook"),
        "PATCH /admin/apps/{app}/webhooks/{webhook}": spec("webhook.update", "webhook", "webhook"),
        "DELETE /admin/apps/{app}/webhooks/{webhook}": spec("webhook.delete", "webhook", "webhook"),
        "POST /admin/apps/{app}/webhooks/{webhook}/deliveries/{event}/replay": spec("webhook.replay", "webhook", "webhook"),
        "PATCH /admin/apps/{app}/users/{user}": spec("user.update", "user", "user"),
        // The handler names the object: the pseudonym, never the erased user's id.
        "DELETE /admin/apps/{app}/users/{user}": spec("user.delete", "user"),
        "GET /admin/apps/{app}/users/{user}/export": spec("user.export", "user"),
        "DELETE /admin/apps/{app}/users/{user}/sessions": spec("user.revoke_sessions", "user", "user"),
        "POST /admin/apps/{app}/cutoff": spec("cutoff.app", "app", "app"),
        "POST /admin/providers/{provider}/cutoff": spec("cutoff.provider", "provider", "provider"),
        "POST /admin/keys/{key}/cutoff": spec("cutoff.key", "key", "key"),
        "POST /admin/apps/{app}/users/{user}/cutoff": spec("cutoff.user", "user", "user"),
        "DELETE /admin/sessions/{session}": spec("session.revoke", "session", "session"),
        "POST /admin/tools/validate-identity-token": readOnly,

        "POST /dashboard/sign-out": spec("dashboard.sign_out"),
        "POST /dashboard/providers/{provider}/key-source": spec("provider.update", "provider", "provider"),
        "POST /dashboard/providers/{provider}/key-source/refresh": spec("provider.key_source_refresh", "provider", "provider"),
        "POST /dashboard/apps": spec("app.create", "app"),
        "POST /dashboard/apps/{app}": spec("app.update", "app", "app"),
        "POST /dashboard/apps/{app}/secrets": spec("secret.create", "registration_secret"),
        "POST /dashboard/apps/{app}/secrets/{key}/revoke": spec("secret.revoke", "registration_secret", "key"),
        "POST /dashboard/apps/{app}/service-credentials": spec("service_credential.create", "service_credential"),
        "POST /dashboard/apps/{app}/service-credentials/{credential}/revoke": spec(
            "service_credential.revoke", "service_credential", "credential"),
        "POST /dashboard/apps/{app}/webhooks": spec("webhook.create", "webhook"),
        "POST /dashboard/apps/{app}/webhooks/{webhook}/pause": spec("webhook.update", "webhook", "webhook"),
        "POST /dashboard/apps/{app}/webhooks/{webhook}/resume": spec("webhook.update", "webhook", "webhook"),
        "POST /dashboard/apps/{app}/webhooks/{webhook}/delete": spec("webhook.delete", "webhook", "webhook"),
        "POST /dashboard/apps/{app}/webhooks/{webhook}/deliveries/{event}/replay": spec("webhook.replay", "webhook", "webhook"),
        "POST /dashboard/providers": spec("provider.create", "provider"),
        "POST /dashboard/providers/{provider}/bind": spec("provider.bind", "provider", "provider"),
        "POST /dashboard/providers/{provider}/unbind": spec("provider.unbind", "provider", "provider"),
        "POST /dashboard/providers/{provider}/keys": spec("key.create", "key"),
        "POST /dashboard/keys/{key}/status": spec("key.update", "key", "key"),
        "POST /dashboard/keys/{key}/delete": spec("key.delete", "key", "key"),
        "POST /dashboard/users/suspension": spec("user.update", "user"),
        "POST /dashboard/users/revoke-sessions": spec("user.revoke_sessions", "user"),
        "POST /dashboard/users/erase": spec("user.delete", "user"),
        "GET /dashboard/users/export": spec("user.export", "user"),
        "POST /dashboard/sessions/{session}/revoke": spec("session.revoke", "session", "session"),
        "POST /dashboard/apps/{app}/cutoff": spec("cutoff.app", "app", "app"),
        "POST /dashboard/providers/{provider}/cutoff": spec("cutoff.provider", "provider", "provider"),
        "POST /dashboard/keys/{key}/cutoff": spec("cutoff.key", "key", "key"),
        "POST /dashboard/apps/{app}/cutoff/review": readOnly,
        "POST /dashboard/providers/{provider}/cutoff/review": readOnly,
        "POST /dashboard/keys/{key}/cutoff/review": readOnly,
        "POST /dashboard/validate": readOnly,
    ]
}
