import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import VouchProtocol
import VouchStore

/// `GET /events` (PROTOCOL §8.17): an app's security events as server-sent events, for its
/// services, under a service credential; `GET /events/sessions` is the same stream filtered to
/// the kinds that end sessions, which a service verifying access tokens offline follows
/// (VouchResourceServer). One log, the outbox, read by cursor: each event's `id` is its cursor,
/// and a reconnection's `Last-Event-ID` continues after it.
struct SecurityEventRoutes {
    let credentials: ServiceCredentialCheck
    let store: any Store
    let streams: SessionEventStreams
    let clock: @Sendable () -> Int64

    /// Without `Last-Event-ID`, a stream starts with the events of this many last seconds: every
    /// access token still alive was minted within them.
    static let replaySeconds: Int64 = 600
    static let keepAliveInterval: Duration = .seconds(15)
    /// How often an open stream reads the outbox when nothing woke it: events that end no session
    /// wake nobody, and PostgreSQL shows an event only once older transactions have ended.
    static let pollInterval: Duration = .seconds(1)
    static let pageSize = 500

    var routes: RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/events", method: .get) { request, context in
            try await open(request, context, kinds: try Self.kinds(request))
        }
        routes.on("/events/sessions", method: .get) { request, context in
            try await open(request, context, kinds: SecurityEventKind.sessionEndingKinds)
        }
        return routes
    }

    private func open(_ request: Request, _ context: VouchRequestContext, kinds: [SecurityEventKind]?) async throws -> Response {
        let appID = try await credentials.appID(authorization: request.headers.combinedValue(.authorization))
        let requested = try Self.resumeCursor(request)
        let start: SecurityEventCursor
        if let requested {
            start = requested
        } else {
            start = try await store.securityEventCursor(appID: appID, since: clock() - Self.replaySeconds)
        }
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
            var stream = EventStreamWriter(store: store, appID: appID, kinds: kinds, cursor: start, logger: logger)
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

    /// `?types=a,b`: the kinds to send, each known, at most once; `nil` (every kind) without it.
    static func kinds(_ request: Request) throws -> [SecurityEventKind]? {
        guard let text = request.uri.queryParameters.get("types") else { return nil }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var kinds: [SecurityEventKind] = []
        for name in names {
            guard let kind = SecurityEventKind(rawValue: name) else {
                throw APIError.invalidProperty(
                    "types",
                    "`types` is a comma-separated list of event kinds: "
                        + SecurityEventKind.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
            guard !kinds.contains(kind) else { throw APIError.invalidProperty("types", "`types` names \(name) twice.") }
            kinds.append(kind)
        }
        return kinds
    }

    /// `Last-Event-ID` (what a reconnecting EventSource sends), else `?after=`; `nil` for neither.
    static func resumeCursor(_ request: Request) throws -> SecurityEventCursor? {
        let text = request.headers[HTTPField.Name("Last-Event-ID")!] ?? request.uri.queryParameters.get("after")
        guard let text else { return nil }
        guard let cursor = SecurityEventCursor(text) else {
            throw APIError(.invalidRequest, "Last-Event-ID (or `after`) must be an event's `id` from this stream.")
        }
        return cursor
    }
}

/// One stream's loop: read what is new for its app, write it, wait for a wake-up (the log of
/// endings moved, the poll interval passed), until the client goes or the server shuts down.
private struct EventStreamWriter {
    let store: any Store
    let appID: UUID
    let kinds: [SecurityEventKind]?
    var cursor: SecurityEventCursor
    let logger: Logger

    mutating func run(writer: inout any ResponseBodyWriter, wakes subscription: SessionEventStreams.Subscription) async throws {
        try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
        let continuation = subscription.continuation
        // The poll wakes the loop too, so that one loop does all the writing.
        let poll = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: SecurityEventRoutes.pollInterval)
                continuation.yield()
            }
        }
        defer { poll.cancel() }
        var lastWrite = ContinuousClock.now
        try await catchUp(writer: &writer, lastWrite: &lastWrite)
        var wakes = subscription.wakes.makeAsyncIterator()
        while await wakes.next() != nil {
            try await catchUp(writer: &writer, lastWrite: &lastWrite)
            if ContinuousClock.now - lastWrite >= SecurityEventRoutes.keepAliveInterval {
                try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                lastWrite = .now
            }
        }
    }

    private mutating func catchUp(writer: inout any ResponseBodyWriter, lastWrite: inout ContinuousClock.Instant) async throws {
        do {
            while true {
                let page = try await store.securityEvents(appID: appID, after: cursor, kinds: kinds, limit: SecurityEventRoutes.pageSize)
                var buffer = ByteBuffer()
                for (eventCursor, event) in page {
                    buffer.writeString("id: \(eventCursor)\nevent: \(event.kind.rawValue)\ndata: ")
                    buffer.writeBytes(SecurityEventBody.json(event))
                    buffer.writeString("\n\n")
                    cursor = eventCursor
                }
                if buffer.readableBytes > 0 {
                    try await writer.write(buffer)
                    lastWrite = .now
                }
                if page.count < SecurityEventRoutes.pageSize { return }
            }
        } catch let error as StoreError {
            // The next wake (the poll's at the latest) reads again from the same cursor.
            logger.warning("The outbox could not be read for an event stream", metadata: ["error.type": "\(error.kind)"])
        }
    }
}
