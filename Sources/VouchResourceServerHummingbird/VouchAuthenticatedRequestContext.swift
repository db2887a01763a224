import Hummingbird
import VouchResourceServer

/// A request context that can carry the verified access token, so that handlers behind
/// ``VouchAccessTokenMiddleware`` read the user from the context instead of parsing headers again.
public protocol VouchAuthenticatedRequestContext: RequestContext {
    /// Set by ``VouchAccessTokenMiddleware`` and by nothing else; `nil` before it runs.
    var vouchUser: VerifiedAccessToken? { get set }
}
