import Foundation
import Synchronization
import VouchTokens

/// The development identity provider's own signing keys, published on its JWKS URL (PROTOCOL §6)
/// the way a real backend rotates them: the next key is published first, beside the one that
/// signs, and is used only once Vouch had the chance to fetch it; the old one is withdrawn when
/// the new one starts signing. Signing with a key nobody has fetched yet is what fails sign-ins
/// during a rotation, so the two steps are apart and in that order.
public final class PublishedSigningKeys: Sendable {
    /// One key: its private half and its `kid`.
    struct Key: Sendable {
        let kid: String
        let pair: RSAKeyPair
    }

    private struct State: Sendable {
        var signing: Key
        var next: Key?
    }

    /// What the keys are now, as `GET /keys` answers it.
    public struct Status: Sendable, Equatable, Encodable {
        /// The `kid` tokens are signed with.
        public let signing: String
        /// Every `kid` on the JWKS, the signing one first.
        public let published: [String]

        enum CodingKeys: String, CodingKey { case signing, published }
    }

    /// Why a step of the rotation was refused: the keys are left as they were.
    public enum RotationError: Error, Equatable, CustomStringConvertible {
        /// `publishNext` when a next key is already published.
        case nextAlreadyPublished(kid: String)
        /// `rotate` with no next key published.
        case noNextKey

        public var description: String {
            switch self {
            case .nextAlreadyPublished(let kid): "the next key (\(kid)) is already published; rotate to it first"
            case .noNextKey: "no next key is published: publish one (POST /keys/next) and let Vouch fetch it before rotating"
            }
        }
    }

    /// The provider the tokens' `iss` names.
    public let providerID: UUID
    private let state: Mutex<State>

    /// Starts with one freshly generated key (RSA 2048).
    public init(providerID: UUID) async throws {
        self.providerID = providerID
        self.state = Mutex(State(signing: try await Self.generate()))
    }

    /// Which key signs, and which are published.
    public var status: Status {
        state.withLock { state in
            Status(signing: state.signing.kid, published: [state.signing.kid] + (state.next.map { [$0.kid] } ?? []))
        }
    }

    /// The JWKS document's keys, the signing one first.
    public func jwks() throws -> [[String: String]] {
        let keys = state.withLock { [$0.signing] + ($0.next.map { [$0] } ?? []) }
        return try keys.map { try $0.pair.publicJWK(kid: $0.kid) }
    }

    /// A minter for the key that signs now.
    public func minter() throws(MintingError) -> LayerTokenMinter {
        let signing = state.withLock { $0.signing }
        return try LayerTokenMinter(privateKey: signing.pair.privateKey, providerID: providerID, publishedKeyID: signing.kid)
    }

    /// Generates the next key and publishes it beside the signing one, which keeps signing.
    @discardableResult
    public func publishNext() async throws -> Status {
        if let next = state.withLock({ $0.next }) { throw RotationError.nextAlreadyPublished(kid: next.kid) }
        let key = try await Self.generate()
        return try state.withLock { state in
            if let next = state.next { throw RotationError.nextAlreadyPublished(kid: next.kid) }
            state.next = key
            return Status(signing: state.signing.kid, published: [state.signing.kid, key.kid])
        }
    }

    /// Signs with the next key from now on and withdraws the old one from the JWKS.
    ///
    /// - Returns: the new status and the `kid` withdrawn.
    public func rotate() throws(RotationError) -> (status: Status, withdrawn: String) {
        try state.withLock { (state: inout State) throws(RotationError) -> (Status, String) in
            guard let next = state.next else { throw .noNextKey }
            let withdrawn = state.signing.kid
            state.signing = next
            state.next = nil
            return (Status(signing: next.kid, published: [next.kid]), withdrawn)
        }
    }

    /// A new key pair under a random `kid`.
    private static func generate() async throws -> Key {
        Key(kid: "dev-" + UUID().uuidString.prefix(8).lowercased(), pair: try await RSAKeyPair.generateOffTheConcurrencyPool())
    }
}
