import Foundation
import VouchProtocol

/// The live channel of one client while it runs: one driving task, at most one socket at a time.
struct LiveRun {
    let id: UUID
    var task: Task<Void, Never>?
    var connection: (any LiveChannelConnection)?
    /// The session the socket follows: the one it was opened with, or the one an `authenticated`
    /// frame moved it to.
    var followedToken: String?
    /// That session's generation, so that a challenge frame is matched to a flight exactly as a 401
    /// sent with that session is.
    var followedGeneration: UInt64 = 0
    /// Since when the socket has been `ready`; nil before.
    var readySince: ContinuousClock.Instant?
    /// A challenge frame this socket may still answer with an `authenticate` frame.
    var challengePending = false
    /// The flight waiting for the reply to its `authenticate` frame.
    var answer: OneShot<LiveAnswer>?
    /// The client closed the socket to reopen it with a newer session.
    var replacing = false
    /// Consecutive connections that failed or did not last, for the backoff.
    var failures = 0

    init(id: UUID) { self.id = id }

    /// Starts a connection's state afresh: a new socket's, or none after one ended.
    mutating func reset(to connection: (any LiveChannelConnection)?) {
        self.connection = connection
        readySince = nil
        challengePending = false
        answer = nil
        replacing = false
    }
}

/// The reply to an `authenticate` frame.
enum LiveAnswer: Sendable {
    case authenticated(SessionResponse)
    /// An `error` frame: the status and body `POST /sessions` would have answered.
    case refused(status: Int, body: ErrorBody?)
    /// No reply: the socket closed, or it did not come in time. The answer goes over HTTP.
    case unanswered
}

/// How one connection of the live channel ended.
enum LiveEnd: Sendable {
    case closed(code: Int, reason: String)
    case failed(LiveChannelTransportError)
}

/// What the driving task needs to open the next socket.
struct LivePlan: Sendable {
    let transport: any LiveChannelTransport
    let url: URL
    let sessionToken: String
}

/// Waits between the live channel's connections.
enum LiveBackoff {
    /// After a connection that failed or did not last: 1 s doubled for each further failure up to
    /// a minute, less a random half, so that a fleet of devices does not reconnect as one wave.
    static func delay(afterFailures failures: Int) -> Double {
        let backoff = min(60, pow(2, Double(max(0, failures - 1))))
        return backoff * Double.random(in: 0.5...1.0)
    }

    /// After a server restart (1012): any moment in the next 5 s, to any instance.
    static func afterRestart() -> Double { Double.random(in: 0...5) }

    /// A connection that stayed ready this long counts as a success: the backoff starts over.
    static let stable: Duration = .seconds(30)
}
