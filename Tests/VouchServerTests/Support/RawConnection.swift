import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import VouchTestSupport

/// A plain TCP connection to the server under test, for the shapes no HTTP client will send:
/// silence, a trickle, broken framing, a client that never closes.
///
/// Its calls block, so they run on a Dispatch thread, never on Swift's cooperative pool (which
/// the in-process server needs to answer).
final class RawConnection: Sendable {
    /// How a read ended.
    enum End: Equatable, CustomStringConvertible {
        /// The server closed the connection (or reset it).
        case closed
        /// The deadline passed with the connection still open.
        case stillOpen

        var description: String { self == .closed ? "closed by the server" : "still open" }
    }

    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw TestFailure("connect() to port \(port) failed")
        }
    }

    deinit { close(descriptor) }

    /// Sends bytes; false when the server has already closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) async -> Bool {
        await offPool {
            bytes.withUnsafeBytes { Glibc.send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }
    }

    @discardableResult
    func send(_ text: String) async -> Bool { await send(Array(text.utf8)) }

    /// Reads until the server closes the connection or `seconds` pass; returns what arrived.
    func readUntilClosed(within seconds: Double) async -> (bytes: [UInt8], end: End) {
        await offPool {
            let deadline = Date().addingTimeInterval(seconds)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { return (received, .stillOpen) }
                var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000))
                if ready == 0 { continue }
                let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return (received, .closed) }
                received += buffer[..<count]
            }
        }
    }

    /// Reads one answer on a connection that stays open: until its head and its
    /// `Content-Length` of body have arrived, the server closes, or `seconds` pass.
    func readAnswer(within seconds: Double) async -> [UInt8] {
        await offPool {
            let deadline = Date().addingTimeInterval(seconds)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !Self.holdsWholeAnswer(received) {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { break }
                var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, Int32(min(remaining, 1) * 1000)) == 0 { continue }
                let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                received += buffer[..<count]
            }
            return received
        }
    }

    private static func holdsWholeAnswer(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return false }
        let length = RawAnswer(bytes).headers["content-length"].flatMap { Int($0) } ?? 0
        return text.utf8.distance(from: headEnd.upperBound, to: text.endIndex) >= length
    }

    private func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

/// The status line and JSON body of a raw HTTP/1.1 answer.
struct RawAnswer {
    let status: Int?
    let headers: [String: String]
    let body: [String: Any]

    init(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let lines = parts.first?.components(separatedBy: "\r\n") ?? []
        status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
        let bodyText = parts.dropFirst().joined(separator: "\r\n\r\n")
        body = (try? JSONSerialization.jsonObject(with: Data(bodyText.utf8))) as? [String: Any] ?? [:]
    }

    var errorID: String? { body["id"] as? String }
}
