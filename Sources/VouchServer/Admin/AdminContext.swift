import Hummingbird
import Logging
import NIOCore

/// The context of every admin API handler: it exists only for a request the admin area's
/// middleware authenticated, and it carries who that was. A handler typed on `AdminContext`
/// cannot be registered on the open router (the types differ), and if it were reached some other
/// way the context could not be made: `init` refuses a request no middleware stamped.
struct AdminContext: ChildRequestContext {
    typealias ParentContext = VouchRequestContext

    var coreContext: CoreRequestContextStorage
    /// Who is acting: the admin bearer token or a dashboard session. Never absent.
    let principal: AdminPrincipal
    /// The client's address as the rate limiters see it (the TCP peer, or the trusted proxy's word).
    let clientIP: String

    init(context: VouchRequestContext) throws {
        guard let principal = context.adminPrincipal else { throw APIError.accessDenied }
        self.coreContext = context.coreContext
        self.principal = principal
        self.clientIP = context.clientIP
    }

    var maxUploadSize: Int { RequestLimits.maximumBodySize }
}
