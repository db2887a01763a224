import Foundation
import VouchProtocol
import VouchStore

/// Resolving the `identity_token` and `app_id` pair shared by sign-in and the validation tool.
enum AppLookup {
    static func tokenAndApp(_ body: CreateSessionRequest, store: any Store) async throws -> (String, AppRecord) {
        let (token, appID) = try tokenAndAppID(body)
        guard let app = try await store.app(id: appID) else { throw APIError.invalidAppID }
        return (token, app)
    }

    /// The pair as the request gives it, the app not yet looked up (a sign-in reads it together
    /// with the rest of what its verification needs).
    static func tokenAndAppID(_ body: CreateSessionRequest) throws -> (String, UUID) {
        guard let token = body.identityToken else { throw APIError.missingProperty("identity_token") }
        guard let appText = body.appID else { throw APIError.missingProperty("app_id") }
        guard let appID = LayerID.parseApp(appText) else { throw APIError.invalidAppID }
        return (token, appID)
    }
}
