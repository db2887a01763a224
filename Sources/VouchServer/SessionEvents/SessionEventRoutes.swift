import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import VouchProtocol
import VouchStore

/// `GET /events/sessions` (PROTOCOL §8.16): the log of endings as server-sent events, for the
/// app's services that verify access tokens offline, so that a token of an ended session is
/// refused at once rather than at its expiry. Resumable: each event's `id` is its position, and
/// a reconnection's `Last-Event-ID` continues after it.
struct SessionEventRoutes {
    let credentials: ServiceCredentialCheck
    let store: any Store
    let streams: SessionEventStreams
    let clock: @Sendable () -> Int64

    /// Without `Last-Event-ID`, a stream starts with the entries of this many last seconds: every
    /// access token still alive was minted within them.
    static let replaySeconds: Int64 = 600
    static let keepAliveInterval: Duration = .seconds(15)
    static let pageSize = 500

    var routes: RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/events/sessions", method: .get) { request, context in try await open(request, context) }
        return routes
    }

    private func open(_ request: Request, _ context: VouchRequestContext) async throws -> Response {
        let appID = try await credentials.appID(authorization: request.headers.combinedValue(.authorization))
        let requested = try Self.resumePosition(request)
        let start = try await startingPosition(after: requested)
        guard let subscription = streams.subscribe() else {
            throw APIError(
                .rateLimitExceeded, "Too many event streams are open on this instance; retry shortly.",
                data: ["retry_after": .number(JSONNumber(Int64(5)))], headers: [.retryAfter: "5"])
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let logger = context.logger
        let body = ResponseBody { [store, streams] writer in
            defer { streams.unsubscribe(subscription) }
            var stream = EventStreamWriter(store: store, appID: appID, position: start, logger: logger)
            // A stream never ends by itself: the server's shutdown ends it, so that quiescing
            // does not wait for it.
            try await withGracefulShutdownHandler {
                try await stream.run(writer: &writer, wakes: subscription)
            } onGracefulShutdown: {
                subscription.continuation.finish()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `Last-Event-ID` (what a reconnecting EventSource sends), else `?after=`; `nil` for neither.
    static func resumePosition(_ request: Request) throws -> Int64? {
        let text = request.headers[HTTPField.Name("Last-Event-ID")!] ?? request.uri.queryParameters.get("after")
        guard let text else { return nil }
        guard let position = Int64(text), position >= 0 else {
            throw APIError(.invalidRequest, "Last-Event-ID (or `after`) must be a position: a whole number of at least 0.")
        }
        return position
    }

    /// After `requested`, moved up to the oldest entry still kept when it is older; without one,
    /// before the first entry of the last `replaySeconds`.
    func startingPosition(after requested: Int64?) async throws -> Int64 {
        let bounds = try await store.sessionEndings(after: 0, limit: 1)
        guard let oldest = bounds.oldestPosition else { return bounds.latestPosition }
        if let requested { return max(requested, oldest - 1) }
        // The first position logged at or after the replay's start: positions follow commit
        // order and times follow it within the instances' clock skew, so halving the range finds
        // it in a few reads.
        let since = clock() - Self.replaySeconds
        var low = oldest - 1
        var high = bounds.latestPosition
        while low < high {
            let middle = low + (high - low) / 2
            let entry = try await store.sessionEndings(after: middle, limit: 1).entries.first
            if let entry, entry.at < since { low = entry.position } else { high = middle }
        }
        return low
    }
}

/// One stream's loop: read what is new for its app, write it, wait for the log to move (or the
/// keep-alive's interval), until the client goes or the server shuts down.
private struct EventStreamWriter {
    let store: any Store
    let appID: UUID
    var position: Int64
    let logger: Logger

    mutating func run(writer: inout any ResponseBodyWriter, wakes subscription: SessionEventStreams.Subscription) async throws {
        try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
        let continuation = subscription.continuation
        // The keep-alive wakes the loop too, so that one loop does all the writing.
        let keepAlive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: SessionEventRoutes.keepAliveInterval)
                continuation.yield()
            }
        }
        defer { keepAlive.cancel() }
        var lastWrite = ContinuousClock.now
        try await catchUp(writer: &writer, lastWrite: &lastWrite)
        var wakes = subscription.wakes.makeAsyncIterator()
        while await wakes.next() != nil {
            try await catchUp(writer: &writer, lastWrite: &lastWrite)
            if ContinuousClock.now - lastWrite >= SessionEventRoutes.keepAliveInterval {
                try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                lastWrite = .now
            }
        }
    }

    private mutating func catchUp(writer: inout any ResponseBodyWriter, lastWrite: inout ContinuousClock.Instant) async throws {
        do {
            while true {
                let page = try await store.sessionEndings(after: position, limit: SessionEventRoutes.pageSize)
                var buffer = ByteBuffer()
                for ending in page.entries {
                    if let data = try await SessionEndingEvent.data(for: ending, appID: appID, store: store) {
                        buffer.writeString("id: \(ending.position)\nevent: session.ended\ndata: ")
                        buffer.writeBytes(data)
                        buffer.writeString("\n\n")
                    }
                    position = ending.position
                }
                if buffer.readableBytes > 0 {
                    try await writer.write(buffer)
                    lastWrite = .now
                }
                if page.entries.count < SessionEventRoutes.pageSize { return }
            }
        } catch let error as StoreError {
            // The next wake (the keep-alive's at the latest) reads again from the same position.
            logger.warning("The log of session endings could not be read for a stream", metadata: ["error.type": "\(error.kind)"])
        }
    }
}
