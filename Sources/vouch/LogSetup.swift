import Logging
import VouchServer

enum LogSetup {
    /// Logs go to stderr so that stdout stays for what a command prints as its result.
    static func logger(label: String, level: String) -> Logger {
        var logger = Logger(label: label) { LazyMetadataLogHandler.standardError(label: $0) }
        logger.logLevel = Logger.Level(rawValue: level) ?? .info
        return logger
    }
}
