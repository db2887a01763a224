import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// Path parameters of the admin API: bare UUIDs (any case) and percent-encoded user ids.
enum PathID {
    static func uuid(_ context: some RequestContext, _ name: String, what: String) throws -> UUID {
        guard let text = context.parameters.get(name), let id = LayerID.parseUUID(text) else {
            throw APIError.notFound(what)
        }
        return id
    }

    static func userID(_ context: some RequestContext) throws -> String {
        guard let raw = context.parameters.get("user"), let userID = raw.removingPercentEncoding,
            (1...255).contains(userID.utf8.count)
        else {
            throw APIError.notFound("User")
        }
        return userID
    }
}

/// The records a path names, or the 404 that says which is missing.
enum AdminLookup {
    static func app(_ context: some RequestContext, in store: any Store) async throws -> AppRecord {
        guard let app = try await store.app(id: try PathID.uuid(context, "app", what: "App")) else { throw APIError.notFound("App") }
        return app
    }
}
