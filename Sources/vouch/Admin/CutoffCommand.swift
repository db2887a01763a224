import ArgumentParser
import Foundation
import VouchProtocol

/// `vouch cutoff app|provider|key|user …` ends every session of an object now;
/// `vouch cutoff show app|provider|key|user …` shows its last cutoff and changes nothing.
struct CutoffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cutoff",
        abstract: "End every session of an app, provider, key or user now (admin API).",
        discussion: """
            A cutoff ends every session of the object that exists when it returns: each of their \
            devices is asked to sign in again (session_revoked, with the reason). Sessions opened \
            afterwards are untouched. To see the last cutoff and how many sessions one would end, \
            without making one: vouch cutoff show app|provider|key|user …
            """,
        subcommands: [
            Make<CutoffObject.App>.self, Make<CutoffObject.Provider>.self, Make<CutoffObject.Key>.self,
            Make<CutoffObject.User>.self, Show.self,
        ]
    )

    /// `vouch cutoff <scope> <id> [--reason TEXT]`.
    struct Make<Object: CutoffObject.Arguments>: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: Object.scope,
                abstract: "End every live session of \(Object.what)\(Object.reach) now; prints how many ended.")
        }

        @OptionGroup var admin: AdminOptions
        @OptionGroup var object: Object
        @Option(name: .long, help: "Why (1…256 bytes): kept in the audit log and shown to the signed-out clients.")
        var reason: String?

        func run() async throws {
            let (path, label) = (try object.path, try object.label)
            let (answer, data) = try await admin.client().decode(CutoffResponse.self, .POST, path, body: CutoffRequest(reason: reason))
            AdminOutput.print(data, json: admin.json) {
                let ended = answer.sessionsEnded == 1 ? "1 session ended" : "\(answer.sessionsEnded) sessions ended"
                return ["\(label)  cut off at \(answer.cutoffAt)  \(ended)"] + (answer.reason.map { ["reason: \($0)"] } ?? [])
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an object's last cutoff and how many sessions a cutoff would end now; changes nothing.",
            subcommands: [
                Status<CutoffObject.App>.self, Status<CutoffObject.Provider>.self, Status<CutoffObject.Key>.self,
                Status<CutoffObject.User>.self,
            ]
        )
    }

    /// `vouch cutoff show <scope> <id>`.
    struct Status<Object: CutoffObject.Arguments>: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: Object.scope, abstract: "Show the last cutoff of \(Object.what) and how many of its sessions are live.")
        }

        @OptionGroup var admin: AdminOptions
        @OptionGroup var object: Object

        func run() async throws {
            let (path, label) = (try object.path, try object.label)
            let (status, data) = try await admin.client().decode(CutoffStatusResponse.self, .GET, path)
            AdminOutput.print(data, json: admin.json) {
                let last = status.cutoff.map { "last cutoff \($0.cutoffAt)" + ($0.reason.map { " (reason: \($0))" } ?? "") } ?? "never cut off"
                return ["\(label)  \(last)  live sessions: \(status.liveSessions)"]
            }
        }
    }
}
