import Foundation
import VouchProtocol
import VouchStore

/// A security event as a receiver gets it (PROTOCOL §8.17): the same JSON object in a webhook's
/// body and in `GET /events`, keys sorted so that one event always has the same bytes.
///
/// `{"id", "type", "time", "app_id", "user_id"?, "sequence"?, "data"}`.
enum SecurityEventBody {
    static func json(_ event: SecurityEventRecord) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(object(event)))) ?? Array("{}".utf8)
    }

    /// The event's JSON object.
    static func object(_ event: SecurityEventRecord) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(event.id.uuidString.lowercased()), "type": .string(event.kind.rawValue),
            "time": .string(Timestamp.rfc3339(event.at)), "app_id": .string(event.appID.uuidString.lowercased()),
            "data": (try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8))) ?? .object([:]),
        ]
        if let userID = event.userID { object["user_id"] = .string(userID) }
        if let sequence = event.userSequence { object["sequence"] = .number(JSONNumber(sequence)) }
        return .object(object)
    }
}
