import PostgresNIO
import VouchStore

extension StoreError {
    /// Translates what PostgresNIO (or the deadline) threw into the sentinels every backend shares.
    ///
    /// A unique violation (23505) means the row exists already, a foreign-key violation (23503)
    /// that a row it refers to does not. VU001 and VU002 are Vouch's own, raised by
    /// `vouch_create_session` (migration 3) for a used nonce and a suspended user. Anything else
    /// is the database failing: its SQLSTATE and the server's message (which names tables and
    /// constraints, never bound values) go into `.unavailable` for the log. PSQLError's own
    /// description is deliberately generic, and nothing here prints the connection's
    /// configuration, so the password cannot leak.
    static func from(postgres error: any Error) -> any Error {
        switch error {
        case let error as StoreError:
            return error
        case is CancellationError:
            return error
        case let error as DeadlineExceeded:
            return StoreError.unavailable(error.description)
        case let error as PSQLError:
            if let state = error.serverInfo?[.sqlState] {
                switch state {
                case "23505": return StoreError.alreadyExists
                case "23503": return StoreError.notFound
                case "VU001": return StoreError.nonceAlreadyUsed
                case "VU002": return StoreError.userSuspended
                default:
                    let message = error.serverInfo?[.message] ?? ""
                    return StoreError.unavailable("postgres: SQLSTATE \(state): \(message)")
                }
            }
            return StoreError.unavailable("postgres: \(error.code)")
        default:
            return StoreError.unavailable("postgres: \(type(of: error))")
        }
    }
}
