import Foundation
import VouchProtocol
import VouchStore

/// A user's erasure and export as the admin API and the dashboard both make them: the same
/// checks, the same errors, the same audit entries.
struct UserDataOperations: Sendable {
    let store: any Store
    let pseudonyms: UserPseudonyms
    let clock: @Sendable () -> Int64

    /// The most audit entries an export carries.
    static let auditLimit = 1_000

    /// Forgets the user (`Store.eraseUser`); 404 when the app has no such user. The erasure's own
    /// audit entry names the pseudonym, never the user.
    func erase(appID: UUID, userID: String) async throws -> UserErasureResponse {
        let pseudonym = pseudonyms.pseudonym(appID: appID, userID: userID)
        AuditNote.app(appID)
        AuditNote.object("user", pseudonym)
        let erasure: UserErasure
        do {
            erasure = try await store.eraseUser(appID: appID, userID: userID, pseudonym: pseudonym, now: clock())
        } catch StoreError.notFound {
            throw APIError.notFound("User")
        }
        AuditNote.note(
            "\(erasure.sessionsEnded) live sessions ended, \(erasure.sessionsForgotten) forgotten, "
                + "\(erasure.auditEntriesPseudonymised) audit entries pseudonymised")
        return UserErasureResponse(
            userID: userID, pseudonym: erasure.pseudonym, sessionsEnded: erasure.sessionsEnded,
            sessionsForgotten: erasure.sessionsForgotten, auditEntriesPseudonymised: erasure.auditEntriesPseudonymised)
    }

    /// Everything held about the user; 404 when the app has no such user. The audit entry names the
    /// user only when there was one: a look-up of an erased id leaves no trace of it.
    func export(appID: UUID, userID: String) async throws -> UserExportResponse {
        AuditNote.app(appID)
        guard let data = try await store.userData(appID: appID, userID: userID) else { throw APIError.notFound("User") }
        AuditNote.object("user", userID)
        let user = data.user
        return UserExportResponse(
            user: user.identity, suspended: user.suspended, createdAt: Timestamp.rfc3339(data.createdAt),
            updatedAt: Timestamp.rfc3339(data.updatedAt),
            cutoff: user.cutoff.at.map { CutoffStatusResponse.Cutoff(cutoffAt: Timestamp.rfc3339($0), reason: user.cutoff.reason) },
            sessions: data.sessions.map(\.exported), events: data.events.map(SecurityEventBody.object),
            audit: try await auditEntries(appID: appID, userID: userID).map(\.response),
            exportedAt: Timestamp.rfc3339(clock()))
    }

    /// The app's entries whose object is the user, newest first, a page at a time.
    private func auditEntries(appID: UUID, userID: String) async throws -> [AuditEntry] {
        var found: [AuditEntry] = []
        var before: Int64?
        while found.count < Self.auditLimit {
            let page = try await store.auditEntries(
                AuditQuery(appID: appID, objectID: userID, beforeID: before, limit: AuditQuery.maximumLimit))
            found += page.filter { $0.entry.objectType == "user" }
            guard page.count == AuditQuery.maximumLimit, let last = page.last else { break }
            before = last.id
        }
        return Array(found.prefix(Self.auditLimit))
    }
}

extension SessionRecord {
    /// The session as an export shows it.
    var exported: UserExportResponse.Session {
        UserExportResponse.Session(
            sessionID: sessionID.lowercased, device: device, createdAt: Timestamp.rfc3339(createdAt),
            lastSeenAt: Timestamp.rfc3339(lastSeenAt), expiresAt: Timestamp.rfc3339(expiresAt),
            endedAt: endedAt.map(Timestamp.rfc3339), endReason: endReason?.rawValue,
            providerID: providerID.map(LayerID.provider), keyID: keyID?.lowercased)
    }
}
