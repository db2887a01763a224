import Testing

@testable import VouchResourceServer

@Suite("Reading text/event-stream by the WHATWG rules")
struct ServerSentEventParserTests {
    /// Every event of `text`, fed in chunks of `chunk` bytes.
    func events(_ text: String, chunk: Int = .max, parser: inout ServerSentEventParser) throws -> [ServerSentEvent] {
        let bytes = Array(text.utf8)
        var events: [ServerSentEvent] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + min(chunk, bytes.count))
            events += try parser.consume(bytes[start..<end])
            start = end
        }
        return events
    }

    func events(_ text: String, chunk: Int = .max) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        return try events(text, chunk: chunk, parser: &parser)
    }

    @Test("LF, CRLF and CR all end lines, whatever the chunks", arguments: [1, 2, 3, 7, Int.max])
    func lineEnds(chunk: Int) throws {
        let text = "id: 1\nevent: a\ndata: x\n\nid: 2\r\nevent: b\r\ndata: y\r\n\r\nid: 3\revent: c\rdata: z\r\r"
        #expect(
            try events(text, chunk: chunk) == [
                ServerSentEvent(type: "a", data: "x", lastEventID: "1"), ServerSentEvent(type: "b", data: "y", lastEventID: "2"),
                ServerSentEvent(type: "c", data: "z", lastEventID: "3"),
            ])
    }

    @Test("data lines are joined with line feeds; one space after the colon is dropped, no more")
    func dataLines() throws {
        #expect(try events("data: one\ndata:two\ndata:  three\ndata\n\n") == [ServerSentEvent(type: "message", data: "one\ntwo\n three\n", lastEventID: "")])
        #expect(try events("data:\n\n") == [ServerSentEvent(type: "message", data: "", lastEventID: "")])
    }

    @Test("comments, unknown fields and events without data dispatch nothing; an id still counts")
    func nothingToDispatch() throws {
        var parser = ServerSentEventParser()
        #expect(try events(": keep-alive\n\nfoo: bar\n\nid: 5\nevent: x\n\n", parser: &parser) == [])
        #expect(parser.lastEventID == "5")
        // The event type does not carry over to the next event; the id does.
        #expect(try events("data: d\n\n", parser: &parser) == [ServerSentEvent(type: "message", data: "d", lastEventID: "5")])
    }

    @Test("an id holding U+0000 is ignored; an empty id resets")
    func ids() throws {
        var parser = ServerSentEventParser(lastEventID: "3")
        _ = try events("id: 4\u{0}\ndata: d\n\n", parser: &parser)
        #expect(parser.lastEventID == "3")
        _ = try events("id\ndata: d\n\n", parser: &parser)
        #expect(parser.lastEventID == "")
    }

    @Test("retry takes digits only")
    func retry() throws {
        var parser = ServerSentEventParser()
        _ = try events("retry: 1000\n\n", parser: &parser)
        #expect(parser.reconnectionTime == 1000)
        _ = try events("retry: 1e3\nretry: -5\nretry:\n\n", parser: &parser)
        #expect(parser.reconnectionTime == 1000)
        _ = try events("retry:250\n\n", parser: &parser)
        #expect(parser.reconnectionTime == 250)
    }

    @Test("a byte order mark opening the stream is dropped, only there", arguments: [1, Int.max])
    func byteOrderMark(chunk: Int) throws {
        #expect(try events("\u{FEFF}data: a\n\n", chunk: chunk) == [ServerSentEvent(type: "message", data: "a", lastEventID: "")])
        #expect(try events("data: \u{FEFF}a\n\n", chunk: chunk) == [ServerSentEvent(type: "message", data: "\u{FEFF}a", lastEventID: "")])
        #expect(try events("\u{FEFF}\u{FEFF}data: a\n\n", chunk: chunk).isEmpty)
        #expect(try events("\u{FE00}data: a\n\n", chunk: chunk).isEmpty)
    }

    @Test("an event cut by the end of the stream is not dispatched")
    func unfinished() throws {
        #expect(try events("data: a\n\ndata: b\n").count == 1)
    }

    @Test("a line or an event longer than the bound is an error")
    func bounded() throws {
        var parser = ServerSentEventParser(maximumLineBytes: 16)
        #expect(throws: ServerSentEventParser.LineTooLong.self) { try events("data: 0123456789abcdef\n\n", parser: &parser) }
        parser = ServerSentEventParser(maximumLineBytes: 16)
        #expect(throws: ServerSentEventParser.LineTooLong.self) { try events("data: 0123456\ndata: 0123456\ndata: 0123456\n\n", parser: &parser) }
        parser = ServerSentEventParser(maximumLineBytes: 16)
        #expect(try events("data: 0123456789\n\n", parser: &parser).count == 1)
    }

    @Test("the reconnection backoff stays between half the delay and the ceiling")
    func backoff() {
        for failures in 0..<20 {
            let delay = SessionEndingsFollower.backoff(base: .milliseconds(1000), failuresInARow: failures, ceiling: .seconds(5))
            let full = min(Duration.milliseconds(1000) * (1 << min(failures, 3)), .seconds(5))
            #expect(delay >= full / 2 && delay <= full)
        }
    }
}
