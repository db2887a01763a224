import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Follows Vouch's stream of security events (`GET /events`), filtered to the events that end
/// sessions, into a ``SessionEndings``, so that a verifier refuses the tokens of a session within
/// a second or so of its end rather than at the token's expiry.
///
/// ``run()`` holds one long-lived connection and returns only when its task is cancelled: on any
/// disconnection it waits the server's `retry` (1 s from Vouch), doubled per failure in a row up
/// to a ceiling, with jitter so that many services do not come back at once, and resumes after the
/// last event it read (`Last-Event-ID`), so nothing is missed while it was away. Without one
/// Vouch starts with the last 10 minutes: enough to cover every token still alive.
public final class SessionEndingsFollower: Sendable {
    private struct State: Sendable {
        var isConnected = false
        var lastEventID: String?
        var appliedEntries = 0
        var connections = 0
    }

    /// The stream's URL: `<Vouch's URL>/events?types=session.ended,user.suspended,cutoff.set`.
    public let streamURL: URL
    private let credential: String
    private let endings: SessionEndings
    private let maximumReconnectionDelay: Duration
    private let logger: Logger
    private let state: Mutex<State>

    /// - Parameters:
    ///   - vouchURL: Vouch's public URL (the issuer).
    ///   - credential: a service credential of the app (`vsc_...`); sent as a bearer token, never logged.
    ///   - endings: where entries are applied, usually the verifier's ``AccessTokenVerifier/endings``.
    ///   - lastEventID: an event id kept from an earlier run (``lastEventID``), to resume after it.
    ///   - maximumReconnectionDelay: the ceiling of the backoff between attempts.
    ///   - logger: connections and failures (warnings); never the credential.
    public init(
        vouchURL: URL, credential: String, endings: SessionEndings, lastEventID: String? = nil,
        maximumReconnectionDelay: Duration = .seconds(5), logger: Logger = Logger(label: "VouchResourceServer.SessionEndingsFollower")
    ) {
        var components = URLComponents(url: vouchURL.appendingPathComponent("events"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "types", value: SessionEnding.eventTypes.joined(separator: ","))]
        self.streamURL = components?.url ?? vouchURL.appendingPathComponent("events")
        self.credential = credential
        self.endings = endings
        self.maximumReconnectionDelay = maximumReconnectionDelay
        self.logger = logger
        self.state = Mutex(State(lastEventID: lastEventID))
    }

    /// Whether a stream is open now: a readiness check may want it before trusting offline checks.
    public var isConnected: Bool { state.withLock { $0.isConnected } }

    /// The stream's `id` of the last event read: where a reconnection resumes.
    public var lastEventID: String? { state.withLock { $0.lastEventID } }

    /// How many events that end sessions were applied since the follower was made.
    public var appliedEntryCount: Int { state.withLock { $0.appliedEntries } }

    /// How many times a stream was opened (answered 200) since the follower was made.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// Follows the stream until the task is cancelled, reconnecting whenever it drops: it never
    /// gives up on its own, since a service without endings is only less safe, not broken.
    public func run() async {
        var reconnectionTime: Int?
        var failuresInARow = 0
        while !Task.isCancelled {
            let opened: Bool
            do {
                opened = try await follow(reconnectionTime: &reconnectionTime)
                if !Task.isCancelled {
                    logger.info("the stream of endings closed; reconnecting", metadata: ["url": "\(streamURL.absoluteString)"])
                }
            } catch {
                opened = error.opened
                if !Task.isCancelled {
                    logger.warning(
                        "the stream of endings failed; reconnecting",
                        metadata: ["url": "\(streamURL.absoluteString)", "reason": "\(error.reason)"])
                }
            }
            state.withLock { $0.isConnected = false }
            failuresInARow = opened ? 0 : failuresInARow + 1
            let base = Duration.milliseconds(reconnectionTime ?? 1000)
            let delay = Self.backoff(base: base, failuresInARow: failuresInARow, ceiling: maximumReconnectionDelay)
            do {
                try await Task.sleep(for: delay)
            } catch {
                break
            }
        }
        state.withLock { $0.isConnected = false }
    }

    /// The server's delay doubled per failure in a row, capped, then a random fraction between a
    /// half and the whole of it (jitter).
    static func backoff(base: Duration, failuresInARow: Int, ceiling: Duration) -> Duration {
        var delay = base
        for _ in 0..<min(failuresInARow, 16) where delay < ceiling { delay *= 2 }
        delay = min(delay, ceiling)
        return delay * Double.random(in: 0.5...1.0)
    }

    private struct StreamFailure: Error {
        let reason: String
        let opened: Bool
    }

    /// One connection, read to its end; returns whether it was opened. `reconnectionTime` is the
    /// server's last `retry`, kept across connections.
    private func follow(reconnectionTime: inout Int?) async throws(StreamFailure) -> Bool {
        var request = HTTPClientRequest(url: streamURL.absoluteString)
        request.headers.add(name: "Authorization", value: "Bearer \(credential)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        request.headers.add(name: "Cache-Control", value: "no-cache")
        let resumeAfter = state.withLock { $0.lastEventID }
        if let resumeAfter { request.headers.add(name: "Last-Event-ID", value: resumeAfter) }
        // A fresh parser per connection: an event cut by the disconnection is dropped, as the
        // WHATWG rules say, and comes again after `Last-Event-ID`.
        var parser = ServerSentEventParser(lastEventID: resumeAfter ?? "")
        defer { reconnectionTime = parser.reconnectionTime ?? reconnectionTime }
        // Vouch sends a comment every 15 s: a read silent for much longer than that is a dead link.
        let configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(45)), decompression: .disabled)
        var opened = false
        do {
            try await HTTPClient.withHTTPClient(configuration: configuration) { client in
                let response = try await client.execute(request, deadline: .distantFuture)
                guard response.status == .ok else { throw StreamFailure(reason: "status \(response.status.code)", opened: false) }
                let contentType = response.headers.first(name: "Content-Type") ?? ""
                guard contentType.lowercased().hasPrefix("text/event-stream") else {
                    throw StreamFailure(reason: "content type is not text/event-stream", opened: false)
                }
                opened = true
                state.withLock {
                    $0.isConnected = true
                    $0.connections += 1
                }
                logger.info("following the stream of endings", metadata: ["url": "\(streamURL.absoluteString)", "after": "\(resumeAfter ?? "-")"])
                for try await chunk in response.body {
                    try Task.checkCancellation()
                    for event in try parser.consume(chunk.readableBytesView) { apply(event) }
                }
            }
        } catch let failure as StreamFailure {
            throw failure
        } catch is ServerSentEventParser.LineTooLong {
            throw StreamFailure(reason: "a line over \(parser.maximumLineBytes) bytes", opened: opened)
        } catch {
            throw StreamFailure(reason: "\(error)", opened: opened)
        }
        return opened
    }

    /// Applies an event, then moves past it: a disconnection between the two replays the event,
    /// which applying twice allows. An event of another type is passed over.
    private func apply(_ event: ServerSentEvent) {
        var applied = false
        if SessionEnding.eventTypes.contains(event.type) {
            if let ending = SessionEnding(type: event.type, data: event.data) {
                endings.apply(ending)
                applied = true
            } else {
                // Not understood, so not applied; skipped rather than retried, since the same bytes
                // would come back. Loud, because a session this entry ended may still be accepted.
                logger.warning("an ending event could not be read; skipped", metadata: ["id": "\(event.lastEventID)"])
            }
        }
        state.withLock {
            if applied { $0.appliedEntries += 1 }
            if !event.lastEventID.isEmpty { $0.lastEventID = event.lastEventID }
        }
    }
}
