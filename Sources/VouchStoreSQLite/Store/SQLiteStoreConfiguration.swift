import VouchStore

extension SQLiteStore {
    /// Every knob of an SQLite store in one value, each range beside its field and checked by
    /// `validate()` (as `PostgresStoreOptions` does for PostgreSQL).
    public struct Configuration: Sendable, Equatable {
        /// Where reads run (`.inline`: on the caller's thread, beside the writer).
        public var readConnection: SQLiteReadConnection
        /// How long a group commit may wait for more writes under load (`GroupGathering.none`
        /// commits at once).
        public var groupGathering: GroupGathering
        /// The most sessions whose look-up is kept in memory; 0 keeps nothing, the catalogue rows of
        /// sign-ins (`CatalogueCache`) and the writer's users (`WriterUserCache`) included.
        public var sessionCacheCapacity: Int

        static let groupCommitWaitRange: ClosedRange<Duration> = .zero ... .microseconds(10_000)
        static let groupCommitEnoughRange = 1...10_000
        static let sessionCacheCapacityRange = 0...1_000_000

        public init(
            readConnection: SQLiteReadConnection = .inline, groupGathering: GroupGathering = .standard,
            sessionCacheCapacity: Int = SQLiteStore.defaultSessionCacheCapacity
        ) {
            self.readConnection = readConnection
            self.groupGathering = groupGathering
            self.sessionCacheCapacity = sessionCacheCapacity
        }

        public func validate() throws(ConfigurationError) {
            guard Self.groupCommitWaitRange.contains(groupGathering.maximumWait) else {
                throw ConfigurationError(field: "groupGathering.maximumWait", accepted: "0…10000 microseconds")
            }
            try ConfigurationError.check(groupGathering.enough, in: Self.groupCommitEnoughRange, "groupGathering.enough")
            try ConfigurationError.check(sessionCacheCapacity, in: Self.sessionCacheCapacityRange, "sessionCacheCapacity")
        }
    }
}
