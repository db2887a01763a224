import Foundation
import VouchProtocol
import VouchStore
import VouchTokens

/// An entry of the log of endings as one app's services see it (PROTOCOL §8.16): only the app's
/// entries, each with what a service needs to match its tokens without asking the store (the
/// sessions a suspension ended, by id).
enum SessionEndingEvent {
    /// The entry's `data` line, or `nil` when it does not concern `appID`.
    static func data(for ending: SessionEnding, appID: UUID, store: any Store) async throws -> [UInt8]? {
        var members: [String: JSONValue] = [
            "position": .number(JSONNumber(ending.position)), "at": .number(JSONNumber(ending.at)),
            "kind": .string(ending.kind.rawValue),
        ]
        if let generation = ending.generation { members["generation"] = .number(JSONNumber(generation)) }
        if let reason = ending.reason { members["reason"] = .string(reason) }
        switch ending.scope {
        case .session(let sessionID, let app, let userID):
            guard app == appID else { return nil }
            members["scope"] = "session"
            members["app"] = .string(app.lowercased)
            members["sub"] = .string(userID)
            members["sid"] = .string(sessionID.lowercased)
        case .user(let app, let userID):
            guard app == appID else { return nil }
            members["scope"] = "user"
            members["app"] = .string(app.lowercased)
            members["sub"] = .string(userID)
            if ending.kind == .suspended {
                let ended = try await store.suspendedSessionIDs(appID: app, userID: userID, endedAt: ending.at)
                members["sids"] = .array(ended.map { .string($0.lowercased) })
            }
        case .app(let app):
            guard app == appID else { return nil }
            members["scope"] = "app"
            members["app"] = .string(app.lowercased)
        case .provider(let providerID):
            guard try await store.provider(id: providerID)?.appIDs.contains(appID) == true else { return nil }
            members["scope"] = "provider"
            members["provider_id"] = .string(providerID.lowercased)
        case .key(let keyID):
            guard let key = try await store.key(id: keyID),
                try await store.provider(id: key.providerID)?.appIDs.contains(appID) == true
            else { return nil }
            members["scope"] = "key"
            members["key_id"] = .string(keyID.lowercased)
        }
        return CanonicalJSON.serialize(.object(members))
    }
}
