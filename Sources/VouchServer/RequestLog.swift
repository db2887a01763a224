import Hummingbird
import Logging

/// One log line per request: method, route *pattern* (so `DELETE /sessions/<token>` is logged as
/// `/sessions/:token`, never with the token), status and duration. Headers and bodies are never
/// logged: they carry session tokens, admin tokens and identity tokens. Written by
/// `RequestEnvelopeMiddleware`.
enum RequestLog {
    /// The level request lines are written at; a server whose logger is less verbose writes none
    /// and never asks (`VouchServer.makeApplication` decides once).
    static let level = Logger.Level.info

    static func write(_ request: Request, route: String?, status: HTTPResponse.Status, elapsed: Duration, to logger: Logger) {
        logger.log(
            level: level, "request",
            metadata: [
                "method": "\(request.method.rawValue)",
                "route": "\(route ?? "(no route)")",
                "status": "\(status.code)",
                "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
            ])
    }
}
