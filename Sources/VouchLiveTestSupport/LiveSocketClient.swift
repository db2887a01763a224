import Foundation
import HTTPTypes
import Logging
import Synchronization
import NIOWebSocket
import WSClient

/// A real WebSocket client of the live channel (PROTOCOL §8.15), over TCP, for tests and the
/// benchmark: the frames the server sent, in order, and how the socket ended.
public final class LiveSocketClient: Sendable {
    /// How the socket ended: the server's close code and reason, or an error before any close.
    public enum End: Sendable, Equatable {
        case closed(code: UInt16?, reason: String?)
        case failed(String)
    }

    /// Frames received and not yet taken by `next`.
    private let received = Mutex<[(text: String, at: ContinuousClock.Instant)]>([])
    private let writer = Mutex<WebSocketOutboundWriter?>(nil)
    private let ending = Mutex<End?>(nil)
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    private init() {}

    /// Opens `ws://127.0.0.1:<port>/sessions/live` with `headers`; returns once the socket is open
    /// (or throws when the upgrade was refused or the connection failed).
    public static func open(
        port: Int, headers: [String: String], path: String = "/sessions/live", logger: Logger = Logger(label: "live-test-client")
    ) async throws -> LiveSocketClient {
        let client = LiveSocketClient()
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let opened = AsyncStream<Result<Void, any Error>>.makeStream()
        let task = Task {
            do {
                let close = try await WebSocketClient.connect(
                    url: "ws://127.0.0.1:\(port)\(path)",
                    configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 16, additionalHeaders: fields), logger: logger
                ) { inbound, outbound, _ in
                    client.writer.withLock { $0 = outbound }
                    opened.continuation.yield(.success(()))
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        if case .text(let text) = message {
                            let now = ContinuousClock.now
                            client.received.withLock { $0.append((text, now)) }
                        }
                    }
                }
                client.ending.withLock { $0 = $0 ?? .closed(code: close.map { Self.number($0.closeCode) }, reason: close?.reason) }
            } catch {
                client.ending.withLock { $0 = $0 ?? .failed("\(error)") }
                opened.continuation.yield(.failure(error))
            }
            opened.continuation.finish()
        }
        client.task.withLock { $0 = task }
        var results = opened.stream.makeAsyncIterator()
        switch await results.next() {
        case .success?: return client
        case .failure(let error)?: throw error
        case nil: throw LiveSocketClientError.notOpened
        }
    }

    /// The next frame's text, or `nil` when the socket ended first or `timeout` passed.
    public func next(timeout: Duration = .seconds(5)) async -> String? {
        await nextWithArrival(timeout: timeout)?.text
    }

    /// The next frame's text and when it arrived.
    public func nextWithArrival(timeout: Duration = .seconds(5)) async -> (text: String, at: ContinuousClock.Instant)? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let frame = received.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return frame }
            if ending.withLock({ $0 }) != nil || ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The next frame, parsed.
    public func nextObject(timeout: Duration = .seconds(5)) async -> [String: Any]? {
        guard let text = await next(timeout: timeout), let data = text.data(using: .utf8) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    public func send(_ text: String) async throws {
        guard let writer = writer.withLock({ $0 }) else { throw LiveSocketClientError.notOpened }
        try await writer.write(.text(text))
    }

    public func sendBinary(_ bytes: [UInt8]) async throws {
        guard let writer = writer.withLock({ $0 }) else { throw LiveSocketClientError.notOpened }
        try await writer.write(.binary(.init(bytes: bytes)))
    }

    /// Closes from the client's side.
    public func close() async {
        try? await writer.withLock({ $0 })?.close(.normalClosure, reason: nil)
    }

    /// How the socket ended, waiting up to `timeout` for it to end.
    public func end(timeout: Duration = .seconds(5)) async -> End? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let end = ending.withLock({ $0 }) { return end }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return ending.withLock { $0 }
    }

    deinit {
        task.withLock { $0?.cancel() }
    }

    private static func number(_ code: WebSocketErrorCode) -> UInt16 {
        switch code {
        case .normalClosure: 1000
        case .goingAway: 1001
        case .protocolError: 1002
        case .unacceptableData: 1003
        case .dataInconsistentWithMessage: 1007
        case .policyViolation: 1008
        case .messageTooLarge: 1009
        case .missingExtension: 1010
        case .unexpectedServerError: 1011
        case .unknown(let code): code
        }
    }
}

public enum LiveSocketClientError: Error {
    case notOpened
}
