/// The failures a `Store` reports, as sentinels every backend shares (after dex's storage errors),
/// so that the server maps them to HTTP without knowing which database it runs on.
///
/// A struct with a `kind` rather than an enum, so that a kind added later breaks no caller: compare
/// with the static members (`catch StoreError.notFound`, `error.kind == .unavailable`).
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case notFound, alreadyExists, nonceAlreadyUsed, tombstone, userSuspended, unavailable, limitReached
        }

        fileprivate let base: Base

        public var description: String { base.rawValue }

        /// The named row does not exist.
        public static let notFound = Kind(base: .notFound)
        /// A uniqueness rule would be broken (e.g. a key id that exists already).
        public static let alreadyExists = Kind(base: .alreadyExists)
        /// The nonce of a sign-in was already used: the whole sign-in was rolled back.
        public static let nonceAlreadyUsed = Kind(base: .nonceAlreadyUsed)
        /// The key was deleted: its tombstone cannot take another status.
        public static let tombstone = Kind(base: .tombstone)
        /// The user is suspended: the sign-in was rolled back.
        public static let userSuspended = Kind(base: .userSuspended)
        /// The database could not be reached or answered with an error (`detail` says which).
        public static let unavailable = Kind(base: .unavailable)
        /// A count the store holds rows to (an app's webhook endpoints) is reached: nothing was written.
        public static let limitReached = Kind(base: .limitReached)
    }

    public let kind: Kind
    /// `.unavailable`: what failed, for logs, never for clients.
    public let detail: String?

    private init(_ kind: Kind, detail: String? = nil) {
        self.kind = kind
        self.detail = detail
    }

    public static let notFound = StoreError(.notFound)
    public static let alreadyExists = StoreError(.alreadyExists)
    public static let nonceAlreadyUsed = StoreError(.nonceAlreadyUsed)
    public static let tombstone = StoreError(.tombstone)
    public static let userSuspended = StoreError(.userSuspended)
    public static let limitReached = StoreError(.limitReached)

    public static func unavailable(_ detail: String) -> StoreError { StoreError(.unavailable, detail: detail) }

    /// Lets `catch StoreError.x` and `case StoreError.x:` match any error equal to `x`.
    public static func ~= (pattern: Self, error: any Error) -> Bool { (error as? Self) == pattern }

    public var description: String { detail.map { "\(kind): \($0)" } ?? kind.description }
}
