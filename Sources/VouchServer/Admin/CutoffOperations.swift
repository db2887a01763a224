import Foundation
import VouchProtocol
import VouchStore

/// Cutoffs as the admin API and the dashboard both make them: the same checks, the same errors,
/// the same audit note.
struct CutoffOperations: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    /// Longest `reason`, in bytes.
    static let maximumReasonBytes = 256

    /// Ends every session of `target` that exists now; 404 for an unknown object, 409 for a
    /// deleted key, 422 for a bad reason (nothing changed in each case).
    func cutOff(_ target: CutoffTarget, reason: String?) async throws -> CutoffResponse {
        let reason = try Self.validated(reason: reason)
        let result: CutoffResult
        do {
            result = try await store.cutOff(target, reason: reason, now: clock())
        } catch let error as StoreError {
            throw Self.answer(error, target)
        }
        AuditNote.note(
            "\(result.sessionsEnded) sessions ended" + (reason.map { "; reason: \($0)" } ?? ""))
        return CutoffResponse(
            scope: target.scope.rawValue, cutoffAt: Timestamp.rfc3339(result.cutoff.at ?? clock()), reason: reason,
            sessionsEnded: result.sessionsEnded)
    }

    /// The object's last cutoff and how many of its sessions are live now.
    func status(_ target: CutoffTarget) async throws -> CutoffStatusResponse {
        do {
            let cutoff = try await store.cutoff(of: target)
            let live = try await store.liveSessionCount(of: target, now: clock())
            return CutoffStatusResponse(
                scope: target.scope.rawValue,
                cutoff: cutoff.at.map { CutoffStatusResponse.Cutoff(cutoffAt: Timestamp.rfc3339($0), reason: cutoff.reason) },
                liveSessions: live)
        } catch let error as StoreError {
            throw Self.answer(error, target)
        }
    }

    static func validated(reason: String?) throws -> String? {
        guard let reason else { return nil }
        guard (1...maximumReasonBytes).contains(reason.utf8.count) else {
            throw APIError.invalidProperty("reason", "`reason` must be 1…\(maximumReasonBytes) bytes.")
        }
        if reason.unicodeScalars.contains(where: AdminValidation.isForbiddenInText) {
            throw APIError.invalidProperty("reason", "`reason` contains a control or bidirectional formatting character; remove it.")
        }
        return reason
    }

    private static func answer(_ error: StoreError, _ target: CutoffTarget) -> any Error {
        switch error.kind {
        case .notFound: return APIError.notFound(target.scope.displayName)
        case .tombstone:
            return APIError(
                .conflict,
                "The key is deleted: its sessions live on until they expire. Cut the key off before deleting it, "
                    + "or cut off its provider.")
        default: return error
        }
    }
}

extension CutoffScope {
    /// "App", "Provider", "Key", "User", for messages.
    var displayName: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}
