/// How long a committer may hold a small group commit back so that more writes join it.
///
/// Every commit pays an fsync and writes the pages it touched to the WAL, and the pages a sign-in
/// touches (the ends of the session, expiry and nonce indexes) are largely the same ones: the more
/// operations one commit carries, the less each pays. Under a storm the writer otherwise commits
/// as soon as it is free, with whatever few operations arrived during the last commit. Like
/// PostgreSQL's `commit_delay` with `commit_siblings`, it waits only when the previous group
/// carried more than one operation (others are on their way), only while fewer than `enough` are
/// waiting, and never longer than `maximumWait`; a lone write is never held back. Every
/// operation is still answered only after the commit that holds it.
///
/// Since the committer is a write's own task (`SQLiteWorker`, "the baton"), the hold blocks that
/// task's thread, a thread of Swift's pool, for at most `maximumWait`; it still pays over HTTP
/// (docs/PERFORMANCE.md, "The durable write"). Where the pool has one thread (one core) the
/// writes it waits for could not even arrive while it holds, so there it never holds.
public struct GroupGathering: Sendable, Equatable {
    /// The longest a group is held back.
    public var maximumWait: Duration
    /// A group this large is committed at once.
    public var enough: Int

    public init(maximumWait: Duration, enough: Int) {
        self.maximumWait = maximumWait
        self.enough = enough
    }

    /// Commit at once.
    public static let none = GroupGathering(maximumWait: .zero, enough: 1)
    /// What `vouch serve` uses: a fifth of a millisecond at most, against sign-in latencies of a
    /// few milliseconds under load (docs/PERFORMANCE.md, "The durable write").
    public static let standard = GroupGathering(maximumWait: .microseconds(200), enough: 16)
}
