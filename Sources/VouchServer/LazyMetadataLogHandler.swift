import Logging

/// `StreamLogHandler`'s lines, with the handler's metadata formatted only when a line is written.
///
/// Hummingbird gives every request a logger with its own `hb.request.id`, and setting metadata on
/// a `StreamLogHandler` formats all of it again at once (sorted, joined), whether or not anything
/// is ever logged at the level the server runs at: a microsecond of every request for lines that
/// are never written. This handler keeps the metadata as it is and hands it to an inner
/// `StreamLogHandler` with each line, so the output is the same, character for character.
package struct LazyMetadataLogHandler: LogHandler {
    private var inner: StreamLogHandler
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?

    package var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    /// - Parameter inner: where lines go; its own metadata and provider are not used.
    package init(_ inner: StreamLogHandler) {
        var inner = inner
        metadataProvider = inner.metadataProvider
        inner.metadataProvider = nil
        inner.metadata = [:]
        self.inner = inner
    }

    package static func standardError(label: String) -> LazyMetadataLogHandler {
        LazyMetadataLogHandler(StreamLogHandler.standardError(label: label))
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The handler's metadata, then the provider's, then the line's own: the precedence
    /// `StreamLogHandler` gives them.
    package func log(event: LogEvent) {
        var event = event
        let provided = metadataProvider?.get() ?? [:]
        if !metadata.isEmpty || !provided.isEmpty {
            var merged = metadata
            if !provided.isEmpty { merged.merge(provided) { _, provided in provided } }
            if let explicit = event.metadata, !explicit.isEmpty { merged.merge(explicit) { _, explicit in explicit } }
            event.metadata = merged
        }
        inner.log(event: event)
    }
}
