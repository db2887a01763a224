import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's backend as the client sees it: after authenticating its user its own way (here it
/// takes the user's word: it is the development identity provider), it vouches for them to Vouch.
struct IdentityBackend: Sendable {
    let url: URL
    let appID: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `POST /identity_tokens`: an identity token for `userID`, bound to Vouch's `nonce`.
    func identityToken(userID: String, nonce: String) async throws -> String {
        var request = URLRequest(url: url.appendingPathComponent("identity_tokens"), timeoutInterval: 10)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: [
            "app_id": appID, "user_id": userID, "nonce": nonce, "display_name": userID.capitalized,
        ])
        let (data, _) = try await URLSession.shared.data(for: request)
        guard let token = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["identity_token"] as? String else {
            throw Failure(description: "the identity provider answered \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        return token
    }
}
