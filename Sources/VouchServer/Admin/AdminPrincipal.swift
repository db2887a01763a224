/// Who an authenticated admin request acts as: set only by the admin area's authentication
/// middleware, so a handler can tell an API call from a dashboard action (and an audit record
/// can say which).
enum AdminPrincipal: Sendable, Equatable {
    /// `Authorization: Bearer <admin token>` on the admin API.
    case adminToken
    /// A dashboard session opened with the admin token; `id` is a short, non-secret handle.
    case dashboardSession(id: String)
}
