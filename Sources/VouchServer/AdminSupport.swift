import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// Path parameters of the admin API: bare UUIDs (any case) and percent-encoded user ids.
enum PathID {
    static func uuid(_ context: VouchRequestContext, _ name: String, what: String) throws -> UUID {
        guard let text = context.parameters.get(name), let id = LayerID.parseUUID(text) else {
            throw APIError.notFound(what)
        }
        return id
    }

    static func userID(_ context: VouchRequestContext) throws -> String {
        guard let raw = context.parameters.get("user"), let userID = raw.removingPercentEncoding,
              (1...255).contains(userID.utf8.count) else {
            throw APIError.notFound("User")
        }
        return userID
    }
}

/// Checks on admin input, with the 422 that names the property.
enum AdminValidation {
    /// A human-readable name: 1…128 bytes of text that shows as what it says. C0 and C1 control
    /// characters and the bidirectional controls (overrides, embeddings, isolates, marks) are
    /// refused: U+202E in an app name would reverse the text around it wherever it is shown.
    static func name(_ name: String, property: String = "name") throws -> String {
        guard (1...RequestLimits.maximumNameBytes).contains(name.utf8.count) else {
            throw APIError.invalidProperty(property, "`\(property)` must be 1…128 bytes.")
        }
        if let scalar = name.unicodeScalars.first(where: isForbiddenInText) {
            let codePoint = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw APIError.invalidProperty(
                property, "`\(property)` contains \(codePoint), a control or bidirectional formatting character; remove it.")
        }
        return name
    }

    static func isForbiddenInText(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.properties.isBidiControl
    }

    static func ttl(_ ttl: Int64) throws -> Int64 {
        guard AdminRoutes.sessionTTLRange.contains(ttl) else {
            throw APIError.invalidProperty("session_ttl_seconds", "`session_ttl_seconds` must be between 30 and 31536000.")
        }
        return ttl
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Comparison whose time does not depend on where two byte strings first differ.
enum ConstantTime {
    static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}

extension AppRecord {
    var response: AppResponse {
        AppResponse(id: LayerID.app(id), name: name, sessionTTLSeconds: sessionTTLSeconds, createdAt: Timestamp.rfc3339(createdAt))
    }
}

extension ProviderRecord {
    var response: ProviderResponse {
        ProviderResponse(id: LayerID.provider(id), name: name, appIDs: appIDs.map(LayerID.app))
    }
}

extension RegistrationSecretRecord {
    func summary(at now: Int64) -> RegistrationSecretSummary {
        let status: RegistrationSecretSummary.Status = revokedAt == nil ? .active : isValid(at: now) ? .retiring : .revoked
        return RegistrationSecretSummary(
            applicationKey: applicationKey.lowercased, appID: LayerID.app(appID), status: status,
            createdAt: Timestamp.rfc3339(createdAt), revokedAt: revokedAt.map(Timestamp.rfc3339))
    }
}

extension KeyRecord {
    var response: KeyResponse {
        KeyResponse(id: LayerID.key(id), providerID: LayerID.provider(providerID), status: status,
                    fingerprint: fingerprint, publicKey: publicKeyPEM, lastVerifiedAt: lastVerifiedAt.map(Timestamp.rfc3339))
    }
}
