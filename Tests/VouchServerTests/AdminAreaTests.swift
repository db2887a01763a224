import Hummingbird
import HummingbirdTesting
import Testing
@testable import VouchServer

/// The admin area's guard is the route group itself: a route registered on it without any check
/// of its own is still refused without the admin token.
@Suite("Admin area route group")
struct AdminAreaTests {
    @Test("a route added to the admin group with no check of its own still requires the admin token")
    func unguardedRouteIsGuarded() async throws {
        let router = Router(context: VouchRequestContext.self)
        let table = RouteTableBox()
        router.add(middleware: ErrorMiddleware(routes: table))
        let group = AdminArea.group(on: router, adminToken: AdminToken("the-admin-token"))
        RouteRegistrar(router: group, table: table).on(.get, "/admin/added-later") { _, context in
            Response(status: .ok, body: .init(byteBuffer: .init(string: "\(context.adminPrincipal == .adminToken)")))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            for authorization in [nil, "Bearer wrong", "the-admin-token", "Basic the-admin-token"] {
                var headers: HTTPFields = [:]
                if let authorization { headers[.authorization] = authorization }
                try await client.execute(uri: "/admin/added-later", method: .get, headers: headers) { response in
                    #expect(response.status == .forbidden, "\(authorization ?? "no header")")
                }
            }
            try await client.execute(uri: "/admin/added-later", method: .get,
                                     headers: [.authorization: "bearer the-admin-token"]) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "true")
            }
        }
    }
}
