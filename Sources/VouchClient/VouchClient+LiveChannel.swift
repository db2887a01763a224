import Foundation
import VouchProtocol

extension VouchClient {
    // MARK: The live channel's life (PROTOCOL §8.15)

    /// Opens, keeps or closes the live channel to match the client's state; called with every
    /// published state. It runs while a user is signed in or being signed in again after a
    /// challenge (the socket that brought the challenge may carry the answer), and follows the
    /// current session: a socket still on an older one is closed and reopened with it.
    func syncLiveChannel() {
        let wanted = configuration.liveChannel && !liveUnavailable && (session != nil || refresh?.reauthenticating != nil)
        guard wanted else {
            stopLiveChannel(session == nil && refresh == nil ? "signed out" : "another user is signing in")
            return
        }
        guard var run = live else {
            if session != nil { startLiveChannel() }
            return
        }
        guard let session, let connection = run.connection, let followed = run.followedToken else { return }
        if followed == session.sessionToken {
            run.followedGeneration = generation
        } else if !run.replacing {
            run.replacing = true
            Task { await connection.close(code: 1000, reason: "") }
        }
        live = run
    }

    private func startLiveChannel() {
        let id = UUID()
        live = LiveRun(id: id)
        let client: @Sendable () -> VouchClient? = { [weak self] in self }
        live?.task = Task { await Self.driveLiveChannel(id, client) }
    }

    /// Ends the run and closes its socket; the app hears that the channel is off.
    ///
    /// - Parameter message: why, for the event.
    private func stopLiveChannel(_ message: String) {
        guard let run = live else { return }
        live = nil
        run.task?.cancel()
        run.answer?.resolve(.unanswered)
        if let connection = run.connection { Task { await connection.close(code: 1000, reason: "") } }
        hub.publish(.liveChannelDisconnected(.init(.closedByClient, message: message, reconnectDelaySeconds: nil)))
    }

    /// The run's task: connects, reads, and waits between connections. It holds the client weakly
    /// (a client nobody holds any more closes its channel) and keeps no state of its own: every
    /// decision is the actor's, by the run's id, so that a stopped run does nothing more.
    ///
    /// - Parameters:
    ///   - id: the run's id.
    ///   - client: the client, while it exists.
    private static func driveLiveChannel(_ id: UUID, _ client: @escaping @Sendable () -> VouchClient?) async {
        while !Task.isCancelled {
            guard let plan = await client()?.liveChannelPlan(id) else { return }
            let end: LiveEnd
            do {
                let connection = try await plan.transport.connect(
                    to: plan.url, headers: ["Authorization": "Layer session-token=\"\(plan.sessionToken)\""],
                    subprotocols: ["vouch.live.v1"])
                guard await client()?.liveChannelOpened(id, connection, sessionToken: plan.sessionToken) == true else {
                    await connection.close(code: 1000, reason: "")
                    continue
                }
                end = await readLiveChannel(id, connection, client)
            } catch let error as LiveChannelTransportError {
                end = .failed(error)
            } catch {
                end = .failed(.failed(String(describing: error)))
            }
            guard let delay = await client()?.liveChannelEnded(id, end) else { return }
            if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
        }
    }

    /// Hands every frame to the client until the connection ends (or the run or client is gone).
    private static func readLiveChannel(
        _ id: UUID, _ connection: any LiveChannelConnection, _ client: @Sendable () -> VouchClient?
    ) async -> LiveEnd {
        while true {
            let message: LiveChannelMessage
            do {
                message = try await connection.receive()
            } catch {
                return .failed(error as? LiveChannelTransportError ?? .failed(String(describing: error)))
            }
            switch message {
            case .closed(let code, let reason):
                return .closed(code: code, reason: reason)
            case .text(let text):
                guard await client()?.liveChannelReceived(text, run: id) == true else {
                    await connection.close(code: 1000, reason: "")
                    return .closed(code: 1000, reason: "")
                }
            }
        }
    }

    /// The next socket to open, for the session now current; nil when the run is over. While the
    /// user is being signed in again without a socket the run ends here: the new session starts
    /// the next one.
    private func liveChannelPlan(_ id: UUID) -> LivePlan? {
        guard let run = live, run.id == id else { return nil }
        guard let session else {
            live = nil
            return nil
        }
        guard let url = liveChannelURL else {
            markLiveChannelUnavailable(run, "the server's URL is neither HTTPS nor this device")
            return nil
        }
        return LivePlan(
            transport: configuration.liveChannelTransport ?? URLSessionLiveChannelTransport(), url: url,
            sessionToken: session.sessionToken)
    }

    /// `wss://<server>/sessions/live`; `ws://` only to this device, where no network sees the session.
    private var liveChannelURL: URL? {
        guard let origin = SessionOrigin(serverURL), origin.allowsSession,
            var components = URLComponents(url: url("sessions/live"), resolvingAgainstBaseURL: false)
        else { return nil }
        components.scheme = origin.scheme == "https" ? "wss" : "ws"
        return components.url
    }

    /// Takes a new socket, unless the run or the session changed while it opened.
    private func liveChannelOpened(_ id: UUID, _ connection: any LiveChannelConnection, sessionToken: String) -> Bool {
        guard var run = live, run.id == id, session?.sessionToken == sessionToken else { return false }
        run.reset(to: connection)
        run.followedToken = sessionToken
        run.followedGeneration = generation
        live = run
        return true
    }

    /// Decides what a connection's end means (PROTOCOL §8.15's close codes), tells the app, and
    /// returns how long to wait before the next connection; nil when the run is over.
    private func liveChannelEnded(_ id: UUID, _ end: LiveEnd) -> Double? {
        guard var run = live, run.id == id else { return nil }
        if let since = run.readySince, ContinuousClock.now - since >= LiveBackoff.stable { run.failures = 0 }
        let followedIsCurrent = session != nil && session?.sessionToken == run.followedToken
        let pending = run.answer
        let replacing = run.replacing
        run.reset(to: nil)
        live = run
        pending?.resolve(.unanswered)
        if replacing || (session != nil && !followedIsCurrent) {
            announceLive(.closedByClient, message: "the session was replaced; reopening with the new one", delay: 0)
            return 0
        }
        switch end {
        case .closed(let code, let reason):
            return liveChannelClosed(run, code: code, reason: reason, followedIsCurrent: followedIsCurrent)
        case .failed(.unsupported(let message)):
            markLiveChannelUnavailable(run, message)
            return nil
        case .failed(.refused(let status)) where status == 404 || status == 426:
            markLiveChannelUnavailable(run, "the server has no live channel (HTTP \(status ?? 0))")
            return nil
        case .failed(let error):
            // A refused upgrade may be a session the server no longer accepts: a request finds
            // out, and its challenge is answered (or signs out) as any other.
            if case .refused(let status) = error, status == nil || status == 401 { verifySessionForLiveChannel() }
            let delay = LiveBackoff.delay(afterFailures: bumpLiveFailures())
            announceLive(.failed, message: error.description, delay: delay)
            return delay
        }
    }

    /// A close from the server: what its code asks for.
    private func liveChannelClosed(_ run: LiveRun, code: Int, reason: String, followedIsCurrent: Bool) -> Double? {
        let words = reason.isEmpty ? "closed by the server" : reason
        switch code {
        case 4003, 4004:
            // Suspended, or signed out from another device: the channel is over, and so is the
            // session if no frame said so first.
            live = nil
            announceLive(.closedByServer, code: code, message: words, delay: nil)
            if followedIsCurrent {
                let reason: ChallengeReason = code == 4004 ? .sessionSignedOut : .userSuspended
                _ = try? takeChallenge(ChallengeDetails(nonce: "", reason: reason), sentWith: run.followedGeneration, mayRefresh: false)
            }
            return nil
        case 1012:
            let delay = LiveBackoff.afterRestart()
            announceLive(.closedByServer, code: code, message: words, delay: delay)
            return delay
        case 4001:
            // The margin ran out: a flight still answering goes over HTTP by itself; with none,
            // a request meets the challenge and answers it (or signs out).
            if followedIsCurrent, refresh == nil { verifySessionForLiveChannel() }
            let delay = LiveBackoff.delay(afterFailures: 1)
            announceLive(.closedByServer, code: code, message: words, delay: delay)
            return delay
        default:
            let delay = LiveBackoff.delay(afterFailures: bumpLiveFailures())
            announceLive(.closedByServer, code: code, message: words, delay: delay)
            return delay
        }
    }

    private func bumpLiveFailures() -> Int {
        live?.failures += 1
        return live?.failures ?? 1
    }

    /// The transport or the server has no live channel: the client stops trying for good.
    private func markLiveChannelUnavailable(_ run: LiveRun, _ message: String) {
        liveUnavailable = true
        if live?.id == run.id { live = nil }
        run.task?.cancel()
        announceLive(.unavailable, message: message, delay: nil)
    }

    private func announceLive(_ reason: LiveChannelDisconnection.Reason, code: Int? = nil, message: String, delay: Double?) {
        hub.publish(.liveChannelDisconnected(.init(reason, closeCode: code, message: message, reconnectDelaySeconds: delay)))
    }

    /// Asks the server about the session over HTTP, where a challenge takes its usual path; on a
    /// task of its own, so that stopping the channel never abandons the sign-in it may start.
    private func verifySessionForLiveChannel() {
        Task { [weak self] in _ = try? await self?.currentUserFromServer() }
    }
}
