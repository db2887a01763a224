import ArgumentParser
import Foundation
import VouchProtocol

/// `vouch sessions list|revoke`: a user's devices (their live sessions) and ending one of them.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List a user's devices (live sessions) and sign one out (admin API).",
        discussion: "To end all of a user's sessions: `vouch users revoke-sessions APP USER` or `vouch cutoff user APP USER`.",
        subcommands: [List.self, Revoke.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a user's live sessions, oldest first, with their devices.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The app id.") var app: String
        @Argument(help: "The user id, as the identity tokens name it.") var user: String

        func run() async throws {
            let path = "/admin/apps/\(try AdminPath.app(app))/users/\(try AdminPath.user(user))/sessions"
            let (list, data) = try await admin.client().decode(SessionListResponse.self, .GET, path)
            AdminOutput.print(data, json: admin.json) {
                list.sessions.isEmpty ? ["no live sessions"] : SessionsCommand.table(list.sessions)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End one session: its device is asked to sign in again (session_revoked).")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The session id, as `vouch sessions list` prints it.") var session: String

        func run() async throws {
            guard let id = LayerID.parseUUID(session.trimmingCharacters(in: .whitespaces)) else {
                throw CLIError("not a session id: \(session) (a UUID, as `vouch sessions list` prints it)")
            }
            try await admin.client().call(.DELETE, "/admin/sessions/\(id.lowercased)")
            let summary = try JSONSerialization.data(
                withJSONObject: ["session_id": id.lowercased, "status": "revoked"], options: [.sortedKeys])
            AdminOutput.print(summary, json: admin.json) { ["\(id.lowercased)  revoked"] }
        }
    }

    /// One row per session under a header, columns padded to their widest cell.
    static func table(_ sessions: [SessionSummary]) -> [String] {
        let header = ["SESSION", "DEVICE", "PLATFORM", "APP VERSION", "CREATED", "LAST SEEN"]
        let rows = sessions.map { session in
            [
                session.sessionID, session.device?.name ?? "-", session.device?.platform ?? "-",
                session.device?.appVersion ?? "-", session.createdAt, session.lastSeenAt,
            ]
        }
        return AdminTable.lines(header: header, rows: rows)
    }
}
