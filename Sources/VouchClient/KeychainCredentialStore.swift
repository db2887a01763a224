#if canImport(Security)
    import Foundation
    import Security

    /// The session in the Keychain (generic password item, this device only, readable after the
    /// first unlock so that background refreshes work).
    ///
    /// `errSecInteractionNotAllowed` (the device is locked) is reported as unavailable, not as
    /// "no session": that is the difference between a transient failure and a sign-out.
    public struct KeychainCredentialStore: CredentialStore {
        public let service: String
        public let account: String

        public init(service: String = "dev.vouch.client", account: String) {
            self.service = service
            self.account = account
        }

        private var query: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
        }

        public func load() throws(CredentialStoreError) -> Data? {
            var lookup = query
            lookup[kSecReturnData as String] = true
            lookup[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(lookup as CFDictionary, &item)
            switch status {
            case errSecSuccess: return item as? Data
            case errSecItemNotFound: return nil
            default: throw .unavailable("Keychain read failed (OSStatus \(status))")
            }
        }

        public func save(_ data: Data) throws(CredentialStoreError) {
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                status = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw .unavailable("Keychain write failed (OSStatus \(status))") }
        }

        public func remove() throws(CredentialStoreError) {
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw .unavailable("Keychain delete failed (OSStatus \(status))")
            }
        }
    }
#endif
