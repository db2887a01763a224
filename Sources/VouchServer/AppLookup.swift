import Foundation
import VouchProtocol
import VouchStore

/// Resolving the `identity_token` and `app_id` pair shared by sign-in and the validation tool.
enum AppLookup {
    static func tokenAndApp(_ body: CreateSessionRequest, store: any Store) async throws -> (String, AppRecord) {
        guard let token = body.identityToken else { throw APIError.missingProperty("identity_token") }
        guard let appText = body.appID else { throw APIError.missingProperty("app_id") }
        guard let appID = LayerID.parseApp(appText), let app = try await store.app(id: appID) else {
            throw APIError.invalidAppID
        }
        return (token, app)
    }
}
