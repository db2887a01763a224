import AsyncHTTPClient
import Foundation
import NIOHTTP1
import VouchTokens

/// What the race signs in to: two apps, a provider bound to both with two keys, and a second
/// provider bound to the first app with one key, all made through the admin API.
struct RaceCatalogue: Sendable {
    let app: UUID
    let otherApp: UUID
    let key: RaceSigner
    let sameProviderKey: RaceSigner
    let otherProviderKey: RaceSigner

    static func make(_ client: RaceClient) async throws -> RaceCatalogue {
        let app = try uuid(try await client.admin(.POST, "/admin/apps", body: ["name": "Race"])["id"])
        let otherApp = try uuid(try await client.admin(.POST, "/admin/apps", body: ["name": "Race, other"])["id"])
        let provider = try uuid(try await client.admin(.POST, "/admin/providers", body: ["name": "Backend"])["id"])
        let otherProvider = try uuid(try await client.admin(.POST, "/admin/providers", body: ["name": "Second backend"])["id"])
        for (provider, app) in [(provider, app), (provider, otherApp), (otherProvider, app)] {
            _ = try await client.admin(.PUT, "/admin/providers/\(provider.uuidString)/apps/\(app.uuidString)")
        }
        func signer(_ provider: UUID) async throws -> RaceSigner {
            let key = try await client.admin(.POST, "/admin/providers/\(provider.uuidString)/keys", body: ["generate": true])
            guard let pem = key["private_key"] as? String else { throw RaceError("no private key in \(key)") }
            let id = try uuid(key["id"])
            return RaceSigner(keyID: id, providerID: provider, minter: try LayerTokenMinter(privateKeyPEM: pem, providerID: provider, keyID: id))
        }
        return RaceCatalogue(
            app: app, otherApp: otherApp, key: try await signer(provider), sameProviderKey: try await signer(provider),
            otherProviderKey: try await signer(otherProvider))
    }

    /// The UUID at the end of an id the API wrote (`layer:///…/<uuid>` or bare).
    static func uuid(_ value: Any?) throws -> UUID {
        guard let text = value as? String, let id = UUID(uuidString: String(text.split(separator: "/").last ?? "")) else {
            throw RaceError("not an id: \(String(describing: value))")
        }
        return id
    }
}

/// The four scopes a round cuts off, with the sign-ins each reaches and one each leaves alone.
enum RaceScope: CaseIterable, Sendable {
    case key, provider, user, app

    static let racer = "racer"
    static let bystanderUser = "bystander"

    /// Where the round's cutoff goes.
    func path(_ catalogue: RaceCatalogue) -> String {
        switch self {
        case .key: "/admin/keys/\(catalogue.key.keyID.uuidString)/cutoff"
        case .provider: "/admin/providers/\(catalogue.key.providerID.uuidString)/cutoff"
        case .user: "/admin/apps/\(catalogue.app.uuidString)/users/\(Self.racer)/cutoff"
        case .app: "/admin/apps/\(catalogue.app.uuidString)/cutoff"
        }
    }

    /// A sign-in outside the scope that shares everything else it can with the ones inside.
    func bystander(_ catalogue: RaceCatalogue) -> (signer: RaceSigner, app: UUID, user: String) {
        switch self {
        case .key: (catalogue.sameProviderKey, catalogue.app, Self.racer)
        case .provider: (catalogue.otherProviderKey, catalogue.app, Self.racer)
        case .user: (catalogue.key, catalogue.app, Self.bystanderUser)
        case .app: (catalogue.key, catalogue.otherApp, Self.racer)
        }
    }
}
