import PostgresNIO

/// Which failures say the database cannot be reached, as opposed to a statement it refused.
enum PostgresFailure {
    /// Whether `error` (as an operation threw it, before `StoreError.from(postgres:)`) means the
    /// database did not answer: the operation's deadline passed, the connection could not be made
    /// or was lost, or the server is shutting down, starting up or full. A statement the server
    /// answered with an error (a unique violation, a lock timeout, Vouch's own VU001) is not one:
    /// the database is there, and the next operation may well succeed.
    static func isConnectionLevel(_ error: any Error) -> Bool {
        switch error {
        case is DeadlineExceeded:
            return true
        case let error as PSQLError:
            if let state = error.serverInfo?[.sqlState] { return connectionStates.contains(state) || state.hasPrefix("08") }
            return [.connectionError, .serverClosedConnection, .uncleanShutdown].contains(error.code)
        default:
            return false
        }
    }

    /// admin_shutdown, crash_shutdown, cannot_connect_now (starting up or in recovery),
    /// too_many_connections; class 08 (connection exception) is matched by its prefix.
    private static let connectionStates: Set<String> = ["57P01", "57P02", "57P03", "53300"]
}
