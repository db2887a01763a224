import HTTPTypes

/// The dashboard's cookies: HttpOnly (no script reads them), SameSite=Strict (no other site's
/// page sends them), scoped to `/dashboard`, `Secure` when the dashboard is served over TLS.
struct DashboardCookies: Sendable {
    static let session = "vouch_dashboard"
    /// The sign-in form's double-submit token, set before there is a session.
    static let signIn = "vouch_signin"

    let secure: Bool

    func set(_ name: String, _ value: String, maxAge: Int64) -> String {
        "\(name)=\(value); Path=/dashboard; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    func clear(_ name: String) -> String {
        set(name, "", maxAge: 0)
    }

    /// The value of a cookie in the request's `Cookie` header(s), if present.
    static func value(_ name: String, in headers: HTTPFields) -> String? {
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == name { return String(trimmed[trimmed.index(after: equals)...]) }
            }
        }
        return nil
    }
}
