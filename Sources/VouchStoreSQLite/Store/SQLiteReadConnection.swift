/// Where the SQLite store's reads run: on connections of their own (`SQLiteInlineReaders`,
/// `SQLiteReader`) or on the writer's.
public enum SQLiteReadConnection: Sendable, Equatable {
    /// On the calling thread, over a few read connections (one per core) opened as needed: no hop
    /// to a queue and back, and never behind a group commit's fsync. A read that finds them all in
    /// use, or the database busy, goes to the queued read connection. What `vouch serve` uses.
    case inline
    /// Every read queued on the read connection: the conformance suite runs this way (and
    /// `.inline`), so that every read-after-write it checks crosses from one connection to another.
    case always
    /// Reads share the writer's queue: one connection (three file descriptors) per store, for a
    /// process that holds very many stores at once.
    case never
}
