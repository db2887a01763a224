import AsyncHTTPClient
import Foundation
import NIOCore
import VouchTestSupport

/// A real reader of `GET /events` (or its filter `/events/sessions`) for the tests: one HTTP
/// response read as server-sent events (`id`, `event`, `data` lines; comments skipped), each
/// delivered as it arrives.
final class EventStreamReader: Sendable {
    struct Event: Sendable {
        let id: String?
        let name: String?
        let data: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
        /// The event's `data` member.
        var members: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    }

    let status: Int
    let contentType: String?
    /// Every event read so far, and how many `next` has handed out.
    private let received = Shared<(events: [Event], taken: Int, ended: Bool)>(([], 0, false))
    private let reading: Task<Void, Never>

    /// Opens the stream at `path`; `lastEventID` resumes after that event.
    init(
        server: LiveServer, credential: String, lastEventID: String? = nil, path: String = "/events/sessions", query: String = ""
    ) async throws {
        var request = HTTPClientRequest(url: server.baseURL + path + query)
        request.headers.add(name: "Authorization", value: "Bearer \(credential)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await LiveServer.http.execute(request, timeout: .seconds(120))
        status = Int(response.status.code)
        contentType = response.headers.first(name: "Content-Type")
        let received = self.received
        reading = Task {
            var pending = ""
            var id: String?
            var name: String?
            var data: [String] = []
            do {
                for try await buffer in response.body {
                    pending += String(buffer: buffer)
                    while let newline = pending.firstIndex(of: "\n") {
                        let line = String(pending[..<newline])
                        pending = String(pending[pending.index(after: newline)...])
                        if line.isEmpty {
                            if !data.isEmpty {
                                let event = Event(id: id, name: name, data: data.joined(separator: "\n"))
                                received.withLock { $0.events.append(event) }
                            }
                            (id, name, data) = (nil, nil, [])
                        } else if line.hasPrefix(":") {
                            continue
                        } else if line.hasPrefix("id: ") {
                            id = String(line.dropFirst(4))
                        } else if line.hasPrefix("event: ") {
                            name = String(line.dropFirst(7))
                        } else if line.hasPrefix("data: ") {
                            data.append(String(line.dropFirst(6)))
                        }
                    }
                }
            } catch {}
            received.withLock { $0.ended = true }
        }
    }

    /// The next event, or a failure after `seconds` (or when the stream ended).
    func next(within seconds: Double = 10) async throws -> Event {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            let event: Event? = received.withLock { state in
                guard state.taken < state.events.count else { return nil }
                state.taken += 1
                return state.events[state.taken - 1]
            }
            if let event { return event }
            if received.value.ended { throw TestFailure("the stream ended") }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("no event within \(seconds) s")
    }

    /// Whether an event arrives within `seconds` (for checking that none does).
    func nothing(within seconds: Double) async -> Bool { (try? await next(within: seconds)) == nil }

    func close() { reading.cancel() }

    deinit { reading.cancel() }
}
