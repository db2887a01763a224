import VouchStore

extension StoreError {
    /// Translates what SQLite threw into the sentinels every backend shares, so the server maps
    /// failures to HTTP without knowing which database it runs on.
    ///
    /// A uniqueness violation means the row exists already; a foreign-key violation means a row it
    /// refers to (an app, a provider) does not. Anything else is the database failing.
    static func from(sqlite error: any Error) -> any Error {
        switch error {
        case let error as StoreError:
            return error
        case is CancellationError:
            return error
        case let error as SQLiteFailure:
            if error.isUniquenessViolation { return StoreError.alreadyExists }
            if error.isForeignKeyViolation { return StoreError.notFound }
            // SQLite's messages name tables and columns, never bound values.
            return StoreError.unavailable("sqlite: \(error.description)")
        default:
            return StoreError.unavailable("sqlite: \(error)")
        }
    }
}
