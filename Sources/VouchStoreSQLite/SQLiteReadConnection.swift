/// When the SQLite store's reads get a connection of their own (`SQLiteReader`).
public enum SQLiteReadConnection: Sendable, Equatable {
    /// Opened the first time a read finds the writer busy, then used whenever it is: reads never
    /// wait behind a group commit's fsync. What `vouch serve` uses.
    case whenBusy
    /// Every read on the read connection: the conformance suite runs this way, so that every
    /// read-after-write it checks crosses from one connection to the other.
    case always
    /// Reads share the writer's queue: one connection (three file descriptors) per store, for a
    /// process that holds very many stores at once.
    case never
}
