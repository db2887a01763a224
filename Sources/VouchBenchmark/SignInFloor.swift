import Foundation
import Hummingbird
import VouchServer
import VouchTokens
import _CryptoExtras

/// The bare app's `POST /sessions` (see `BareApp`): the framework's own body decoding, one RS256
/// verification with a key parsed once, and a session-shaped answer.
struct SignInFloor: Sendable {
    let publicKey: _RSA.Signing.PublicKey

    private struct Body: Decodable {
        let identityToken: String
        let appID: String

        enum CodingKeys: String, CodingKey {
            case identityToken = "identity_token"
            case appID = "app_id"
        }
    }

    func signIn(_ request: Request, context: some RequestContext) async throws -> Response {
        let body = try await request.decode(as: Body.self, context: context)
        let token = Array(body.identityToken.utf8)
        // The signing input is everything before the last dot; the signature is after it.
        guard let lastDot = token.lastIndex(of: UInt8(ascii: ".")),
            let signature = Base64URL.decodeCanonical(token[(lastDot + 1)...]),
            RS256.isValid(signature: signature, for: Array(token[..<lastDot]), publicKey: publicKey)
        else {
            return BareApp.json(#"{"error":"invalid_token"}"#, status: .unauthorized)
        }
        let session = Base64URL.encode(SecureRandom.bytes(32))
        return BareApp.json(
            #"{"expires_at":"2026-01-01T00:00:00Z","session_token":"\#(session)","#
                + #""user":{"id":"layer:///identities/user","user_id":"user"}}"#)
    }
}
