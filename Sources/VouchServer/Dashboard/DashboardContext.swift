import Hummingbird
import Logging
import NIOCore

/// The context of an authenticated dashboard page. It can only be made from a request the
/// session middleware stamped with a dashboard principal: a page registered on the
/// authenticated group cannot run for a browser that has not signed in.
struct DashboardContext: ChildRequestContext {
    typealias ParentContext = VouchRequestContext

    var coreContext: CoreRequestContextStorage
    /// The signed-in session (the hex SHA-256 of its cookie token).
    let sessionID: String

    init(context: VouchRequestContext) throws {
        guard case .dashboardSession(let id) = context.adminPrincipal else {
            throw DashboardError(.forbidden, "Sign in first.")
        }
        coreContext = context.coreContext
        sessionID = id
    }

    var maxUploadSize: Int { RequestLimits.maximumBodySize }
}
