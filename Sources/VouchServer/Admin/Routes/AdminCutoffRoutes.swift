import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// `POST` and `GET …/cutoff` at four scopes (PROTOCOL §8.14): an app, a provider, a key, a user.
struct AdminCutoffRoutes {
    let operations: CutoffOperations

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        let scopes: [(path: RouterPath, target: @Sendable (AdminContext) throws -> CutoffTarget)] = [
            ("/apps/:app/cutoff", { .app(try PathID.uuid($0, "app", what: "App")) }),
            ("/providers/:provider/cutoff", { .provider(try PathID.uuid($0, "provider", what: "Provider")) }),
            ("/keys/:key/cutoff", { .key(try PathID.uuid($0, "key", what: "Key")) }),
            (
                "/apps/:app/users/:user/cutoff",
                { .user(appID: try PathID.uuid($0, "app", what: "App"), userID: try PathID.userID($0)) }
            ),
        ]
        for scope in scopes {
            let target = scope.target
            routes.post(scope.path) { request, context in
                let body = try await RequestBodyReader.decodeIfPresent(CutoffRequest.self, from: request, context: context)
                return JSONResponse.make(try await operations.cutOff(try target(context), reason: body?.reason))
            }
            routes.get(scope.path) { _, context in
                JSONResponse.make(try await operations.status(try target(context)))
            }
        }
        return routes
    }
}
