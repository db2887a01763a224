import Foundation
import VouchProtocol
import VouchStore
import VouchTokens

/// Admin actions shared by the admin API and the dashboard, so both hold keys and bindings to
/// the same rules and refuse with the same messages.
struct AdminOperations: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    /// Binds or unbinds (both idempotent); 404 when the provider or the app does not exist.
    func setBinding(provider providerID: UUID, app appID: UUID, bound: Bool) async throws {
        AuditNote.app(appID)
        do {
            if bound {
                try await store.bindProvider(providerID, toApp: appID)
            } else {
                try await store.unbindProvider(providerID, fromApp: appID)
            }
        } catch StoreError.notFound {
            throw APIError.notFound("Provider or app")
        }
    }

    /// An uploaded public key, checked (size, one PEM block, RSA 2048…8192, e = 65537).
    static func publicKey(fromPEM pem: String) throws -> PublicKeyInfo {
        guard pem.utf8.count <= 16 * 1024 else { throw APIError.invalidProperty("public_key", "The public key is too large.") }
        do {
            return try PublicKeyInfo(pem: pem)
        } catch {
            throw APIError.invalidProperty("public_key", error.message)
        }
    }

    /// Adds an active key to the provider; 409 when the provider has (or had) this key.
    func addKey(_ publicKey: PublicKeyInfo, to providerID: UUID) async throws -> KeyRecord {
        let key = KeyRecord(
            id: UUID(), providerID: providerID, status: .active, publicKeyPEM: publicKey.pem,
            fingerprint: publicKey.fingerprint, createdAt: clock())
        do {
            try await store.createKey(key)
            AuditNote.object("key", key.id.lowercased)
        } catch StoreError.alreadyExists {
            throw APIError(
                .conflict,
                "The provider already has this key (\(publicKey.fingerprint)); "
                    + "a key is uploaded once, and a deleted key cannot be uploaded again.",
                data: ["fingerprint": .string(publicKey.fingerprint)])
        }
        return key
    }
}
