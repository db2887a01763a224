#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
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
        buffer.withUnsafeReadableBytes { bytes in observe(bytes) }
        context.fireChannelRead(data)
    }

    /// Line by line rather than byte by byte: the end of a line is found with `memchr` (the C
    /// library's vectorised search; a body is one long line that only needs its length counted),
    /// and within a line only its first space or colon matters.
    func observe(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.endIndex - start)
                .map { $0 - UnsafeMutableRawPointer(mutating: base) }
            let end = newline ?? bytes.endIndex
            observeLinePart(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            guard let newline else { return }
            currentLineLength = 0
            currentLineIsRequestLine = nil
            start = newline + 1
        }
    }

    /// Part of one line (without its newline): the line may have begun in an earlier read.
    private func observeLinePart(_ part: UnsafeRawBufferPointer) {
        if currentLineIsRequestLine == nil {
            // The first space or colon within the first `longLine + 1` bytes decides, as it would
            // byte by byte: later ones cannot change a decision made before the line grew long.
            let lookAt = min(part.count, max(0, longLine + 1 - currentLineLength))
            for byte in part[..<(part.startIndex + lookAt)] {
                if byte == UInt8(ascii: " ") {
                    currentLineIsRequestLine = true
                    break
                }
                if byte == UInt8(ascii: ":") {
                    currentLineIsRequestLine = false
                    break
                }
            }
        }
        let before = currentLineLength
        currentLineLength += part.count
        if before <= longLine, currentLineLength > longLine {
            lastLongLineWasRequestLine = currentLineIsRequestLine ?? false
        }
    }
}
