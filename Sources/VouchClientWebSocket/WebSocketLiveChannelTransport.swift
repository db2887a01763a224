import Foundation
import HTTPTypes
import Logging
import NIOWebSocket
import Synchronization
import VouchClient
import WSClient

/// VouchClient's live channel (`LiveChannelTransport`) on swift-websocket's client (SwiftNIO), for
/// where the default `URLSessionWebSocketTask` cannot open WebSockets: Linux's FoundationNetworking
/// needs a libcurl built with them, which Debian 12's is not. Set it as the client's
/// `Configuration.liveChannelTransport`:
///
/// ```swift
/// let client = try VouchClient(serverURL: vouchURL, appID: appID, configuration: .init(
///     identityTokenProvider: provider, liveChannelTransport: WebSocketLiveChannelTransport()))
/// ```
public struct WebSocketLiveChannelTransport: LiveChannelTransport {
    /// The longest frame accepted from the server; the live channel's frames are a few hundred bytes.
    public var maximumFrameBytes: Int
    private let logger: Logger

    /// - Parameters:
    ///   - maximumFrameBytes: a larger frame fails the connection (the client reconnects).
    ///   - logger: the WebSocket client's own log; silent by default.
    public init(maximumFrameBytes: Int = 1 << 16, logger: Logger = Logger(label: "VouchClientWebSocket", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.maximumFrameBytes = maximumFrameBytes
        self.logger = logger
    }

    /// Opens the socket and returns once the server accepted the upgrade; a refused upgrade throws
    /// `LiveChannelTransportError.refused`, anything else `.failed`.
    public func connect(to url: URL, headers: [String: String], subprotocols: [String]) async throws -> any LiveChannelConnection {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields[name] = value
        }
        if !subprotocols.isEmpty { fields[.secWebSocketProtocol] = subprotocols.joined(separator: ", ") }
        let connection = WebSocketLiveChannelConnection()
        let maximumFrameBytes = self.maximumFrameBytes
        let client = WebSocketClient(
            url: url.absoluteString,
            configuration: .init(maxFrameSize: maximumFrameBytes, additionalHeaders: fields, closeTimeout: .seconds(2)),
            logger: logger
        ) { inbound, outbound, _ in
            connection.opened(outbound)
            var messages = inbound.messages(maxSize: maximumFrameBytes).makeAsyncIterator()
            while let message = try await messages.next() {
                if case .text(let text) = message { connection.deliver(.success(.text(text))) }
            }
        }
        let runner = Task {
            do {
                if let close = try await client.run() {
                    connection.deliver(.success(.closed(code: Int(UInt16(webSocketErrorCode: close.closeCode)), reason: close.reason ?? "")))
                } else {
                    connection.deliver(.failure(.failed("the connection ended without a close frame")))
                }
            } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
                connection.deliver(.failure(.refused(status: nil)))
            } catch {
                connection.deliver(.failure(.failed(String(describing: error))))
            }
        }
        connection.runner = runner
        try await connection.waitUntilOpen()
        return connection
    }
}

/// One socket of ``WebSocketLiveChannelTransport``: what the WebSocket handler receives, queued
/// for `receive()`, which the client calls from one task.
final class WebSocketLiveChannelConnection: LiveChannelConnection {
    private typealias Item = Result<LiveChannelMessage, LiveChannelTransportError>

    private struct State {
        var outbound: WebSocketOutboundWriter?
        var opening: CheckedContinuation<Void, any Error>?
        var openFailure: LiveChannelTransportError?
        var queue: [Item] = []
        var receiver: CheckedContinuation<Item, Never>?
        var ended = false
        var runner: Task<Void, Never>?
    }

    private let state = Mutex(State())

    var runner: Task<Void, Never>? {
        get { state.withLock { $0.runner } }
        set { state.withLock { $0.runner = newValue } }
    }

    func opened(_ outbound: WebSocketOutboundWriter) {
        let opening = state.withLock { state in
            state.outbound = outbound
            defer { state.opening = nil }
            return state.opening
        }
        opening?.resume()
    }

    /// Hands a message or the end to `receive()`; before the socket opened, an end fails `connect`.
    func deliver(_ item: Result<LiveChannelMessage, LiveChannelTransportError>) {
        let (opening, receiver) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, CheckedContinuation<Item, Never>?) in
            guard !state.ended else { return (nil, nil) }
            if case .failure = item { state.ended = true }
            if case .success(.closed) = item { state.ended = true }
            if state.outbound == nil, case .failure(let error) = item {
                state.openFailure = error
                defer { state.opening = nil }
                return (state.opening, nil)
            }
            if let receiver = state.receiver {
                state.receiver = nil
                return (nil, receiver)
            }
            state.queue.append(item)
            return (nil, nil)
        }
        if let opening, case .failure(let error) = item { opening.resume(throwing: error) }
        receiver?.resume(returning: item)
    }

    func waitUntilOpen() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let now = state.withLock { state -> Result<Void, any Error>? in
                if state.outbound != nil { return .success(()) }
                if let failure = state.openFailure { return .failure(failure) }
                state.opening = continuation
                return nil
            }
            if let now { continuation.resume(with: now) }
        }
    }

    func send(_ text: String) async throws {
        guard let outbound = state.withLock({ $0.outbound }) else { throw LiveChannelTransportError.failed("not open") }
        try await outbound.write(.text(text))
    }

    func receive() async throws -> LiveChannelMessage {
        let item = await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Item? in
                if !state.queue.isEmpty { return state.queue.removeFirst() }
                state.receiver = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        return try item.get()
    }

    func close(code: Int, reason: String) async {
        let (outbound, runner) = state.withLock { ($0.outbound, $0.runner) }
        if let outbound {
            try? await outbound.close(.init(codeNumber: code), reason: reason)
        } else {
            runner?.cancel()
        }
    }
}
