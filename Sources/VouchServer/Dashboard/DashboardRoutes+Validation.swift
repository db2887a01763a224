import Foundation
import Hummingbird
import VouchProtocol
import VouchTokens

/// The identity token validation tool: `Authenticator.validate`, the same diagnosis the admin
/// API's tool gives, which never consumes the nonce.
extension DashboardRoutes {
    /// The signed-in pages of this area, added to the group that requires a dashboard session.
    var validationArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        routes.on("/dashboard/validate", method: .get) { request, context in
            try await validationPage(context, app: request.uri.queryParameters.get("app").flatMap { LayerID.parseApp($0) })
        }
        routes.on("/dashboard/validate", method: .post) { request, context in try await validate(request, context) }
        return routes
    }

    private func validationPage(
        _ context: DashboardContext, app: UUID?, token: String = "", result: [String: Any]? = nil,
        error: DashboardError? = nil
    ) async throws -> Response {
        let chrome = try await chrome(context, "validate", error: error?.message)
        var values: [String: Any] = ["apps": try await appOptions(selected: app), "token": token, "csrf": chrome.csrfToken]
        if let result { values["result"] = result }
        return renderer.page("validate", title: "Validate a token", values: values, chrome: chrome, status: error?.status ?? .ok)
    }

    private func validate(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let form = try await DashboardForm.read(request)
        let appID = form["app"].flatMap { LayerID.parseApp($0) }
        let token = (form["identity_token"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return try await attempt(
            {
                guard let appID, let app = try await store.app(id: appID) else { throw DashboardError(.notFound, "Pick an app.") }
                guard !token.isEmpty else { throw DashboardError(.unprocessableContent, "Paste an identity token.") }
                let serverTime = clock()
                let answer = try await authenticator.validate(identityToken: token, app: app)
                return try await validationPage(
                    context, app: appID, token: token,
                    result: Self.describe(answer, serverTime: serverTime))
            }, orShow: { try await validationPage(context, app: appID, token: token, error: $0) })
    }

    /// The answer as the page shows it: header and claims with their number literals as sent,
    /// each reason with its message and hint, and the token's times against the server's clock.
    static func describe(_ answer: ValidateTokenResponse, serverTime: Int64) -> [String: Any] {
        let reasons: [[String: Any]] = answer.reasons.map { finding in
            var reason: [String: Any] = ["reason": finding.reason.rawValue, "message": finding.message]
            if let hint = finding.hint { reason["hint"] = hint }
            if let place = finding.claim.map({ "claim \($0)" }) ?? finding.param.map({ "header \($0)" }) { reason["where"] = place }
            return reason
        }
        let times: [[String: Any]] = ["iat", "nbf", "exp"].compactMap { claim in
            guard let value = answer.claims[claim] else { return nil }
            var entry: [String: Any] = ["claim": claim, "literal": PrettyJSON.text(value)]
            if let seconds = value.integerValue {
                entry["relative"] = "(\(Timestamp.rfc3339(seconds)), \(relative(seconds - serverTime)) server time)"
            } else {
                entry["relative"] = "(not an integer number of seconds)"
            }
            return entry
        }
        var result: [String: Any] = [
            "valid": answer.valid, "reasons": reasons, "reasonCount": reasons.count, "times": times,
            "serverTime": Int(serverTime), "serverTimeText": Timestamp.rfc3339(serverTime),
            "header": PrettyJSON.text(.object(answer.header)), "claims": PrettyJSON.text(.object(answer.claims)),
        ]
        if let profile = answer.profile { result["profile"] = profile }
        return result
    }

    static func relative(_ delta: Int64) -> String {
        guard delta != 0 else { return "exactly at" }
        let magnitude = delta.magnitude
        let amount =
            switch magnitude {
            case ..<120: "\(magnitude) s"
            case ..<7200: "\(magnitude / 60) min"
            case ..<172_800: "\(magnitude / 3600) h"
            default: "\(magnitude / 86_400) days"
            }
        return delta < 0 ? "\(amount) before" : "\(amount) after"
    }
}

/// JSON indented for reading, every number literal and string exactly as the token had it.
enum PrettyJSON {
    static func text(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .object(let members) where !members.isEmpty:
            let lines = members.sorted { $0.key < $1.key }.map { "\(inner)\(string($0.key)): \(text($0.value, indent: inner))" }
            return "{\n" + lines.joined(separator: ",\n") + "\n\(indent)}"
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + text($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        default:
            return String(decoding: CanonicalJSON.serialize(value), as: UTF8.self)
        }
    }

    private static func string(_ text: String) -> String {
        String(decoding: CanonicalJSON.serialize(.string(text)), as: UTF8.self)
    }
}
