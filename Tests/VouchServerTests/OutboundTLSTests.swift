import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import Testing
import VouchTestSupport

@testable import VouchServer

/// The webhook sender over TLS, against a receiver whose certificate openssl makes for the test:
/// the certificate is checked against the URL's host name, so a receiver the trust roots do not
/// know is refused before anything is sent.
@Suite("Outbound HTTP over TLS: the host's certificate is checked")
struct OutboundTLSTests {
    /// Answers every request with 204, then hangs up.
    final class NoContent: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        /// Requests read whole, over every connection.
        let requests: RequestCount

        init(requests: RequestCount) { self.requests = requests }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            requests.value.add(1, ordering: .relaxed)
            var head = HTTPResponseHead(version: .http1_1, status: .noContent)
            head.headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            // The sender hangs up once it has read the answer.
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    final class RequestCount: Sendable {
        let value = Atomic<Int>(0)
    }

    /// A certificate and key for `localhost`, made by openssl in `directory`.
    static func certificate(in directory: URL) async throws -> (certificate: NIOSSLCertificate, key: NIOSSLPrivateKey) {
        let cert = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
        let made = try await ChildProcess.run(
            executable: "/usr/bin/env",
            arguments: [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            ])
        guard case .exited(0) = made.termination else { throw TestFailure("openssl: \(made.stderr)") }
        guard let certificate = try NIOSSLCertificate.fromPEMFile(cert).first else { throw TestFailure("openssl wrote no certificate") }
        return (certificate, try NIOSSLPrivateKey(file: key, format: .pem))
    }

    @Test("trusted: delivered; a certificate the trust roots do not know: a TLS failure, nothing delivered")
    func checked() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = try await Self.certificate(in: directory)
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
        let requests = RequestCount()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(NoContent(requests: requests))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        do {
            let port = try #require(server.localAddress?.port)
            let destination = try await OutboundPolicy(allowsLoopback: true).destination("https://localhost:\(port)/hook")
            var trust = TLSConfiguration.makeClientConfiguration()
            trust.trustRoots = .certificates([certificate])
            let trusting = OutboundHTTPClient(tls: trust)
            #expect(await trusting.post([], to: destination, headers: []) == .answered(status: 204, body: []))
            #expect(requests.value.load(ordering: .relaxed) == 1)

            let outcome = await OutboundHTTPClient().post([], to: destination, headers: [])
            guard case .failed(.tls) = outcome else {
                Issue.record("an unknown certificate must fail TLS: \(outcome)")
                try await server.close()
                return
            }
            #expect(requests.value.load(ordering: .relaxed) == 1, "nothing more was delivered")
        } catch {
            try await server.close()
            throw error
        }
        try await server.close()
    }
}
