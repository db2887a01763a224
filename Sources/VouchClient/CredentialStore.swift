import Foundation
import Synchronization

/// Where the client keeps the session between launches.
///
/// `load` distinguishes three outcomes on purpose (Firebase #8695 signed users out when a
/// locked keychain looked like an empty one): `nil` means there is no session, a thrown
/// `CredentialStoreError.unavailable` means the store could not be read *now*, and the client then
/// keeps the user signed in rather than forgetting them.
public protocol CredentialStore: Sendable {
    /// The stored bytes, or `nil` when nothing is stored.
    func load() throws(CredentialStoreError) -> Data?
    func save(_ data: Data) throws(CredentialStoreError)
    /// Removes the stored bytes; removing nothing is not an error.
    func remove() throws(CredentialStoreError)
    /// Replaces the stored bytes with `new` (nil removes them) only if they are `expected` now,
    /// as one step: two clients over one store cannot both win.
    ///
    /// - Returns: whether the bytes were replaced.
    func replace(_ expected: Data?, with new: Data?) throws(CredentialStoreError) -> Bool
}

extension CredentialStore {
    /// Load, compare and write under one lock of this process: atomic between the clients of
    /// one app process. A store that other processes write too overrides it (as
    /// `FileCredentialStore` does with a file lock).
    public func replace(_ expected: Data?, with new: Data?) throws(CredentialStoreError) -> Bool {
        try credentialStoreReplacement.withLock { _ throws(CredentialStoreError) -> Bool in
            guard try load() == expected else { return false }
            if let new { try save(new) } else { try remove() }
            return true
        }
    }
}

/// Serialises `replace` of the stores that rely on the default implementation.
private let credentialStoreReplacement = Mutex(())

/// Why a credential store could not be used now. A struct, so that a case added later breaks no
/// custom store: compare `kind` with the static members.
public struct CredentialStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate let name: String
        public var description: String { name }
        /// The store exists but cannot be read or written now (locked, permissions, foreign owner).
        public static let unavailable = Kind(name: "unavailable")
    }

    public let kind: Kind
    /// What a developer should know, in words.
    public let message: String

    public static func unavailable(_ message: String) -> Self { Self(kind: .unavailable, message: message) }

    /// Lets `catch CredentialStoreError.x` and `case CredentialStoreError.x:` match any error equal to `x`.
    public static func ~= (pattern: Self, error: any Error) -> Bool { (error as? Self) == pattern }

    public var description: String { message }
}
