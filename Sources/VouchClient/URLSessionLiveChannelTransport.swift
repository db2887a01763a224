import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``LiveChannelTransport``: `URLSessionWebSocketTask`, one URLSession per connection
/// so that closing one leaves nothing behind.
///
/// FoundationNetworking builds it on libcurl, and a libcurl without WebSockets (Debian 12's 7.88)
/// fails every task with `unsupportedURL` ("WebSockets not supported by libcurl"): that failure is
/// ``LiveChannelTransportError/unsupported(_:)``, after which the client stays on HTTP.
struct URLSessionLiveChannelTransport: LiveChannelTransport {
    func connect(to url: URL, headers: [String: String], subprotocols: [String]) async throws -> any LiveChannelConnection {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if !subprotocols.isEmpty {
            request.setValue(subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        let task = session.webSocketTask(with: request)
        task.resume()
        return URLSessionLiveChannelConnection(session: session, task: task)
    }
}

/// One `URLSessionWebSocketTask`, read through its completion handlers: cancelling an async
/// URLSession call can crash FoundationNetworking (see `HTTPTransport.exchange`).
final class URLSessionLiveChannelConnection: LiveChannelConnection, @unchecked Sendable {
    // URLSession and its tasks are thread-safe; they are not marked Sendable everywhere.
    private let session: URLSession
    private let task: URLSessionWebSocketTask

    init(session: URLSession, task: URLSessionWebSocketTask) {
        self.session = session
        self.task = task
    }

    func send(_ text: String) async throws {
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            task.send(.string(text)) { continuation.resume(returning: $0) }
        }
        if let failure { throw transportError(failure) }
    }

    func receive() async throws -> LiveChannelMessage {
        while true {
            let result = await withCheckedContinuation { continuation in
                task.receive { continuation.resume(returning: $0) }
            }
            switch result {
            case .success(.string(let text)):
                return .text(text)
            case .success:
                continue  // binary frames mean nothing on this channel
            case .failure(let error):
                if task.closeCode != .invalid {
                    return .closed(code: task.closeCode.rawValue, reason: String(decoding: task.closeReason ?? Data(), as: UTF8.self))
                }
                throw transportError(error)
            }
        }
    }

    func close(code: Int, reason: String) async {
        task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure, reason: Data(reason.utf8))
        session.finishTasksAndInvalidate()
    }

    /// What a task's failure means for the client.
    private func transportError(_ error: any Error) -> LiveChannelTransportError {
        if let code = (error as? URLError)?.code, code == .unsupportedURL {
            return .unsupported((error as NSError).localizedDescription)
        }
        if let response = task.response as? HTTPURLResponse, response.statusCode != 101 {
            return .refused(status: response.statusCode)
        }
        return .failed((error as? URLError).map { "URLError \($0.code.rawValue)" } ?? String(describing: type(of: error)))
    }
}
