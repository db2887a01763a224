import Foundation

/// The signature algorithms a key fetched from a provider's key source may be used with: the one a
/// provider is pinned to is the only one its fetched keys verify (PROTOCOL §8.18).
public enum SourceKeyAlgorithm: String, Sendable, CaseIterable, Codable {
    /// RSA keys of 2048–8192 bits with exponent 65537.
    case rs256 = "RS256"
    /// EC keys on P-256 (federated ID tokens only: the Layer profile is RS256).
    case es256 = "ES256"
}

/// How a token names the provider whose fetched keys verify it: never by a URL it carries.
public enum ProviderSelector: Sendable, Equatable, Hashable {
    /// `iss` = `layer:///providers/<id>`.
    case id(UUID)
    /// `iss` equal, byte for byte, to a provider's issuer.
    case issuer(String)
}
