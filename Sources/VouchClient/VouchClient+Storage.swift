import Foundation
import VouchProtocol

extension VouchClient {
    /// Reads the persisted session once, lazily. An unreadable store throws and leaves the client
    /// "not yet loaded", so the next call tries again instead of concluding the user signed out.
    /// Reading never deletes: a session this client cannot use stays where it is (another
    /// client's, or one a later version can read) until a sign-in replaces it.
    func loadIfNeeded() throws(VouchClientError) {
        guard !loaded else { return }
        switch try Self.readStore(store, serverURL: serverURL, appID: appID) {
        case .none:
            session = nil
            storedBytes = nil
        case .session(let stored, let bytes):
            session = stored
            storedBytes = bytes
        case .discarded(let reason, let bytes):
            session = nil
            storedBytes = bytes
            hub.publish(.storedSessionDiscarded(reason: reason))
        }
        loaded = true
        publishState()
    }

    /// What `store` holds for this server and app; static, so that `init` reads it too.
    static func readStore(_ store: any CredentialStore, serverURL: URL, appID: String) throws(VouchClientError) -> StoredSessionLoad {
        let data: Data?
        do {
            data = try store.load()
        } catch {
            throw .credentialStoreUnavailable(message: error.description)
        }
        guard let data else { return .none }
        guard let stored = try? JSONDecoder().decode(StoredSession.self, from: data),
            stored.version == StoredSession.currentVersion
        else {
            return .discarded("the stored session is corrupt", data)
        }
        let server = URL(string: stored.server).map(SessionOrigin.serverKey)
        guard server == SessionOrigin.serverKey(serverURL), stored.appID == appID else {
            return .discarded("the stored session belongs to another server or app", data)
        }
        // Not judged expired here: this device's clock may be off, and the server that decides answers
        // an expired session with a challenge that keeps the user's data for their next session.
        return .session(stored, data)
    }

    /// Makes `response` the signed-in session: the user's container is prepared (every other
    /// user's removed), the session persisted, and a new generation begins.
    func install(_ response: SessionResponse, profile: SignInProfile) throws(VouchClientError) -> Identity {
        let container =
            retainedContainer.flatMap { $0.userID == response.user.userID ? $0.name : nil }
            ?? UUID().uuidString.lowercased()
        let stored = StoredSession(
            server: SessionOrigin.serverKey(serverURL), appID: appID, sessionToken: response.sessionToken,
            expiresAt: response.expiresAt, user: response.user, profile: profile, container: container,
            sessionID: response.sessionID)
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(stored)
            // Persisted first, and only over what this client last saw: another client over the
            // same storage that signed out or in since has the last word, and its user's data
            // container must not be touched.
            guard try store.replace(storedBytes, with: bytes) else {
                endOnServer(response.sessionToken)
                reloadAfterForeignChange()
                throw VouchClientError.superseded
            }
        } catch let error as VouchClientError {
            throw error
        } catch let error as CredentialStoreError {
            endOnServer(response.sessionToken)
            throw .credentialStoreUnavailable(message: error.description)
        } catch {
            endOnServer(response.sessionToken)
            throw .credentialStoreUnavailable(message: "the session could not be encoded")
        }
        do {
            try containers.prepare(container)
        } catch {
            // Without its container the session is not installed: the store goes back to what it held.
            if (try? store.replace(bytes, with: storedBytes)) != true { storedBytes = bytes }
            endOnServer(response.sessionToken)
            throw .credentialStoreUnavailable(message: error.description)
        }
        retainedContainer = nil
        session = stored
        storedBytes = bytes
        loaded = true
        generation &+= 1
        publishState()
        hub.publish(.didAuthenticate(response.user))
        return response.user
    }

    /// Forgets the stored session as this client's, unless another client has replaced it since.
    ///
    /// - Returns: whether the store holds no session now (false while another client's session
    ///   is there, or the store cannot be read).
    @discardableResult
    func unpersist() -> Bool {
        if (try? store.replace(storedBytes, with: nil)) == true {
            storedBytes = nil
            return true
        }
        do { return try store.load() == nil } catch { return false }
    }

    /// Takes the store's word after another client changed it: reads it again (once readable).
    private func reloadAfterForeignChange() {
        loaded = false
        session = nil
        try? loadIfNeeded()
        publishState()
    }

    /// Ends a session nobody will use (a sign-in overtaken by deauthentication or a switch), so
    /// it does not stay valid on the server. Best effort, bounded by the request timeout.
    nonisolated func endOnServer(_ sessionToken: String) {
        let request = HTTPTransport.jsonRequest(url("sessions/\(sessionToken)"), method: "DELETE", body: Optional<String>.none)
        Task { [transport] in _ = try? await transport.send(request) }
    }
}
