extension Duration {
    /// The duration in seconds, as the wire's `within_seconds` and the frame budget count it.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
