import Foundation
import Synchronization

/// A clock the tests move by hand, so that expiry is tested without sleeping.
public final class ManualClock: Sendable {
    private let current: Mutex<Int64>

    public init(_ start: Int64 = Int64(Date().timeIntervalSince1970)) { current = Mutex(start) }

    public var now: Int64 { current.withLock { $0 } }
    public func advance(by seconds: Int64) { current.withLock { $0 += seconds } }
    public var closure: @Sendable () -> Int64 { { [self] in now } }
}
