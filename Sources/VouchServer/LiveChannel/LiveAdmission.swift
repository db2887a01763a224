import NIOHTTP1
import VouchStore

/// A connection admitted to the live channel: the session it opened with, the app's margin, and
/// what its upgrade answer selects.
struct LiveAdmission: Sendable {
    let socketID: LiveSocketID
    let session: SessionRecord
    let marginSeconds: Int64
    /// `vouch.live.v1` when the client offered it.
    let subprotocol: String?
    /// For the rate limit of `authenticate` frames, as `POST /sessions` has it.
    let clientIP: String
}

/// The subprotocols a client offered (`Sec-WebSocket-Protocol`, in any number of lines).
enum OfferedSubprotocols {
    static func parse(_ headers: HTTPHeaders) -> [Substring] {
        headers["Sec-WebSocket-Protocol"].flatMap { line in
            line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces)[...] }
        }.filter { !$0.isEmpty }
    }

    /// The ticket offered as `vouch.ticket.<ticket>`, if any.
    static func ticket(in offered: [Substring]) -> Substring? {
        offered.first { $0.hasPrefix(LiveChannelLimits.ticketSubprotocolPrefix) }?
            .dropFirst(LiveChannelLimits.ticketSubprotocolPrefix.count)
    }
}
