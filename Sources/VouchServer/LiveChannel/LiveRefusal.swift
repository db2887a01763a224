import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import VouchProtocol

/// Answers a refused upgrade of `GET /sessions/live` as any route answers its errors (PROTOCOL
/// §2 body, the challenge's `WWW-Authenticate`, `Retry-After`), then closes the connection.
enum LiveRefusal {
    static func write(_ error: APIError, to http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, logger: Logger) async {
        let body = JSONResponse.encode(error.body)
        var fields = JSONResponse.headers(contentLength: body.count)
        fields.append(HTTPField(name: .connection, value: "close"))
        for field in error.headers { fields.append(field) }
        do {
            try await http.executeThenClose { _, outbound in
                try await outbound.write(.head(HTTPResponse(status: error.status, headerFields: fields)))
                try await outbound.write(.body(ByteBuffer(bytes: body)))
                try await outbound.write(.end(nil))
            }
        } catch {
            logger.debug("A refused live-channel upgrade could not be answered", metadata: ["error.type": "\(type(of: error))"])
        }
    }
}
