import ArgumentParser
import Foundation
import VouchProtocol

/// `vouch audit list`: the audit log (`GET /admin/audit`), newest first.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Read the audit log: admin actions and rejected sign-ins (admin API).",
        subcommands: [List.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List audit events, newest first; --before continues where a page ended.",
            discussion: "Times are RFC 3339 (2026-11-23T22:00:00Z) or Unix seconds; --since is inclusive, --until exclusive.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "admin or sign_in_rejected.") var kind: String?
        @Option(name: .long, help: "An action such as app.create, key.disable or sign_in.rejected.") var action: String?
        @Option(name: .long, help: "Only entries about this app (id).") var app: String?
        @Option(name: .long, help: "Only entries about this object (an app, provider, key or application key id, or a user id).")
        var object: String?
        @Option(name: .long, help: "Entries at or after this time.") var since: String?
        @Option(name: .long, help: "Entries before this time.") var until: String?
        @Option(name: .long, help: "The `next` printed by the previous page (older events).") var before: String?
        @Option(name: .long, help: "Entries per page, 1…200.") var limit: Int?

        func validate() throws {
            if let limit, !(1...200).contains(limit) { throw ValidationError("--limit must be 1…200") }
        }

        func run() async throws {
            var items: [URLQueryItem] = []
            func add(_ name: String, _ value: String?) {
                if let value { items.append(URLQueryItem(name: name, value: value)) }
            }
            add("kind", kind)
            add("action", action)
            if let app { add("app_id", try AdminPath.app(app)) }
            add("object", object)
            add("since", since)
            add("until", until)
            add("before", before)
            add("limit", limit.map(String.init))
            var components = URLComponents()
            components.queryItems = items
            // `+` is a space in a query; a user id may hold one.
            let query = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
            let path = "/admin/audit" + (query.isEmpty ? "" : "?" + query)
            let (page, data) = try await admin.client().decode(AuditPageResponse.self, .GET, path)
            AdminOutput.print(data, json: admin.json) { AuditCommand.lines(page) }
        }
    }

    static func lines(_ page: AuditPageResponse) -> [String] {
        var lines = page.events.map { event in
            let detail = event.detail
            var fields = [event.at, event.actor ?? "-", detail.action, detail.outcome ?? detail.reason ?? "-"]
            if let app = event.appID { fields.append("app=\(app)") }
            if let object = event.object { fields.append("\(object.type)=\(object.id)") }
            if detail.count != 1 { fields.append("×\(detail.count)") }
            return fields.joined(separator: "  ")
        }
        if lines.isEmpty { lines = ["no events"] }
        if let next = page.next { lines.append("more: --before \(next)") }
        return lines
    }
}
