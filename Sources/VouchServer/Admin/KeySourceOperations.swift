import Foundation
import VouchProtocol
import VouchStore
import VouchTokens

/// Providers' key sources (PROTOCOL §8.18) as the admin API and the dashboard set and show them:
/// every URL held to the outbound policy now (and again at each fetch), the issuer unique, and a
/// federated provider complete.
extension AdminOperations {
    /// The most bytes of a client id: OpenID providers' are far shorter.
    static let maximumClientIDBytes = 255

    /// A new provider, with its key source when `request` names one; 409 when the issuer is
    /// another provider's.
    func createProvider(_ request: CreateProviderRequest, policy: OutboundPolicy) async throws -> ProviderRecord {
        guard let name = request.name else { throw APIError.missingProperty("name") }
        let draft = KeySourceDraft(
            jwksURI: request.jwksURI, issuer: request.issuer, clientID: request.clientID, federated: request.federated ?? false,
            algorithm: request.algorithm ?? SourceKeyAlgorithm.rs256.rawValue)
        let provider = ProviderRecord(
            id: UUID(), name: try AdminValidation.name(name), appIDs: [], createdAt: clock(),
            keySource: try await Self.keySource(draft, policy: policy))
        try await issuerUnique { try await store.createProvider(provider) }
        AuditNote.object("provider", provider.id.lowercased)
        return provider
    }

    /// The provider with `request` applied: a key source's members left out stay as they are.
    func updateProvider(id: UUID, _ request: UpdateProviderRequest, policy: OutboundPolicy) async throws -> ProviderRecord {
        AuditNote.object("provider", id.lowercased)
        guard let current = try await store.provider(id: id) else { throw APIError.notFound("Provider") }
        var change = ProviderChange(name: try request.name.map { try AdminValidation.name($0) })
        let touchesSource =
            request.jwksURI != .unchanged || request.issuer != .unchanged || request.clientID != .unchanged
            || request.federated != nil || request.algorithm != nil
        if touchesSource {
            let old = current.keySource
            let draft = KeySourceDraft(
                jwksURI: request.jwksURI.applied(to: old?.jwksURI), issuer: request.issuer.applied(to: old?.issuer),
                clientID: request.clientID.applied(to: old?.clientID), federated: request.federated ?? old?.federated ?? false,
                algorithm: request.algorithm ?? old?.algorithm.rawValue ?? SourceKeyAlgorithm.rs256.rawValue)
            change.keySource = .some(try await Self.keySource(draft, policy: policy))
        }
        do {
            return try await issuerUnique { try await store.updateProvider(id: id, change: change) }
        } catch StoreError.notFound {
            throw APIError.notFound("Provider")
        }
    }

    /// 409 for an issuer another provider has: a token's `iss` must choose one provider.
    private func issuerUnique<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch StoreError.alreadyExists {
            throw APIError(.conflict, "Another provider has this issuer: a token's `iss` must name exactly one provider.")
        }
    }

    /// A key source's members as asked for, before they are checked.
    struct KeySourceDraft {
        var jwksURI: String?
        var issuer: String?
        var clientID: String?
        var federated: Bool
        var algorithm: String
    }

    /// The key source `draft` describes, checked; `nil` when it names neither a JWKS URL nor an
    /// issuer (and asks for nothing that needs one).
    static func keySource(_ draft: KeySourceDraft, policy: OutboundPolicy) async throws -> ProviderKeySource? {
        guard let algorithm = SourceKeyAlgorithm(rawValue: draft.algorithm) else {
            throw APIError.invalidProperty("algorithm", "`algorithm` must be RS256 or ES256.")
        }
        guard draft.jwksURI != nil || draft.issuer != nil else {
            if draft.federated || draft.clientID != nil || algorithm != .rs256 {
                throw APIError.invalidProperty("jwks_uri", "A key source needs `jwks_uri` or `issuer`.")
            }
            return nil
        }
        if let jwksURI = draft.jwksURI { try await checkedURL(jwksURI, property: "jwks_uri", policy: policy) }
        if let issuer = draft.issuer {
            try checkedText(issuer, property: "issuer", maximumBytes: OutboundPolicy.maximumURLLength)
            guard !issuer.hasPrefix("layer:///") else {
                throw APIError.invalidProperty("issuer", "`issuer` is the provider's own issuer, not a `layer:///` id.")
            }
            // Without a JWKS URL the issuer is where discovery goes: it must be reachable.
            if draft.jwksURI == nil {
                let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
                try await checkedURL(trimmed + "/.well-known/openid-configuration", property: "issuer", policy: policy)
            }
        }
        if let clientID = draft.clientID { try checkedText(clientID, property: "client_id", maximumBytes: maximumClientIDBytes) }
        if draft.federated {
            guard draft.issuer != nil else {
                throw APIError.invalidProperty("issuer", "A federated provider needs `issuer`: its ID tokens' `iss` is matched to it.")
            }
            guard draft.clientID != nil else {
                throw APIError.invalidProperty("client_id", "A federated provider needs `client_id`: its ID tokens' `aud` must name it.")
            }
        }
        return ProviderKeySource(
            jwksURI: draft.jwksURI, issuer: draft.issuer, clientID: draft.clientID, federated: draft.federated, algorithm: algorithm)
    }

    private static func checkedURL(_ url: String, property: String, policy: OutboundPolicy) async throws {
        do {
            _ = try await policy.destination(url)
        } catch {
            throw APIError.invalidProperty(property, "`\(property)`: \(error.explanation)")
        }
    }

    private static func checkedText(_ text: String, property: String, maximumBytes: Int) throws {
        guard (1...maximumBytes).contains(text.utf8.count), !text.unicodeScalars.contains(where: AdminValidation.isForbiddenInText)
        else {
            throw APIError.invalidProperty(property, "`\(property)` must be 1…\(maximumBytes) bytes without control characters.")
        }
    }

    /// The key source's state as the operator sees it; 404 for an unknown provider or one
    /// without a key source.
    func keySourceStatus(providerID: UUID, graceSeconds: Int64) async throws -> KeySourceStatusResponse {
        guard let provider = try await store.provider(id: providerID) else { throw APIError.notFound("Provider") }
        guard let source = provider.keySource else { throw APIError.notFound("Key source") }
        let now = clock()
        var state = try await store.keySetState(providerID: providerID, usesSince: now - 86_400 + 1)
        if state?.source != source.identity { state = nil }
        let trustedUntil = state?.fetchedAt.map { max(Saturating.add($0, graceSeconds), state?.freshUntil ?? $0) }
        let status: KeySourceStatusResponse.Status =
            switch (state?.fetchedAt, state?.failingSince) {
            case (nil, _): .pending
            case (_, nil): .ok
            case (_, .some): (trustedUntil ?? 0) > now ? .failing : .expired
            }
        return KeySourceStatusResponse(
            providerID: LayerID.provider(providerID), keySource: source.response, status: status, jwksURL: state?.jwksURL,
            fetchedAt: state?.fetchedAt.map(Timestamp.rfc3339), freshUntil: state?.freshUntil.map(Timestamp.rfc3339),
            attemptedAt: state.map { Timestamp.rfc3339($0.attemptedAt) }, failingSince: state?.failingSince.map(Timestamp.rfc3339),
            lastError: state?.lastError, trustedUntil: trustedUntil.map(Timestamp.rfc3339),
            keys: (state?.keys ?? []).map {
                KeySourceStatusResponse.Key(
                    kid: $0.keyID, keyType: $0.keyType, fingerprint: $0.fingerprint, firstSeenAt: Timestamp.rfc3339($0.firstSeenAt),
                    lastSeenAt: Timestamp.rfc3339($0.lastSeenAt), present: $0.present, tokensVerified24h: $0.tokensVerified)
            })
    }
}
