/// The live channel's fixed bounds (PROTOCOL §8.15).
enum LiveChannelLimits {
    /// Sockets one session may hold open on one instance: a browser's tabs share a session.
    static let socketsPerSession = 8
    /// A client frame is an identity token (at most 8 KiB) in a small JSON object.
    static let maximumFrameBytes = 16 * 1024
    /// The server pings this often and closes a socket that did not answer the previous ping.
    static let pingInterval: Duration = .seconds(30)
    /// How long a close handshake may take before the connection is dropped.
    static let closeTimeout: Duration = .seconds(5)
    /// The subprotocol the server selects whenever the client offers it.
    static let subprotocol = "vouch.live.v1"
    /// A ticket is offered as the subprotocol `vouch.ticket.<ticket>`.
    static let ticketSubprotocolPrefix = "vouch.ticket."
    /// A cutoff's challenges are spread so that each instance's sockets ask for about this many
    /// identity tokens a second at most.
    static let answersPerSecond = 100
    /// Endings are read from the log in pages of this many.
    static let endingsPageSize = 500
    /// How often the log is read even without a notification: a floor under a feed that went
    /// quiet without noticing.
    static let backstopInterval: Duration = .seconds(10)
}
