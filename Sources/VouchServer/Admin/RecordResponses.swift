import Foundation
import VouchProtocol
import VouchStore

/// The admin API's JSON shapes of the stored records (PROTOCOL §4).
extension AppRecord {
    var response: AppResponse {
        AppResponse(
            id: LayerID.app(id), name: name, sessionTTLSeconds: sessionTTLSeconds, createdAt: Timestamp.rfc3339(createdAt),
            challengeMarginSeconds: challengeMarginSeconds, accessTokenTTLSeconds: accessTokenTTLSeconds,
            audiences: audiences)
    }
}

extension ServiceCredentialRecord {
    /// As listed; `credential` only in the answer to its creation.
    func response(credential: String? = nil) -> ServiceCredentialResponse {
        ServiceCredentialResponse(
            id: id.lowercased, name: name, createdAt: Timestamp.rfc3339(createdAt), revokedAt: revokedAt.map(Timestamp.rfc3339),
            credential: credential)
    }
}

extension WebhookEndpointRecord {
    /// As listed; `secret` only in the answer to its creation.
    func response(secret: String? = nil) -> WebhookEndpointResponse {
        WebhookEndpointResponse(
            id: id.lowercased, url: url, events: events, createdAt: Timestamp.rfc3339(createdAt),
            updatedAt: Timestamp.rfc3339(updatedAt), paused: isPaused, pausedAt: pausedAt.map(Timestamp.rfc3339),
            pauseReason: pauseReason, secret: secret)
    }
}

extension WebhookDelivery {
    var response: WebhookDeliveryResponse {
        // Delivery times are kept in milliseconds; the wire's times are whole seconds.
        let time = { (milliseconds: Int64) in Timestamp.rfc3339(milliseconds / 1_000) }
        return WebhookDeliveryResponse(
            eventID: event.id.lowercased, eventType: event.kind.rawValue, userID: event.userID, sequence: event.userSequence,
            eventTime: Timestamp.rfc3339(event.at), state: state.rawValue, attempts: attempts,
            nextAttemptAt: state == .pending ? time(nextAttemptAt) : nil, lastAttemptAt: lastAttemptAt.map(time),
            lastOutcome: lastOutcome, deliveredAt: deliveredAt.map(time))
    }
}

extension ProviderRecord {
    var response: ProviderResponse {
        ProviderResponse(id: LayerID.provider(id), name: name, appIDs: appIDs.map(LayerID.app), keySource: keySource?.response)
    }
}

extension ProviderKeySource {
    var response: KeySourceResponse {
        KeySourceResponse(jwksURI: jwksURI, issuer: issuer, clientID: clientID, federated: federated, algorithm: algorithm.rawValue)
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
        KeyResponse(
            id: LayerID.key(id), providerID: LayerID.provider(providerID), status: status,
            fingerprint: fingerprint, publicKey: publicKeyPEM, lastVerifiedAt: lastVerifiedAt.map(Timestamp.rfc3339))
    }
}
