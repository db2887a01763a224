import ArgumentParser
import Foundation
import VouchProtocol

extension WebhooksCommand {
    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a webhook endpoint's recent deliveries, newest first: state, attempts, last outcome.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String
        @Argument(help: "The endpoint's id, as `vouch webhooks list` prints it.") var id: String
        @Option(name: .long, help: "At most this many (1…200).") var limit = 50

        func validate() throws {
            guard (1...200).contains(limit) else { throw ValidationError("--limit must be 1…200") }
        }

        func run() async throws {
            let path = try WebhooksCommand.path(app: app, id: id) + "/deliveries?limit=\(limit)"
            let (list, data) = try await admin.client().decode(WebhookDeliveryList.self, .GET, path)
            AdminOutput.print(data, json: admin.json) {
                list.deliveries.isEmpty ? ["no deliveries"] : WebhooksCommand.deliveryTable(list.deliveries)
            }
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send an event to a webhook endpoint again, with the same event id (any state; a paused endpoint waits for --resume).")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String
        @Argument(help: "The endpoint's id, as `vouch webhooks list` prints it.") var id: String
        @Argument(help: "The event's id, as `vouch webhooks deliveries` prints it.") var event: String

        func run() async throws {
            guard let eventID = LayerID.parseUUID(event.trimmingCharacters(in: .whitespaces)) else {
                throw CLIError("not an event id: \(event) (a UUID, as `vouch webhooks deliveries` prints it)")
            }
            let path = try WebhooksCommand.path(app: app, id: id) + "/deliveries/\(eventID.lowercased)/replay"
            let (delivery, data) = try await admin.client().decode(WebhookDeliveryResponse.self, .POST, path)
            AdminOutput.print(data, json: admin.json) { WebhooksCommand.deliveryTable([delivery]) }
        }
    }

    /// `alice #3`: the user and the event's place among theirs; `-` for an event of no user.
    private static func user(_ delivery: WebhookDeliveryResponse) -> String {
        guard let user = delivery.userID else { return "-" }
        return delivery.sequence.map { "\(user) #\($0)" } ?? user
    }

    /// One row per delivery under a header.
    static func deliveryTable(_ deliveries: [WebhookDeliveryResponse]) -> [String] {
        AdminTable.lines(
            header: ["EVENT", "TYPE", "USER", "STATE", "ATTEMPTS", "LAST OUTCOME"],
            rows: deliveries.map {
                [
                    $0.eventID, $0.eventType, user($0), $0.state, String($0.attempts),
                    $0.lastOutcome ?? "-",
                ]
            })
    }
}
