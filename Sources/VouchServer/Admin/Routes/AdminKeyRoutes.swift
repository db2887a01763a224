import Foundation
import Hummingbird
import VouchProtocol
import VouchStore
import VouchTokens

/// A provider's keys: upload or generate (`/admin/providers/:provider/keys`), show, disable,
/// enable and delete (`/admin/keys/:key`) (PROTOCOL §4).
struct AdminKeyRoutes {
    let store: any Store
    let clock: @Sendable () -> Int64

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.post("/providers/:provider/keys", use: create)
        routes.get("/providers/:provider/keys") { _, context in
            let providerID = try await existingProvider(context)
            return JSONResponse.make(try await store.keys(ofProvider: providerID).map(\.response))
        }
        routes.get("/keys/:key") { _, context in
            guard let key = try await store.key(id: try PathID.uuid(context, "key", what: "Key")) else { throw APIError.notFound("Key") }
            return JSONResponse.make(key.response)
        }
        routes.patch("/keys/:key", use: update)
        routes.delete("/keys/:key") { _, context in
            let id = try PathID.uuid(context, "key", what: "Key")
            do {
                _ = try await store.setKeyStatus(id: id, to: .deleted)
            } catch StoreError.notFound {
                throw APIError.notFound("Key")
            }
            return JSONResponse.noContent()
        }
        return routes
    }

    private func existingProvider(_ context: AdminContext) async throws -> UUID {
        let providerID = try PathID.uuid(context, "provider", what: "Provider")
        guard try await store.provider(id: providerID) != nil else { throw APIError.notFound("Provider") }
        return providerID
    }

    private func create(_ request: Request, _ context: AdminContext) async throws -> Response {
        let providerID = try PathID.uuid(context, "provider", what: "Provider")
        let body = try await RequestBodyReader.decode(CreateKeyRequest.self, from: request, context: context)
        guard try await store.provider(id: providerID) != nil else { throw APIError.notFound("Provider") }
        let publicKey: PublicKeyInfo
        var privateKeyPEM: String?
        switch (body.publicKey, body.generate ?? false) {
        case (.some, true):
            throw APIError.invalidProperty("generate", "Send either `public_key` or `generate: true`, not both.")
        case (.some(let pem), false):
            publicKey = try AdminOperations.publicKey(fromPEM: pem)
        case (.none, true):
            let pair = try await RSAKeyPair.generateOffTheConcurrencyPool()
            publicKey = try PublicKeyInfo(pem: pair.publicKeyPEM)
            privateKeyPEM = pair.privateKeyPEM
        case (.none, false):
            throw APIError.missingProperty("public_key")
        }
        let key = try await AdminOperations(store: store, clock: clock).addKey(publicKey, to: providerID)
        var response = key.response
        response.privateKey = privateKeyPEM
        return JSONResponse.make(response, status: .created)
    }

    private func update(_ request: Request, _ context: AdminContext) async throws -> Response {
        let id = try PathID.uuid(context, "key", what: "Key")
        let body = try await RequestBodyReader.decode(UpdateKeyRequest.self, from: request, context: context)
        guard let statusText = body.status else { throw APIError.missingProperty("status") }
        guard let status = KeyStatus(rawValue: statusText), status != .deleted else {
            throw APIError.invalidProperty("status", "`status` must be `active` or `disabled` (delete with DELETE).")
        }
        AuditNote.action(status == .active ? "key.enable" : "key.disable")
        // The store refuses a tombstone in the statement that writes: no read-then-write here.
        do {
            return JSONResponse.make(try await store.setKeyStatus(id: id, to: status).response)
        } catch StoreError.notFound {
            throw APIError.notFound("Key")
        } catch StoreError.tombstone {
            throw APIError(.conflict, "The key was deleted and cannot be changed.")
        }
    }
}
