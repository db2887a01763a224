import Foundation

enum Console {
    /// Writes a line to stdout at once (unbuffered), so that a script or test waiting for
    /// "listening on" sees it even while the process keeps running.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
