import VouchStore

/// How long a provider's last good keys keep verifying while its key source fails, and how often
/// a source may be asked again (PROTOCOL §8.18).
public struct KeySourceSettings: Sendable, Equatable, CustomStringConvertible {
    /// `vouch serve --key-source-grace-hours`: after this long without a good fetch the keys are
    /// no longer trusted (a source that stays down may have been taken over, or retired a key).
    public var graceSeconds: Int64 = 86_400
    /// The most one fetch of a key source may take, discovery included. Not a flag: the
    /// protocol's bound; tests on a loaded machine raise it where it is not what they test.
    public var fetchTimeLimit: Duration = .seconds(5)

    /// An unknown `kid` makes one fetch at most this often per provider, across instances.
    static let unknownKeyRefetchSeconds: Int64 = 60
    /// A failing source is asked again at most this often.
    static let failingRetrySeconds: Int64 = 60
    /// One instance's turn to fetch a stale set: others wait this long before taking it.
    static let staleFetchTurnSeconds: Int64 = 10
    /// A set's freshness: its `Cache-Control` clamped to this, whatever the source says.
    static let freshness = 60...3_600
    /// A source that sends no `max-age`.
    static let defaultFreshnessSeconds = 300

    static let graceSecondsRange: ClosedRange<Int64> = 3_600...2_592_000

    public init() {}

    func validate() throws(ConfigurationError) {
        guard Self.graceSecondsRange.contains(graceSeconds) else {
            throw ConfigurationError(field: "keySources.graceSeconds", accepted: "1…720 hours")
        }
        guard fetchTimeLimit > .zero, fetchTimeLimit <= .seconds(120) else {
            throw ConfigurationError(field: "keySources.fetchTimeLimit", accepted: "more than 0 and at most 120 seconds")
        }
    }

    public var description: String { "KeySourceSettings(graceSeconds: \(graceSeconds), fetchTimeLimit: \(fetchTimeLimit))" }
}
