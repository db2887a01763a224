import Logging
import Synchronization
import Testing
import VouchServer

/// Lines written into memory, for comparing two handlers' output.
private final class Capture: TextOutputStream, @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    func write(_ string: String) { lines.withLock { $0.append(string) } }
    /// Without the leading timestamp, which two handlers may write a second apart.
    var written: [String] { lines.withLock { $0.map { String($0.drop { $0 != " " }) } } }
}

@Suite("LazyMetadataLogHandler")
struct LazyMetadataLogHandlerTests {
    /// The same statements through both handlers.
    private static func run(
        _ statements: (inout Logger) -> Void,
        provider: Logger.MetadataProvider? = nil
    ) -> (stream: [String], lazy: [String]) {
        let streamCapture = Capture(), lazyCapture = Capture()
        var stream = Logger(label: "vouch.test") { StreamLogHandler(label: $0, stream: streamCapture, metadataProvider: provider) }
        var lazy = Logger(label: "vouch.test") {
            LazyMetadataLogHandler(StreamLogHandler(label: $0, stream: lazyCapture, metadataProvider: provider))
        }
        stream.logLevel = .debug
        lazy.logLevel = .debug
        statements(&stream)
        statements(&lazy)
        return (streamCapture.written, lazyCapture.written)
    }

    @Test("the same lines as StreamLogHandler: no metadata, the handler's, the line's, both with one key in common")
    func sameLines() {
        let (stream, lazy) = Self.run { logger in
            logger.info("plain")
            logger[metadataKey: "hb.request.id"] = "42"
            logger[metadataKey: "b"] = "1"
            logger.info("handler metadata")
            logger.warning("line metadata", metadata: ["a": "x", "b": "overridden"])
            logger[metadataKey: "b"] = nil
            logger.debug("after removal", metadata: ["z": .array(["1", "2"])])
            logger.trace("below the level")
        }
        #expect(stream.count == 4)
        #expect(lazy == stream)
        #expect(lazy.contains { $0.contains("a=x b=overridden hb.request.id=42") })
    }

    @Test("with a metadata provider, whose keys rank between the handler's and the line's")
    func provider() {
        let provider = Logger.MetadataProvider { ["p": "provided", "b": "from provider"] }
        let (stream, lazy) = Self.run(
            { logger in
                logger[metadataKey: "b"] = "handler"
                logger[metadataKey: "c"] = "handler"
                logger.info("one")
                logger.info("two", metadata: ["c": "line"])
            }, provider: provider)
        #expect(stream.count == 2)
        #expect(lazy == stream)
    }

    @Test("the level is the inner handler's")
    func level() {
        var handler = LazyMetadataLogHandler.standardError(label: "x")
        handler.logLevel = .critical
        #expect(handler.logLevel == .critical)
    }
}
