import Foundation
import Synchronization
import VouchClient
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import VouchTestSupport

/// The app's backend as the client's token providers reach it: the development identity provider
/// over real HTTP, with a behaviour the test chooses and a count of every call.
final class Backend: Sendable {
    enum Behaviour: Sendable {
        /// Mints what it is asked for.
        case mint
        /// Throws, as a backend that is down.
        case fail
        /// Does not answer until `releaseHangs()` (and ignores cancellation).
        case hang
        /// Answers a token the server must refuse.
        case garbage
        /// Waits at `gate` after being entered (signalling `entered`), then mints.
        case gated(entered: Latch, gate: Latch)
    }

    struct Unavailable: Error, CustomStringConvertible { var description: String { "backend unavailable" } }

    let url: URL
    let appID: String
    private let behaviour: Mutex<Behaviour>
    private let calls = Mutex(0)
    private let nonces = Mutex<[String]>([])
    private let hangRelease = Latch()
    private let milestones = Mutex<[Int: Latch]>([:])

    init(url: URL, appID: String, behaviour: Behaviour) {
        self.url = url
        self.appID = appID
        self.behaviour = Mutex(behaviour)
    }

    /// Provider calls so far (identity and registration).
    var callCount: Int { calls.withLock { $0 } }
    /// The nonces the identity-token provider was handed, in order.
    var noncesSeen: [String] { nonces.withLock { $0 } }
    func become(_ next: Behaviour) { behaviour.withLock { $0 = next } }
    /// Opens once the provider has been called `count` times.
    func calls(reach count: Int) -> Latch {
        let latch = milestones.withLock { milestones in
            if let existing = milestones[count] { return existing }
            let latch = Latch()
            milestones[count] = latch
            return latch
        }
        if callCount >= count { latch.open() }
        return latch
    }

    /// Lets hanging calls go, so that no task outlives its test.
    func releaseHangs() { hangRelease.open() }

    var identityTokenProvider: VouchClient.IdentityTokenProvider {
        { [self] userID, nonce in
            nonces.withLock { $0.append(nonce) }
            return try await answer(
                path: "identity_tokens", body: ["app_id": appID, "user_id": userID, "nonce": nonce],
                field: "identity_token")
        }
    }

    var registrationProvider: VouchClient.RegistrationCredentialsProvider {
        { [self] userID in
            try await answer(path: "registration_tokens", body: ["user_id": userID], field: "registration_token")
        }
    }

    private func answer(path: String, body: [String: String], field: String) async throws -> String {
        let count = calls.withLock {
            $0 += 1
            return $0
        }
        milestones.withLock { $0[count] }?.open()
        switch behaviour.withLock({ $0 }) {
        case .mint: break
        case .fail: throw Unavailable()
        case .hang: await hangRelease.waitIgnoringCancellation()
        case .garbage: return "not.a-valid.token"
        case .gated(let entered, let gate):
            entered.open()
            await gate.waitIgnoringCancellation()
        }
        var request = URLRequest(url: url.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        // Not `URLSession.data(for:)`: the client cancels a provider it gave up on, and cancelling an
        // async URLSession call crashes FoundationNetworking on Linux.
        let data = await withCheckedContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, _, _ in continuation.resume(returning: data ?? Data()) }.resume()
        }
        guard let token = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?[field] as? String else {
            throw TestFailure("the identity provider answered \(String(decoding: data, as: UTF8.self))")
        }
        return token
    }
}
