import ArgumentParser
import Foundation

/// A failure the user can fix: printed to stderr as one line, exit code 1 (64 for usage mistakes,
/// which ArgumentParser reports itself).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension CLIError {
    /// Reads a file the user named, with an error that names it.
    static func readFile(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CLIError("cannot read \(path): \((error as NSError).localizedDescription)")
        }
    }
}
