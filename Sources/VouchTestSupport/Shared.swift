import Synchronization

/// A value that a test's tasks and closures share, behind a `Mutex`: a port learnt once the server
/// listens, headers a handler recorded, an offset a fake clock adds.
public final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public var value: Value { mutex.withLock { $0 } }
    public func set(_ value: Value) { mutex.withLock { $0 = value } }
    public func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}
