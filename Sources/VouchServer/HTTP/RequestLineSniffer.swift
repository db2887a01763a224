import NIOCore

/// Watches the raw bytes ahead of the HTTP decoder, to tell an over-long request line (414) from
/// over-long header lines (431).
///
/// NIO's decoder reports both as one `headerOverflow` error, because the target counts towards the
/// same per-field limit as a header. The line that overflowed is the long one: a request line
/// starts with a method token followed by a space, a header line with a name followed by a colon.
/// This handler only looks at bytes; it never changes or holds them.
final class RequestLineSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Lines longer than this are remembered as "long".
    private let longLine: Int
    private var currentLineLength = 0
    /// Whether the current line looked like a request line, decided at its first space or colon.
    private var currentLineIsRequestLine: Bool?
    /// What the most recent long line looked like.
    private(set) var lastLongLineWasRequestLine = false

    init(longLine: Int) { self.longLine = longLine }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { bytes in
            for byte in bytes { observe(byte) }
        }
        context.fireChannelRead(data)
    }

    private func observe(_ byte: UInt8) {
        if byte == UInt8(ascii: "\n") {
            currentLineLength = 0
            currentLineIsRequestLine = nil
            return
        }
        currentLineLength += 1
        if currentLineIsRequestLine == nil {
            if byte == UInt8(ascii: " ") {
                currentLineIsRequestLine = true
            } else if byte == UInt8(ascii: ":") {
                currentLineIsRequestLine = false
            }
        }
        if currentLineLength == longLine + 1 {
            lastLongLineWasRequestLine = currentLineIsRequestLine ?? false
        }
    }
}
