import VouchClient

/// Alice signed in on a client whose live channel is open, over a real socket.
struct LiveAlice {
    let client: VouchClient
    let backend: Backend
    let transport: WebSocketTransport
    /// The client's events since before the sign-in.
    let log: EventLog
    let alice: Identity

    var parts: (VouchClient, Backend, WebSocketTransport, EventLog, Identity) { (client, backend, transport, log, alice) }
}

extension TestBed {
    /// Signs alice in on a client with the live channel over ``WebSocketTransport``, and waits
    /// until the channel says it follows her session.
    func aliceLive() async throws -> LiveAlice {
        let backend = self.backend()
        let transport = WebSocketTransport()
        let client = try self.client(backend: backend, liveChannel: .over(transport))
        let log = EventLog(client)
        let alice = try await client.connect(userID: "alice")
        try await log.connected()
        return LiveAlice(client: client, backend: backend, transport: transport, log: log, alice: alice)
    }
}
