import Hummingbird
import VouchProtocol
import VouchStore

/// `/admin/tools/validate-identity-token`: every §5.4 reason a token breaks, without consuming
/// its nonce (PROTOCOL §4).
struct AdminTokenValidationRoutes {
    let store: any Store
    let authenticator: Authenticator

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.post("/tools/validate-identity-token") { request, context in
            let body = try await RequestBodyReader.decode(ValidateTokenRequest.self, from: request, context: context)
            let (token, app) = try await AppLookup.tokenAndApp(body, store: store)
            let answer = try await authenticator.validate(identityToken: token, app: app)
            return JSONResponse.make(answer, echoing: ["header": .object(answer.header), "claims": .object(answer.claims)])
        }
        return routes
    }
}
