import Foundation
import VouchProtocol

extension VouchClient {
    // MARK: Access tokens for the app's other services

    /// An access token for `audience` (the app's id when `nil`), minted for the current session
    /// and reused until shortly before it expires. Each service verifies it offline and refuses it
    /// the moment the session ends; call this again for every request to a service (it answers
    /// from memory almost always), and after a service answers 401.
    ///
    /// Made with the current session, as any request: a challenge on it is answered (or ends the
    /// sign-in) as for ``data(for:)``. An audience the app has not registered throws a
    /// ``VouchClientError`` of kind ``VouchClientError/Kind/server`` with status 422.
    public func accessToken(for audience: String? = nil) async throws(VouchClientError) -> AccessToken {
        try loadIfNeeded()
        let key = audience ?? ""
        if let cached = accessTokens[key], let current = session?.sessionID, cached.token.sessionID == current,
            cached.token.isFresh(at: Date(), lifetime: cached.lifetime)
        {
            return cached.token
        }
        let request = HTTPTransport.jsonRequest(
            url("sessions/access-token"), method: "POST", body: audience.map { AccessTokenRequest(audience: $0) })
        let answer = try await perform(request)
        guard answer.status == 200 else { throw HTTPTransport.failure(answer) }
        guard let response = try? JSONDecoder().decode(AccessTokenResponse.self, from: answer.body),
            let expiresAt = Timestamp.parse(response.expiresAt), let sessionID = Self.sessionID(of: response.accessToken)
        else {
            throw .invalidResponse(message: "POST /sessions/access-token answered 200 without a token and its expiry")
        }
        let token = AccessToken(
            value: response.accessToken, expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)),
            audience: response.audience, sessionID: sessionID)
        // Kept only for the session that is current now and minted it.
        if session?.sessionID == sessionID {
            accessTokens[key] = (token, token.expiresAt.timeIntervalSinceNow)
        }
        return token
    }

    /// The `sid` claim of a token Vouch minted (read, not verified: the client trusts its server).
    static func sessionID(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return claims["sid"] as? String
    }
}
