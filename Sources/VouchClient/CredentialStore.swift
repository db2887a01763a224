import Foundation

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
}

public enum CredentialStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store exists but cannot be read or written now (locked, permissions, foreign owner).
    case unavailable(String)

    public var description: String {
        switch self {
        case .unavailable(let message): message
        }
    }
}
