import Foundation
import VouchProtocol

extension VouchClient {
    // MARK: The live channel's frames (PROTOCOL §8.15)

    /// One frame from the run's socket. A challenge takes the same path as a 401 (one flight per
    /// ending, however it was found out); a reply to an `authenticate` frame goes to the flight
    /// that sent it.
    ///
    /// - Parameters:
    ///   - text: the frame.
    ///   - id: the run whose socket it came from.
    /// - Returns: whether the run goes on reading.
    func liveChannelReceived(_ text: String, run id: UUID) -> Bool {
        guard let run = live, run.id == id else { return false }
        switch LiveServerFrame(text) {
        case .ready(let sessionID):
            live?.readySince = .now
            hub.publish(.liveChannelConnected(sessionID: sessionID))
        case .challenge(let challenge):
            liveChallenge(challenge, sentWith: run.followedGeneration)
        case .signedOut:
            live?.challengePending = false
            _ = try? takeChallenge(ChallengeDetails(nonce: "", reason: .sessionSignedOut), sentWith: run.followedGeneration, mayRefresh: false)
        case .authenticated(let response):
            // The socket follows the new session from now on, whoever installs it.
            live?.followedToken = response.sessionToken
            live?.challengePending = false
            live?.answer = nil
            if let answer = run.answer {
                answer.resolve(.authenticated(response))
            } else {
                // Nobody waits for it any more (the answer went over HTTP): nobody will use it.
                endOnServer(response.sessionToken)
            }
        case .error(let status, let body):
            live?.answer = nil
            run.answer?.resolve(.refused(status: status, body: body))
        case .ignored:
            break
        }
        return live?.id == id
    }

    /// A challenge frame: the app hears it, then the session ends as with a 401 sent with the
    /// session the socket follows. The flight that answers waits `answer_after_ms` first.
    private func liveChallenge(_ challenge: LiveChallenge, sentWith followedGeneration: UInt64) {
        hub.publish(
            .liveChannelChallenge(reason: challenge.reason, answerAfterSeconds: Double(challenge.answerAfterMilliseconds) / 1000))
        let answerable = challenge.answerable && challenge.nonce != nil
        live?.challengePending = answerable
        // An unanswerable challenge is a suspension (the only one the protocol has): wiped as one.
        let details = ChallengeDetails(
            nonce: challenge.nonce ?? "", reason: answerable ? challenge.reason : .userSuspended, detail: challenge.detail)
        _ = try? takeChallenge(
            details, sentWith: followedGeneration, mayRefresh: answerable, answerAfter: .milliseconds(challenge.answerAfterMilliseconds))
    }

    /// Opens the session a challenge's answer asks for: with an `authenticate` frame on the live
    /// channel when its socket follows the challenged session (`origin`) and holds the challenge,
    /// so that the socket carries on with the new session; else, or when the socket cannot take
    /// it (closed, no reply in time, no challenge pending there any more), with `POST /sessions`.
    ///
    /// - Parameters:
    ///   - token: the identity or registration token.
    ///   - origin: the challenged session's generation; nil for a first sign-in.
    /// - Returns: the new session, and whether it came over the live channel.
    func openSession(_ token: String, answering origin: UInt64?) async throws(VouchClientError) -> (SessionResponse, Bool) {
        if let origin, let run = live, run.followedGeneration == origin, run.challengePending, run.answer == nil,
            let connection = run.connection
        {
            switch await answerOverLiveChannel(token, connection) {
            case .authenticated(let response):
                return (response, true)
            case .refused(let status, let body) where status != 409:
                // The same refusal `POST /sessions` would have answered: the same error.
                throw HTTPTransport.failure(status: status, error: body, retryAfterSeconds: body?.data?["retry_after"]?.integerValue.map { Int($0) })
            case .refused, .unanswered:
                if Task.isCancelled { throw .superseded }
            }
        }
        return (try await openSession(token), false)
    }

    /// Sends the `authenticate` frame and waits for its reply, at most one request timeout.
    private func answerOverLiveChannel(_ token: String, _ connection: any LiveChannelConnection) async -> LiveAnswer {
        let slot = OneShot<LiveAnswer>()
        live?.answer = slot
        let frame = LiveAuthenticateFrame(identityToken: token, device: device).text
        let timeout = configuration.requestTimeoutSeconds
        let sender = Task {
            do { try await connection.send(frame) } catch { slot.resolve(.unanswered) }
            try? await Task.sleep(for: .seconds(timeout))
            slot.resolve(.unanswered)
        }
        let outcome = await withTaskCancellationHandler {
            await slot.wait()
        } onCancel: {
            slot.resolve(.unanswered)
        }
        sender.cancel()
        if live?.answer === slot { live?.answer = nil }
        return outcome
    }
}
