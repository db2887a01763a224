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
        router.add(middleware: RequestEnvelopeMiddleware(errors: ErrorAnswers(routes: table), metrics: ServerMetrics()))
        let addedLater = RouteCollection(context: AdminContext.self)
        addedLater.get("/added-later") { _, context in
            Response(status: .ok, body: .init(byteBuffer: .init(string: "\(context.principal == .adminToken)")))
        }
        AdminArea.register([addedLater], on: router, adminToken: AdminToken("the-admin-token"))
        table.load(from: router)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            for authorization in [nil, "Bearer wrong", "the-admin-token", "Basic the-admin-token"] {
                var headers: HTTPFields = [:]
                if let authorization { headers[.authorization] = authorization }
                try await client.execute(uri: "/admin/added-later", method: .get, headers: headers) { response in
                    #expect(response.status == .forbidden, "\(authorization ?? "no header")")
                }
            }
            try await client.execute(
                uri: "/admin/added-later", method: .get,
                headers: [.authorization: "bearer the-admin-token"]
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "true")
            }
        }
    }

    @Test("an admin context cannot be made for a request the admin middleware did not authenticate")
    func adminContextNeedsPrincipal() async throws {
        let router = Router(context: VouchRequestContext.self)
        let table = RouteTableBox()
        router.add(middleware: RequestEnvelopeMiddleware(errors: ErrorAnswers(routes: table), metrics: ServerMetrics()))
        // Wired wrongly on purpose: the admin context without the admin area's middleware.
        router.group(context: AdminContext.self).get("/admin/miswired") { _, _ in Response(status: .ok) }
        table.load(from: router)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await client.execute(uri: "/admin/miswired", method: .get, headers: [.authorization: "Bearer anything"]) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("\"access_denied\""))
            }
        }
    }

    @Test("the admin collections' routes are in the route table: a wrong method is 405 with Allow")
    func collectionsAreRecorded() async throws {
        let table = RouteTableBox()
        let routes = RouteCollection(context: AdminContext.self)
        routes.get("/things/:thing") { _, _ in Response(status: .ok) }
        routes.patch("/things/:thing") { _, _ in Response(status: .ok) }
        let router = Router(context: VouchRequestContext.self)
        AdminArea.register([routes], on: router, adminToken: AdminToken("t"))
        table.load(from: router)
        #expect(table.methods(forPath: "/admin/things/42") == [.get, .patch])
        #expect(table.methods(forPath: "/admin/things").isEmpty)
        #expect(table.methods(forPath: "/things/42").isEmpty)
    }
}
