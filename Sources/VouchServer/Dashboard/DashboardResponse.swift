import HTTPTypes
import Hummingbird
import NIOCore

/// Responses of the dashboard, each with the headers that make the page safe to show: a strict
/// Content-Security-Policy (scripts and styles only from the dashboard's own assets, no inline
/// script, no framing, forms post only here), no caching, no sniffing, no referrer.
enum DashboardResponse {
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static var securityHeaders: HTTPFields {
        [
            .contentSecurityPolicy: contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            .cacheControl: "no-store",
        ]
    }

    static func html(_ page: String, status: HTTPResponse.Status = .ok, cookies: [String] = []) -> Response {
        var headers = securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// 303: after a form post the browser fetches the next page with GET.
    static func redirect(to location: String, cookies: [String] = []) -> Response {
        var headers = securityHeaders
        headers[.location] = location
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: .seeOther, headers: headers)
    }

    static func asset(_ text: String, contentType: String) -> Response {
        var headers = securityHeaders
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        var response = JSONResponse.make(value, status: status)
        for field in securityHeaders where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }
}
