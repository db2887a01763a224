import Foundation
import Synchronization

/// What a handler adds to the audit entry of the request it serves: the id of an object it
/// created, ids that came in a form rather than the path, or a more precise action
/// (`key.disable` rather than `key.update`). Set through ``current``, which the audit middleware
/// binds for the request, so a handler needs no extra parameter to reach it; a handler that adds
/// nothing still gets an entry from the route and its path.
final class AuditNote: Sendable {
    struct Fields: Sendable {
        var action: String?
        var appID: UUID?
        var objectType: String?
        var objectID: String?
        var note: String?
    }

    @TaskLocal static var current: AuditNote?

    private let state = Mutex(Fields())

    var fields: Fields { state.withLock { $0 } }

    /// Records the action more precisely than the route's default.
    static func action(_ action: String) {
        current?.state.withLock { $0.action = action }
    }

    /// Adds free text: a cutoff's reason, how many sessions an action ended.
    static func note(_ note: String) {
        current?.state.withLock { $0.note = note }
    }

    /// Names the app concerned.
    static func app(_ id: UUID) {
        current?.state.withLock { $0.appID = id }
    }

    /// Names a new app as both the app concerned and the object.
    static func created(app id: UUID) {
        self.app(id)
        object("app", id.lowercased)
    }

    /// Names the object acted on.
    static func object(_ type: String, _ id: String) {
        current?.state.withLock {
            $0.objectType = type
            $0.objectID = id
        }
    }
}
