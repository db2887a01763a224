import Foundation
import VouchProtocol

extension VouchClient {
    // MARK: Devices

    /// The signed-in user's devices in this app (their live sessions), oldest sign-in first, this
    /// one marked ``Device/isCurrent``: for a "signed-in devices" screen.
    ///
    /// Made with the current session, as any request: a challenge on it is answered (or ends the
    /// sign-in) as for ``data(for:)``.
    public func devices() async throws(VouchClientError) -> [Device] {
        let answer = try await perform(HTTPTransport.jsonRequest(url("sessions"), method: "GET", body: Optional<String>.none))
        guard answer.status == 200 else { throw HTTPTransport.failure(answer) }
        guard let list = try? JSONDecoder().decode(SessionListResponse.self, from: answer.body) else {
            throw .invalidResponse(message: "GET /sessions answered 200 without a list of sessions")
        }
        let devices = list.sessions.compactMap(Device.init)
        guard devices.count == list.sessions.count else {
            throw .invalidResponse(message: "GET /sessions answered a session without its times")
        }
        return devices
    }

    /// Signs the user's device `id` (a ``Device/id`` from ``devices()``) out: its session ends,
    /// and that device deauthenticates and wipes the user's data at its next request, without
    /// signing in again.
    ///
    /// This device's own id is ``deauthenticate()``: signed out and wiped here at once, rather
    /// than at the next request. An id that is not one of the user's live devices throws a
    /// ``VouchClientError`` of kind ``VouchClientError/Kind/server`` with status 404 and
    /// `serverErrorID` `not_found` (without asking the server when it is not a UUID at all).
    public func signOut(deviceWith id: String) async throws(VouchClientError) {
        try loadIfNeeded()
        guard let sessionID = LayerID.parseUUID(id)?.lowercased else {
            throw .server(status: 404, id: "not_found", message: "\"\(id)\" is not a device id")
        }
        if let current = session?.sessionID, current == sessionID {
            if case .unconfirmed(let error) = try await deauthenticate() { throw error }
            return
        }
        let request = HTTPTransport.jsonRequest(url("sessions/id/\(sessionID)"), method: "DELETE", body: Optional<String>.none)
        let answer = try await perform(request)
        guard answer.status == 204 else { throw HTTPTransport.failure(answer) }
    }

    /// Signs every other device of the user out (as ``signOut(deviceWith:)`` does one), keeping
    /// this one: after a lost phone, or "sign out everywhere else".
    ///
    /// - Returns: how many devices were signed out.
    public func signOutOtherDevices() async throws(VouchClientError) -> Int {
        let answer = try await perform(
            HTTPTransport.jsonRequest(url("sessions/sign-out-others"), method: "POST", body: Optional<String>.none))
        guard answer.status == 200 else { throw HTTPTransport.failure(answer) }
        guard let ended = try? JSONDecoder().decode(SessionsEndedResponse.self, from: answer.body) else {
            throw .invalidResponse(message: "POST /sessions/sign-out-others answered 200 without a count")
        }
        return ended.sessionsEnded
    }
}
