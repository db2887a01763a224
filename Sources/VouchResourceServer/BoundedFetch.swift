import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// One GET of a small document, held to limits: a size, a time, and no redirects followed.
///
/// Each fetch runs its own short-lived `HTTPClient`, shut down before it returns: fetches are
/// rare (once per cache lifetime, at most once a minute for an unknown key), so a connection kept
/// open would buy nothing, and the verifier owns no client a service would have to shut down.
struct BoundedFetch: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Answer: Sendable {
        let headers: [(String, String)]
        let body: [UInt8]

        func values(of name: String) -> [String] {
            headers.compactMap { $0.0.caseInsensitiveCompare(name) == .orderedSame ? $0.1 : nil }
        }
    }

    let maximumBytes: Int
    let timeout: Duration

    func get(_ url: URL) async throws(Failure) -> Answer {
        let timeout = TimeAmount.nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        let configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout), decompression: .disabled)
        let maximumBytes = maximumBytes
        do {
            return try await HTTPClient.withHTTPClient(configuration: configuration) { client in
                var request = HTTPClientRequest(url: url.absoluteString)
                request.headers.add(name: "Accept", value: "application/json")
                let response = try await client.execute(request, deadline: .now() + timeout)
                guard response.status == .ok else {
                    // Read nothing more of a refused answer: the connection is closed with the client.
                    throw Failure(description: "status \(response.status.code)")
                }
                let body: ByteBuffer
                do {
                    body = try await response.body.collect(upTo: maximumBytes)
                } catch is NIOTooManyBytesError {
                    throw Failure(description: "body over \(maximumBytes) bytes")
                }
                return Answer(headers: response.headers.map { ($0.name, $0.value) }, body: Array(body.readableBytesView))
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(error)")
        }
    }
}
