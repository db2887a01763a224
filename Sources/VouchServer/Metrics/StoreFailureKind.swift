import VouchStore

/// The `kind` label of `vouch_store_errors_total`: which way a store operation failed. Only
/// `unavailable` (and `other`) mean the database is in trouble; the rest are answers the store
/// gives on purpose (a used nonce, an unknown id) and the routes turn into 4xx.
enum StoreFailureKind: String, Sendable {
    case notFound = "not_found"
    case alreadyExists = "already_exists"
    case nonceAlreadyUsed = "nonce_already_used"
    case tombstone
    case userSuspended = "user_suspended"
    case limitReached = "limit_reached"
    case unavailable
    case cancelled
    case other

    init(_ error: any Error) {
        switch error {
        case StoreError.notFound: self = .notFound
        case StoreError.alreadyExists: self = .alreadyExists
        case StoreError.nonceAlreadyUsed: self = .nonceAlreadyUsed
        case StoreError.tombstone: self = .tombstone
        case StoreError.userSuspended: self = .userSuspended
        case StoreError.limitReached: self = .limitReached
        case let error as StoreError where error.kind == .unavailable: self = .unavailable
        case is CancellationError: self = .cancelled
        default: self = .other
        }
    }
}
