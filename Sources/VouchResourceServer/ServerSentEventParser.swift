/// One event of a `text/event-stream`, as the WHATWG HTML standard's "event stream
/// interpretation" dispatches it.
struct ServerSentEvent: Sendable, Equatable {
    /// The event type (`event:`), `message` when none was given.
    var type: String
    /// The `data:` lines joined with line feeds.
    var data: String
    /// The last event ID after this event (an `id:` field lasts until the next one).
    var lastEventID: String
}

/// Reads a `text/event-stream` as it arrives, in chunks cut anywhere, by the WHATWG rules: lines
/// end with CRLF, LF or CR; a blank line dispatches; `:` starts a comment; fields `event`, `data`,
/// `id` (ignored when it holds U+0000) and `retry` (digits only); one space after the colon is
/// dropped; an event without data is not dispatched, but its `id` still counts.
///
/// Bounded: a line longer than `maximumLineBytes`, or an event whose data grows past it, is an
/// error, so a misbehaving server cannot make the follower buffer without end.
struct ServerSentEventParser: Sendable {
    struct LineTooLong: Error {}

    let maximumLineBytes: Int
    /// The `retry:` the server asked for, in milliseconds.
    private(set) var reconnectionTime: Int?
    private(set) var lastEventID = ""

    private var line: [UInt8] = []
    private var previousWasCR = false
    /// How many bytes of a byte order mark opened the stream so far; `nil` once past it.
    private var byteOrderMarkSeen: Int? = 0
    private var eventType = ""
    private var data: [UInt8] = []
    private var hasData = false

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    init(maximumLineBytes: Int = 64 * 1024, lastEventID: String = "") {
        self.maximumLineBytes = maximumLineBytes
        self.lastEventID = lastEventID
    }

    /// Consumes a chunk, returning the events it completed (an event cut by the chunk's end
    /// waits for the rest).
    mutating func consume(_ bytes: some Sequence<UInt8>) throws(LineTooLong) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if let seen = byteOrderMarkSeen {
                // A UTF-8 byte order mark opening the stream is dropped; anything else is content.
                if byte == Self.byteOrderMark[seen] {
                    byteOrderMarkSeen = seen + 1 == Self.byteOrderMark.count ? nil : seen + 1
                    continue
                }
                byteOrderMarkSeen = nil
                line.append(contentsOf: Self.byteOrderMark[..<seen])
            }
            switch byte {
            case 0x0A:
                if previousWasCR {
                    previousWasCR = false
                    continue
                }
                if let event = endLine() { events.append(event) }
            case 0x0D:
                previousWasCR = true
                if let event = endLine() { events.append(event) }
            default:
                previousWasCR = false
                line.append(byte)
                guard line.count <= maximumLineBytes else { throw LineTooLong() }
            }
            guard data.count <= maximumLineBytes else { throw LineTooLong() }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line[...]
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event": eventType = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                reconnectionTime = Int(String(decoding: value, as: UTF8.self)) ?? reconnectionTime
            }
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            eventType = ""
            data.removeAll(keepingCapacity: true)
            hasData = false
        }
        guard hasData else { return nil }
        return ServerSentEvent(
            type: eventType.isEmpty ? "message" : eventType, data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID)
    }
}
