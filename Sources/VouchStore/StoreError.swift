/// The failures a `Store` reports, as sentinels every backend shares (after dex's storage errors),
/// so that the server maps them to HTTP without knowing which database it runs on.
public enum StoreError: Error, Equatable, Sendable {
    /// The named row does not exist.
    case notFound
    /// A uniqueness rule would be broken (e.g. a key id that exists already).
    case alreadyExists
    /// The nonce of a sign-in was already used: the whole sign-in was rolled back.
    case nonceAlreadyUsed
    /// The key was deleted: its tombstone cannot take another status.
    case tombstone
    /// The user is suspended: the sign-in was rolled back.
    case userSuspended
    /// The database could not be reached or answered with an error; the text is for logs, never
    /// for clients.
    case unavailable(String)
}
