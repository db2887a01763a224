import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import VouchTestSupport

/// A TCP relay on 127.0.0.1 in front of the server that the test can take "offline": every
/// connection is then cut and new ones are closed at once, as on a device that lost its network.
/// Or "unavailable": every request is answered 503, as by a server that lost its store.
final class FaultProxy: Sendable {
    static let unavailableAnswer = Array(
        ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            + "Connection: close\r\nContent-Length: 77\r\n\r\n"
            + #"{"id":"service_unavailable","code":1,"message":"store unreachable","url":"x"}"#).utf8)
    private let unavailable = Mutex(false)

    /// Answers every new connection's request with 503 (`true`), or relays again.
    func setUnavailable(_ value: Bool) { unavailable.withLock { $0 = value } }

    let port: Int
    private let listener: Int32
    private let upstreamPort: Mutex<Int>
    private let state = Mutex<(offline: Bool, open: Set<Int32>)>((false, []))
    private let accepted = Mutex(0)

    /// Connections the client opened through the proxy, refused ones included.
    var connectionCount: Int { accepted.withLock { $0 } }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init(upstreamPort: Int) throws {
        self.upstreamPort = Mutex(upstreamPort)
        signal(SIGPIPE, SIG_IGN)  // a write to a cut connection must fail, not end the test process
        let listener = socket(AF_INET, Self.streamType, 0)
        self.listener = listener
        var address = Self.loopback(port: 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw TestFailure("proxy cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Relays new connections to another port from now on (a second server instance); open ones
    /// stay where they are.
    func redirect(toPort port: Int) { upstreamPort.withLock { $0 = port } }

    /// Offline: cuts every open connection and refuses new ones; online again: relays.
    func setOffline(_ offline: Bool) {
        let cut = state.withLock { state -> Set<Int32> in
            state.offline = offline
            return offline ? state.open : []
        }
        for descriptor in cut { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    func stop() {
        setOffline(true)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            accepted.withLock { $0 += 1 }
            if state.withLock({ $0.offline }) {
                close(client)
                continue
            }
            if unavailable.withLock({ $0 }) {
                Thread.detachNewThread { Self.answerUnavailable(client) }
                continue
            }
            let upstream = socket(AF_INET, Self.streamType, 0)
            var address = Self.loopback(port: upstreamPort.withLock { $0 })
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            state.withLock { $0.open.formUnion([client, upstream]) }
            let finished = Mutex(0)
            for (from, to) in [(client, upstream), (upstream, client)] {
                Thread.detachNewThread { [self] in
                    pump(from: from, to: to)
                    let both = finished.withLock {
                        $0 += 1
                        return $0 == 2
                    }
                    if both {
                        state.withLock { $0.open.subtract([client, upstream]) }
                        close(client)
                        close(upstream)
                    }
                }
            }
        }
    }

    private func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { write(to, $0.baseAddress! + sent, count - sent) }
                guard written > 0 else {
                    shutdown(from, Int32(SHUT_RDWR))
                    return
                }
                sent += written
            }
        }
        shutdown(to, Int32(SHUT_WR))
    }

    private static func answerUnavailable(_ client: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        _ = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
        _ = unavailableAnswer.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        shutdown(client, Int32(SHUT_RDWR))
        close(client)
    }

    #if canImport(Glibc)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        private static let streamType = SOCK_STREAM
    #endif

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
