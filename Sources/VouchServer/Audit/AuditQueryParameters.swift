import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// The query of `GET /admin/audit` (and the dashboard's audit page), read strictly: an unknown
/// kind, a malformed id, time or cursor is a 400 naming the parameter, never silently ignored.
struct AuditQueryParameters: Sendable, Equatable {
    static let defaultLimit = 50
    static let maximumLimit = 200

    var query: AuditQuery

    /// Reads the contract's `kind`, `app_id`, `before` (the previous page's `next`) and `limit`
    /// (1…200), and Vouch's `action`, `object`, `since` and `until` (RFC 3339 or Unix seconds);
    /// empty values count as absent (what an empty form field sends).
    init(_ parameters: [String: String]) throws {
        func value(_ name: String) -> String? {
            guard let text = parameters[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        var query = AuditQuery(limit: Self.defaultLimit)
        if let kind = value("kind") {
            guard let parsed = AuditKind(rawValue: kind) else {
                throw APIError.invalidProperty("kind", "`kind` must be one of: \(AuditKind.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            query.kind = parsed
        }
        if let action = value("action") {
            guard action.utf8.count <= NewAuditEntry.maximumShortFieldBytes else {
                throw APIError.invalidProperty("action", "`action` is too long.")
            }
            query.action = action
        }
        if let app = value("app_id") {
            guard let id = LayerID.parseApp(app) ?? LayerID.parseUUID(app) else {
                throw APIError.invalidProperty("app_id", "`app_id` must be an app id (layer:///apps/<uuid> or the UUID).")
            }
            query.appID = id
        }
        if let object = value("object") {
            guard object.utf8.count <= NewAuditEntry.maximumObjectIDBytes else {
                throw APIError.invalidProperty("object", "`object` is too long.")
            }
            query.objectID = Self.objectID(object)
        }
        query.since = try value("since").map { try Self.time($0, "since") }
        query.until = try value("until").map { try Self.time($0, "until") }
        if let cursor = value("before") {
            guard let id = Int64(cursor), id > 0 else {
                throw APIError.invalidProperty("before", "`before` must be the `next` of a previous page.")
            }
            query.beforeID = id
        }
        if let limit = value("limit") {
            guard let number = Int(limit), (1...Self.maximumLimit).contains(number) else {
                throw APIError.invalidProperty("limit", "`limit` must be 1…\(Self.maximumLimit).")
            }
            query.limit = number
        }
        self.query = query
    }

    /// Entries store bare, lower-case UUIDs: `layer:///keys/<uuid>` and an upper-case UUID
    /// find them too. Anything else (a user id) is taken as is.
    static func objectID(_ text: String) -> String {
        if let id = LayerID.parseProvider(text) ?? LayerID.parseKey(text) ?? LayerID.parseApp(text) ?? LayerID.parseUUID(text) {
            return id.lowercased
        }
        return text
    }

    private static func time(_ text: String, _ name: String) throws -> Int64 {
        if let seconds = Int64(text), seconds >= 0 { return seconds }
        if let parsed = Timestamp.parse(text) { return parsed }
        throw APIError.invalidProperty(name, "`\(name)` must be an RFC 3339 time (2026-11-23T22:00:00Z) or Unix seconds.")
    }

    /// One page: asks the store for one entry more than the page holds, to know whether another
    /// page follows without a second query.
    func page(from store: any Store) async throws -> (entries: [AuditEntry], nextCursor: Int64?) {
        var lookahead = query
        lookahead.limit = query.limit + 1
        let found = try await store.auditEntries(lookahead)
        let entries = Array(found.prefix(query.limit))
        return (entries, found.count > query.limit ? entries.last?.id : nil)
    }
}

extension AuditEntry {
    var response: AuditEventResponse {
        let rejected = entry.kind == .signInRejected
        return AuditEventResponse(
            id: id, at: Timestamp.rfc3339(entry.at), kind: entry.kind.rawValue, actor: entry.actor,
            object: entry.objectID.map { AuditEventResponse.Object(type: entry.objectType ?? "", id: $0) },
            detail: AuditEventResponse.Detail(
                action: entry.action, outcome: rejected ? nil : entry.outcome,
                reason: rejected ? entry.outcome : entry.note, count: entry.count),
            appID: entry.appID.map(LayerID.app))
    }
}
