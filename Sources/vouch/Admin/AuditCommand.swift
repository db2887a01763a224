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
            abstract: "List audit entries, newest first; --cursor continues where a page ended.",
            discussion: "Times are RFC 3339 (2026-11-23T22:00:00Z) or Unix seconds; --since is inclusive, --until exclusive.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "admin or sign_in_rejected.") var kind: String?
        @Option(name: .long, help: "An action such as app.create, key.disable or sign_in.rejected.") var action: String?
        @Option(name: .long, help: "Only entries about this app (id).") var app: String?
        @Option(name: .long, help: "Only entries about this object (an app, provider, key or application key id, or a user id).")
        var object: String?
        @Option(name: .long, help: "Entries at or after this time.") var since: String?
        @Option(name: .long, help: "Entries before this time.") var until: String?
        @Option(name: .long, help: "The next_cursor printed by the previous page.") var cursor: String?
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
            if let app { add("app", try AdminPath.app(app)) }
            add("object", object)
            add("since", since)
            add("until", until)
            add("cursor", cursor)
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
        var lines = page.entries.map { entry in
            var fields = [entry.at, entry.actor ?? "-", entry.action, entry.outcome]
            if let app = entry.appID { fields.append("app=\(app)") }
            if let type = entry.objectType, let id = entry.objectID { fields.append("\(type)=\(id)") }
            if entry.count != 1 { fields.append("×\(entry.count)") }
            return fields.joined(separator: "  ")
        }
        if lines.isEmpty { lines = ["no entries"] }
        if let next = page.nextCursor { lines.append("more: --cursor \(next)") }
        return lines
    }
}
