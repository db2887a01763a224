import Foundation

/// Standard input's lines, read on a thread of their own (reading blocks), ending at end of file.
enum StandardInput {
    static func lines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let thread = Thread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}
