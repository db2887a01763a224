import HTTPTypes
import Hummingbird
import NIOCore

/// Guards the dashboard's authenticated pages: a browser without a live session is sent to the
/// sign-in page, and a state-changing request must carry the session's CSRF token in its form
/// (`csrf`) or in `X-CSRF-Token` (the key generator's upload), or it is refused with 403.
struct DashboardSessionMiddleware: RouterMiddleware {
    typealias Context = VouchRequestContext

    let sessions: DashboardSessions

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = DashboardCookies.value(DashboardCookies.session, in: request.headers),
            let session = await sessions.session(token: token)
        else {
            if request.method == .get || request.method == .head {
                return DashboardResponse.redirect(to: "/dashboard/sign-in")
            }
            throw DashboardError(.forbidden, "Your dashboard session has ended; sign in again.")
        }
        var request = request
        if request.method != .get && request.method != .head {
            let bytes = try await RequestBodyReader.collect(request)
            let sent = request.headers[DashboardResponse.csrfHeader] ?? (try? DashboardForm(bytes: bytes))?["csrf"]
            guard let sent, ConstantTime.equal(Array(sent.utf8), Array(session.csrfToken.utf8)) else {
                throw DashboardError(.forbidden, "The form is missing its security token (CSRF); reload the page and try again.")
            }
            request.body = RequestBody(buffer: ByteBuffer(bytes: bytes))
        }
        var context = context
        context.adminPrincipal = .dashboardSession(id: session.id)
        return try await next(request, context)
    }
}

/// Renders any error below it as a dashboard page (HTML, the dashboard's headers) rather than
/// the API's JSON, so a browser never sees a raw error or a stack.
struct DashboardErrorMiddleware: RouterMiddleware {
    typealias Context = VouchRequestContext

    let renderer: DashboardRenderer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            throw error
        } catch {
            let failure = DashboardError.from(error)
            if failure.status.code >= 500 {
                context.logger.error("dashboard request failed", metadata: ["error_type": "\(type(of: error))"])
            }
            return renderer.errorPage(failure)
        }
    }
}
