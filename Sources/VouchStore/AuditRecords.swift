import Foundation

/// What an audit entry is about.
public enum AuditKind: String, Sendable, Equatable, CaseIterable {
    /// A state-changing admin request (admin API or dashboard form), whatever its outcome.
    case admin
    /// Sign-ins refused with a token rejection, counted per app and reason over a short window.
    case signInRejected = "sign_in_rejected"
    /// A user's own action on their sessions (signing a device out, or every other device).
    case user
}

/// One line of the audit log as stored. The store assigns `id`, increasing with every insert,
/// which is what paging walks (newest first).
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var entry: NewAuditEntry

    public init(id: Int64, entry: NewAuditEntry) {
        self.id = id
        self.entry = entry
    }
}

/// An audit entry to write. Every text field is bounded and stripped of control characters when
/// the value is made, so that nothing written to the log (some of it from request paths) can
/// grow it without bound or forge a line in a terminal.
public struct NewAuditEntry: Sendable, Equatable {
    /// Unix seconds; for `.signInRejected`, the first rejection of the window counted.
    public var at: Int64
    public var kind: AuditKind
    /// Who acted: `api` (the admin bearer token) or `dashboard:<session id>`; `nil` for
    /// rejected sign-ins, whose sender is unknown.
    public var actor: String?
    /// `app.create`, `key.disable`, … for admin entries; `sign_in.rejected` for rejections.
    public var action: String
    /// `ok`, or the error id an admin request failed with; a rejection's §5.4 reason.
    public var outcome: String
    /// The app concerned, when there is one.
    public var appID: UUID?
    /// The kind of the object acted on (`app`, `provider`, `key`, `registration_secret`, `user`).
    public var objectType: String?
    /// Its id (a user id as the admin sent it, bounded).
    public var objectID: String?
    /// How many events this entry stands for: 1 for an admin action, the number of rejections
    /// with this app and reason in the window for `.signInRejected`.
    public var count: Int64
    /// Free text the actor gave or the action produced: a cutoff's reason, the sessions a
    /// sign-out ended. At most `maximumNoteBytes`.
    public var note: String?

    /// Longest stored `note`, in bytes.
    public static let maximumNoteBytes = 512

    /// Longest stored `actor`, `action`, `outcome` and `objectType`, in bytes.
    public static let maximumShortFieldBytes = 64
    /// Longest stored `objectID`, in bytes (user ids in paths may be long).
    public static let maximumObjectIDBytes = 256

    public init(
        at: Int64, kind: AuditKind, actor: String?, action: String, outcome: String,
        appID: UUID? = nil, objectType: String? = nil, objectID: String? = nil, count: Int64 = 1,
        note: String? = nil
    ) {
        self.at = at
        self.kind = kind
        self.actor = actor.map { Self.bounded($0, Self.maximumShortFieldBytes) }
        self.action = Self.bounded(action, Self.maximumShortFieldBytes)
        self.outcome = Self.bounded(outcome, Self.maximumShortFieldBytes)
        self.appID = appID
        self.objectType = objectType.map { Self.bounded($0, Self.maximumShortFieldBytes) }
        self.objectID = objectID.map { Self.bounded($0, Self.maximumObjectIDBytes) }
        self.count = max(1, count)
        self.note = note.map { Self.bounded($0, Self.maximumNoteBytes) }
    }

    /// `text` without control characters, cut at a character boundary to at most `limit` UTF-8
    /// bytes (a cut is marked with `…` inside the limit).
    static func bounded(_ text: String, _ limit: Int) -> String {
        var scalars = String.UnicodeScalarView()
        var bytes = 0
        let ellipsis: Unicode.Scalar = "\u{2026}"
        for scalar in text.unicodeScalars where !scalar.properties.generalCategory.isControlOrFormat {
            let size = UTF8.width(scalar)
            if bytes + size > limit {
                while bytes + UTF8.width(ellipsis) > limit, let last = scalars.popLast() { bytes -= UTF8.width(last) }
                scalars.append(ellipsis)
                break
            }
            scalars.append(scalar)
            bytes += size
        }
        return String(scalars)
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isControlOrFormat: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}

/// Which audit entries to read: every filter given must hold; newest first.
public struct AuditQuery: Sendable, Equatable {
    public var kind: AuditKind?
    public var action: String?
    public var appID: UUID?
    /// Matches `objectID` exactly.
    public var objectID: String?
    /// Entries at or after this second.
    public var since: Int64?
    /// Entries before this second.
    public var until: Int64?
    /// The paging cursor: only entries with a smaller id (older than the last one seen).
    public var beforeID: Int64?
    /// At most this many, clamped to `1...maximumLimit`.
    public var limit: Int

    public static let maximumLimit = 500

    public init(
        kind: AuditKind? = nil, action: String? = nil, appID: UUID? = nil, objectID: String? = nil,
        since: Int64? = nil, until: Int64? = nil, beforeID: Int64? = nil, limit: Int = 50
    ) {
        self.kind = kind
        self.action = action
        self.appID = appID
        self.objectID = objectID
        self.since = since
        self.until = until
        self.beforeID = beforeID
        self.limit = min(max(limit, 1), Self.maximumLimit)
    }
}
