import AsyncHTTPClient
import Foundation

/// The pieces of `scripts/bench.sh` that need Swift (docs/PERFORMANCE.md):
///
///     vouch-benchmark tokens [SECONDS] [--only NAME]
///                                           in-process token verification against the raw primitives
///                                           (--only: the measurements whose name contains NAME, to profile one)
///     vouch-benchmark access-token-algorithms [SECONDS]
///                                           RS256, ES256 and EdDSA sign and verify costs and token
///                                           sizes for an access token, then Vouch's whole mint and read
///     vouch-benchmark verify-offline --server URL --token FILE [--seconds S]
///                                           a service's offline verification of a running server's
///                                           access token (VouchResourceServer), cache hit, CPU each
///     vouch-benchmark bare --port PORT [--public-key FILE]
///                                           the floors: a bare Hummingbird app answering POST /nonces,
///                                           and with a provider's public key (PEM) also POST /sessions
///                                           (the body read, one RS256 verify, nothing else)
///     vouch-benchmark store [--sessions N] [--concurrency C] [--users U]
///                                           the sign-in's durable write alone: createSession on a real
///                                           SQLite file from C tasks, CPU per sign-in by kind of thread
///     vouch-benchmark handler [--signins N] [--concurrency C] [--rounds R]
///                                           Vouch's POST /sessions and POST /nonces against the bare
///                                           app's, through their routers in this process (no HTTP)
///     vouch-benchmark prepare --server URL --admin-token TOKEN --count N --out DIR [--session-ttl S]
///                                           an app, a provider and a key on a running `vouch serve`,
///                                           N distinct sign-in bodies (one per nonce) for wrk, one
///                                           session token for GET /users/me, and the key's public half
///     vouch-benchmark cutoff-race --database URL [--rounds R] [--per-phase N] [--skew S]
///                                           two instances on one PostgreSQL database (the second's
///                                           clock S seconds ahead, default 2), sign-ins racing
///                                           cutoffs of every scope; exits 1 on any stale accept or
///                                           false refusal
///     vouch-benchmark live-sockets --server URL --admin-token TOKEN --pid PID [--sockets N] [--idle-seconds S]
///                                           N idle authenticated live-channel sockets on a running
///                                           `vouch serve` (process PID): its memory per socket, its CPU
///                                           while idle, then a cutoff of their app: delivery times and
///                                           the peak identity-token rate the spread leaves
///     vouch-benchmark live-reach --database URL [--endings N] [--while-away M]
///                                           two instances on one PostgreSQL database: the time from a
///                                           revocation on one to the challenge on the other's socket,
///                                           then M endings while the listeners are terminated
///     vouch-benchmark webhook-latency --server URL --admin-token TOKEN [--rate N] [--seconds S]
///                                           sign-ins at N a second for S seconds with a receiver of
///                                           their session.created events in this process: each
///                                           event's time from its request to the receiver
///                                           (`vouch serve --allow-loopback-outbound`)
///
/// The HTTP load itself comes from wrk, in another process, so that client and server are measured
/// the same way for Vouch and for the bare app.
@main
struct VouchBenchmark {
    static func main() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let command = arguments.isEmpty ? "tokens" : arguments.removeFirst()
        do {
            switch command {
            case "tokens":
                try await TokenBenchmarks.run(
                    seconds: arguments.first.flatMap(Double.init) ?? 3,
                    only: try option("--only", in: arguments))
            case "access-token-algorithms":
                try await AccessTokenAlgorithms.run(seconds: arguments.first.flatMap(Double.init) ?? 2)
            case "verify-offline":
                guard let server = try option("--server", in: arguments), let token = try option("--token", in: arguments) else {
                    throw BenchmarkError("verify-offline needs --server URL --token FILE")
                }
                try await OfflineVerification.run(
                    server: server, tokenFile: token, seconds: try option("--seconds", in: arguments).flatMap(Double.init) ?? 2)
            case "bare":
                let publicKeyPEM = try option("--public-key", in: arguments).map { try String(contentsOfFile: $0, encoding: .utf8) }
                try await BareApp.run(port: try option("--port", in: arguments).flatMap(Int.init) ?? 8099, publicKeyPEM: publicKeyPEM)
            case "store":
                try await StoreSignIns(
                    sessions: try option("--sessions", in: arguments).flatMap(Int.init) ?? 100_000,
                    concurrency: try option("--concurrency", in: arguments).flatMap(Int.init) ?? 64,
                    users: try option("--users", in: arguments).flatMap(Int.init) ?? 5_000
                ).run()
            case "handler":
                try await HandlerSignIns(
                    signIns: try option("--signins", in: arguments).flatMap(Int.init) ?? 20_000,
                    concurrency: try option("--concurrency", in: arguments).flatMap(Int.init) ?? 64,
                    rounds: try option("--rounds", in: arguments).flatMap(Int.init) ?? 3
                ).run()
            case "prepare":
                guard let server = try option("--server", in: arguments), let admin = try option("--admin-token", in: arguments),
                    let count = try option("--count", in: arguments).flatMap(Int.init), let out = try option("--out", in: arguments)
                else {
                    throw BenchmarkError("prepare needs --server URL --admin-token TOKEN --count N --out DIR")
                }
                try await SignInPreparation(
                    api: BenchmarkAPI(base: server, admin: admin), count: count,
                    directory: URL(fileURLWithPath: out),
                    sessionTTL: try option("--session-ttl", in: arguments).flatMap(Int.init)
                ).run()
            case "cutoff-race":
                try await CutoffRaceCommand.run(
                    database: try option("--database", in: arguments),
                    rounds: try option("--rounds", in: arguments).flatMap(Int.init) ?? 40,
                    perPhase: try option("--per-phase", in: arguments).flatMap(Int.init) ?? 48,
                    skew: try option("--skew", in: arguments).flatMap(Int64.init) ?? 2)
            case "live-sockets":
                guard let server = try option("--server", in: arguments), let admin = try option("--admin-token", in: arguments),
                    let pid = try option("--pid", in: arguments).flatMap(Int32.init),
                    let port = URLComponents(string: server)?.port
                else {
                    throw BenchmarkError("live-sockets needs --server http://127.0.0.1:PORT --admin-token TOKEN --pid PID")
                }
                try await LiveSocketsCommand(
                    api: BenchmarkAPI(base: server, admin: admin), serverPort: port, serverPID: pid,
                    sockets: try option("--sockets", in: arguments).flatMap(Int.init) ?? 10_000,
                    idleSeconds: try option("--idle-seconds", in: arguments).flatMap(Int.init) ?? 60
                ).run()
            case "webhook-latency":
                guard let server = try option("--server", in: arguments), let admin = try option("--admin-token", in: arguments) else {
                    throw BenchmarkError("webhook-latency needs --server URL --admin-token TOKEN [--rate N] [--seconds N]")
                }
                // Enough connections that the load generator is not the queue (the shared
                // client's 8 would be at 1 000 sign-ins a second).
                var configuration = HTTPClient.Configuration()
                configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128)
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                defer { _ = client.shutdown() }
                try await WebhookLatency(
                    api: BenchmarkAPI(transport: HTTPTransport(base: server, client: client), admin: admin),
                    rate: try option("--rate", in: arguments).flatMap(Int.init) ?? 1_000,
                    seconds: try option("--seconds", in: arguments).flatMap(Int.init) ?? 10
                ).run()
            case "live-reach":
                try await LiveReachCommand.run(
                    database: try option("--database", in: arguments),
                    endings: try option("--endings", in: arguments).flatMap(Int.init) ?? 200,
                    whileAway: try option("--while-away", in: arguments).flatMap(Int.init) ?? 20)
            default:
                throw BenchmarkError(
                    "unknown command \(command); use tokens, bare, store, handler, prepare, cutoff-race, live-sockets, live-reach or webhook-latency")
            }
        } catch {
            FileHandle.standardError.write(Data("vouch-benchmark: \(error)\n".utf8))
            exit(1)
        }
    }

    private static func option(_ name: String, in arguments: [String]) throws -> String? {
        guard let index = arguments.firstIndex(of: name) else { return nil }
        guard index + 1 < arguments.count else { throw BenchmarkError("\(name) needs a value") }
        return arguments[index + 1]
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
