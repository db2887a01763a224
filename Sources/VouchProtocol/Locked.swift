#if canImport(os)
import os
#else
import Synchronization
#endif

/// A value behind a lock, shareable between tasks.
///
/// `Mutex` (Synchronization) where the package's deployment targets allow it; on Apple platforms
/// it needs macOS 15 / iOS 18, above the package's minimum, so there `OSAllocatedUnfairLock`
/// (macOS 13 / iOS 16) does the same job. Shared by the package's modules (the SDK, the
/// verifier's caches), not part of any product's API.
package final class Locked<Value: Sendable>: Sendable {
    #if canImport(os)
    private let lock: OSAllocatedUnfairLock<Value>
    package init(_ value: Value) { lock = OSAllocatedUnfairLock(initialState: value) }
    package func withLock<Result: Sendable>(_ body: @Sendable (inout Value) -> Result) -> Result { lock.withLock(body) }
    #else
    private let mutex: Mutex<Value>
    package init(_ value: Value) { mutex = Mutex(value) }
    package func withLock<Result: Sendable>(_ body: @Sendable (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
    #endif
}
