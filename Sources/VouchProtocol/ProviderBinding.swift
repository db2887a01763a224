/// How the provider a Layer token's `iss` names stands towards the app of a sign-in (PROTOCOL §5.4
/// #16, #17): the store answers it and the verifier judges it, so both modules share this one type.
public enum ProviderBinding: Sendable, Equatable {
    /// No such provider: #16.
    case unknownProvider
    /// The provider exists but may not vouch for this app: #17.
    case notBound
    case bound
}
