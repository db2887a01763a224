import Foundation
import Hummingbird
import Logging
import VouchProtocol
import VouchStore

/// Writes one audit entry for every state-changing request that reaches an admin handler (the
/// admin API and the dashboard's forms), and for the reads ``AuditedRoutes`` lists, whatever its
/// outcome.
///
/// It sits on the same route groups as the authentication middleware, after it: a route added to
/// those groups later is recorded without anyone remembering to, under its name in
/// ``AuditedRoutes`` or, failing that, `<METHOD> <route>`. Requests refused by authentication
/// never get here, so nobody without the admin token can make the log grow.
///
/// The entry is written before the response goes out, so a client that got its answer finds the
/// entry at once. A failed write does not undo the change already made; it is logged and counted
/// (`vouch_audit_dropped_total{kind="admin"}`).
struct AdminAuditMiddleware<Context: RequestContext>: RouterMiddleware {
    let store: any Store
    let clock: @Sendable () -> Int64
    let metrics: ServerMetrics
    /// Who the authentication middleware found the request to be.
    let principal: @Sendable (Context) -> AdminPrincipal?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route = context.coreContext.endpointPath.value ?? "unmatched"
        let spec = AuditedRoutes.spec(method: request.method.rawValue, route: route)
        let isRead = request.method == .get || request.method == .head || request.method == .options
        if isRead ? spec?.action == nil : spec.map({ $0.action == nil }) == true { return try await next(request, context) }

        let note = AuditNote()
        let response: Response
        do {
            response = try await AuditNote.$current.withValue(note) { try await next(request, context) }
        } catch {
            await record(request, context, route: route, spec: spec, note: note, outcome: Self.outcome(of: error))
            throw error
        }
        await record(
            request, context, route: route, spec: spec, note: note,
            outcome: response.status.code < 400 ? "ok" : "http_\(response.status.code)")
        return response
    }

    private func record(
        _ request: Request, _ context: Context, route: String, spec: AuditedRoutes.Spec?,
        note: AuditNote, outcome: String
    ) async {
        let noted = note.fields
        var objectType = spec?.object?.type
        var objectID = spec?.object.flatMap { Self.parameter($0.parameter, context) }
        if let type = noted.objectType, let id = noted.objectID {
            objectType = type
            objectID = id
        }
        let appID = noted.appID ?? Self.parameter("app", context).flatMap { LayerID.parseUUID($0) }
        let entry = NewAuditEntry(
            at: clock(), kind: .admin, actor: principal(context)?.auditActor ?? "unknown",
            action: noted.action ?? spec?.action ?? "\(request.method.rawValue) \(route)", outcome: outcome,
            appID: appID, objectType: objectID == nil ? nil : objectType, objectID: objectID, note: noted.note)
        await write(entry, logger: context.logger)
    }

    /// Writes one admin entry; a failure is logged and counted, never thrown (the action it
    /// describes has happened).
    func write(_ entry: NewAuditEntry, logger: Logger) async {
        do {
            try await store.appendAudit([entry])
        } catch {
            metrics.recordAuditDropped(kind: .admin, count: 1)
            logger.warning(
                "audit log write failed; admin action not recorded",
                metadata: [
                    "action": "\(entry.action)", "error_type": "\(type(of: error))",
                ])
        }
    }

    /// A path parameter as the handler reads it: ids in their stored form (bare lower-case
    /// UUIDs), a user id percent-decoded.
    private static func parameter(_ name: String, _ context: Context) -> String? {
        guard !name.isEmpty, let raw = context.parameters.get(name) else { return nil }
        let text = raw.removingPercentEncoding ?? raw
        return LayerID.parseUUID(text).map(\.lowercased) ?? text
    }

    /// The error id the client was answered with, or the status of an error that has none.
    static func outcome(of error: any Error) -> String {
        if let error = error as? APIError { return error.body.id }
        if let error = error as? any HTTPResponseError { return "http_\(error.status.code)" }
        return "error"
    }
}

extension AdminPrincipal {
    /// How the audit log names who acted: never the admin token or the dashboard cookie, only
    /// `api` or the first 12 hex digits of the session's id (itself a SHA-256 of the cookie),
    /// enough to tell one browser session's actions from another's.
    var auditActor: String {
        switch self {
        case .adminToken: "api"
        case .dashboardSession(let id): "dashboard:" + id.prefix(12)
        }
    }
}
