import Foundation
import NIOCore
import NIOPosix

/// Resolves a host name to addresses, once, for `OutboundPolicy`.
protocol HostResolver: Sendable {
    func resolve(host: String, port: Int, timeout: Duration) async throws -> [SocketAddress]
}

/// The system's resolver (`getaddrinfo`, so `/etc/hosts` and the configured DNS servers), run on
/// NIO's blocking-work pool. A lookup that outlasts `timeout` is given up on: `getaddrinfo`
/// cannot be cancelled, so its thread finishes on its own while the caller moves on.
struct SystemHostResolver: HostResolver {
    enum Failure: Error {
        case timedOut
        case failed
    }

    func resolve(host: String, port: Int, timeout: Duration) async throws -> [SocketAddress] {
        try await withThrowingTaskGroup(of: [SocketAddress].self) { group in
            group.addTask { try await NIOThreadPool.singleton.runIfActive { try Self.lookUp(host: host, port: port) } }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Failure.timedOut
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw Failure.failed }
            return first
        }
    }

    static func lookUp(host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else { throw Failure.failed }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                switch entry.pointee.ai_family {
                case AF_INET:
                    addresses.append(address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
                case AF_INET6:
                    addresses.append(address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
                default:
                    break
                }
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}
