import Foundation
import Hummingbird
import VouchProtocol
import VouchStore
import VouchTokens

/// Providers (create, open, bind and unbind apps) and their signing keys (upload, generate in
/// the browser, disable, enable, delete).
extension DashboardRoutes {
    /// The signed-in pages of this area, added to the group that requires a dashboard session.
    var providersArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        routes.on("/dashboard/providers", method: .get) { _, context in try await providersPage(context) }
        routes.on("/dashboard/providers", method: .post) { request, context in try await createProvider(request, context) }
        routes.on("/dashboard/providers/open", method: .get) { request, context in try await openProvider(request, context) }
        routes.on("/dashboard/providers/:provider", method: .get) { _, context in
            try await providerPage(context, id: try Self.uuid(context, "provider", what: "Provider"))
        }
        routes.on("/dashboard/providers/:provider/bind", method: .post) { request, context in try await bind(request, context, bound: true) }
        routes.on("/dashboard/providers/:provider/unbind", method: .post) { request, context in try await bind(request, context, bound: false) }
        routes.on("/dashboard/providers/:provider/keys", method: .post) { request, context in try await uploadKey(request, context) }
        routes.on("/dashboard/providers/:provider/key-source", method: .post) { request, context in
            try await setKeySource(request, context)
        }
        routes.on("/dashboard/providers/:provider/key-source/refresh", method: .post) { request, context in
            try await refreshKeySource(request, context)
        }
        routes.on("/dashboard/keys/:key/status", method: .post) { request, context in try await setKeyStatus(request, context) }
        routes.on("/dashboard/keys/:key/delete", method: .post) { request, context in try await deleteKey(request, context) }
        return routes
    }

    private func providersPage(_ context: DashboardContext, error: DashboardError? = nil) async throws -> Response {
        let chrome = try await chrome(context, "providers", error: error?.message)
        var providers: [[String: Any]] = []
        for id in await sessions.session(id: context.sessionID)?.providers ?? [] {
            guard let provider = try await store.provider(id: id) else { continue }
            providers.append(["uuid": id.lowercased, "id": LayerID.provider(id), "name": provider.name])
        }
        return renderer.page(
            "providers", title: "Providers", values: ["providers": providers, "csrf": chrome.csrfToken],
            chrome: chrome, status: error?.status ?? .ok)
    }

    private func createProvider(_ request: Request, _ context: DashboardContext) async throws -> Response {
        try await attempt(
            {
                let form = try await DashboardForm.read(request)
                let provider = ProviderRecord(id: UUID(), name: try AdminValidation.name(form["name"] ?? ""), appIDs: [], createdAt: clock())
                try await store.createProvider(provider)
                AuditNote.object("provider", provider.id.lowercased)
                await sessions.remember(provider: provider.id, id: context.sessionID)
                await notice("Created provider \(provider.name): \(LayerID.provider(provider.id))", context)
                return DashboardResponse.redirect(to: "/dashboard/providers/\(provider.id.lowercased)")
            }, orShow: { try await providersPage(context, error: $0) })
    }

    private func openProvider(_ request: Request, _ context: DashboardContext) async throws -> Response {
        try await attempt(
            {
                let text = request.uri.queryParameters.get("id").map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                guard let id = LayerID.parseProvider(text), try await store.provider(id: id) != nil else {
                    throw DashboardError(.notFound, "No provider has that id.")
                }
                return DashboardResponse.redirect(to: "/dashboard/providers/\(id.lowercased)")
            }, orShow: { try await providersPage(context, error: $0) })
    }

    private func providerPage(_ context: DashboardContext, id: UUID, error: DashboardError? = nil) async throws -> Response {
        guard let provider = try await store.provider(id: id) else { throw DashboardError(.notFound, "Provider not found.") }
        await sessions.remember(provider: id, id: context.sessionID)
        let chrome = try await chrome(context, "providers", error: error?.message)
        let apps = try await store.apps()
        let bound = apps.filter { provider.appIDs.contains($0.id) }
            .map { ["uuid": $0.id.lowercased, "id": LayerID.app($0.id), "name": $0.name] }
        let unbound = apps.filter { !provider.appIDs.contains($0.id) }.map { ["uuid": $0.id.lowercased, "name": $0.name] }
        var keys: [[String: Any]] = []
        for key in try await store.keys(ofProvider: id).reversed() {
            let deleted = key.status == .deleted
            // A deleted key can no longer be cut off (its sessions live until they expire).
            let cutoff: Any = deleted ? false : try await lastCutoff(.key(key.id))
            keys.append([
                "uuid": key.id.lowercased, "id": LayerID.key(key.id), "status": key.status.rawValue, "fingerprint": key.fingerprint,
                "createdAt": Timestamp.rfc3339(key.createdAt),
                "lastVerified": key.lastVerifiedAt.map(Timestamp.rfc3339) ?? "never", "active": key.status == .active, "deleted": deleted,
                "cutoff": cutoff,
            ])
        }
        var values: [String: Any] = [
            "name": provider.name, "id": LayerID.provider(id), "providerUUID": id.lowercased, "csrf": chrome.csrfToken,
            "bound": bound, "unbound": unbound, "hasUnbound": !unbound.isEmpty, "keys": keys, "scripts": ["keygen.js"],
            "cutoff": try await lastCutoff(.provider(id)), "cutoffPath": "/dashboard/providers/\(id.lowercased)/cutoff",
        ]
        values["keySource"] = try await keySourceValues(provider)
        return renderer.page(
            "provider", title: "Provider \(provider.name)", values: values, chrome: chrome,
            status: error?.status ?? .ok)
    }

    /// The key source section: its settings for the form, and once set, how fetching fares.
    private func keySourceValues(_ provider: ProviderRecord) async throws -> [String: Any] {
        let source = provider.keySource
        var values: [String: Any] = [
            "jwksURI": source?.jwksURI ?? "", "issuer": source?.issuer ?? "", "clientID": source?.clientID ?? "",
            "federated": source?.federated == true, "es256": source?.algorithm == .es256, "configured": source != nil,
        ]
        guard source != nil else { return values }
        try await authenticator.sourceKeyUses.flush(to: store)
        let status = try await operations.keySourceStatus(providerID: provider.id, graceSeconds: keySets.graceSeconds)
        values["status"] = status.status.rawValue
        values["failing"] = status.status == .failing
        values["expired"] = status.status == .expired
        values["pending"] = status.status == .pending
        values["jwksURL"] = status.jwksURL ?? ""
        values["fetchedAt"] = status.fetchedAt ?? "never"
        values["freshUntil"] = status.freshUntil ?? ""
        values["failingSince"] = status.failingSince ?? ""
        values["lastError"] = status.lastError ?? ""
        values["hasError"] = status.lastError != nil
        values["trustedUntil"] = status.trustedUntil ?? ""
        values["sourceKeys"] = status.keys.map { key -> [String: Any] in
            [
                "kid": key.kid, "keyType": key.keyType, "fingerprint": key.fingerprint, "firstSeen": key.firstSeenAt,
                "lastSeen": key.lastSeenAt, "state": key.present ? "published" : "withdrawn", "present": key.present,
                "signIns": key.tokensVerified24h,
            ]
        }
        return values
    }

    /// Sets, changes or (with `remove`) removes the key source from the form's fields.
    private func setKeySource(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let providerID = try Self.uuid(context, "provider", what: "Provider")
        return try await attempt(
            {
                let form = try await DashboardForm.read(request)
                func field(_ name: String) -> FieldChange<String> {
                    let text = (form[name] ?? "").trimmingCharacters(in: .whitespaces)
                    return text.isEmpty ? .cleared : .set(text)
                }
                let remove = form["remove"] == "yes"
                let update = UpdateProviderRequest(
                    jwksURI: remove ? .cleared : field("jwks_uri"), issuer: remove ? .cleared : field("issuer"),
                    clientID: remove ? .cleared : field("client_id"), federated: !remove && form["federated"] == "yes",
                    algorithm: remove ? "RS256" : (form["algorithm"] ?? "RS256"))
                _ = try await operations.updateProvider(id: providerID, update, policy: outbound)
                await notice(remove ? "Removed the key source." : "Saved the key source.", context)
                return DashboardResponse.redirect(to: "/dashboard/providers/\(providerID.lowercased)")
            }, orShow: { try await providerPage(context, id: providerID, error: $0) })
    }

    /// "Fetch now": the source is fetched unless a fetch began in the last few seconds.
    private func refreshKeySource(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let providerID = try Self.uuid(context, "provider", what: "Provider")
        return try await attempt(
            {
                _ = try await DashboardForm.read(request)
                guard let provider = try await store.provider(id: providerID) else { throw DashboardError(.notFound, "Provider not found.") }
                guard provider.keySource != nil else { throw DashboardError(.notFound, "The provider has no key source.") }
                await keySets.refreshNow(provider)
                await notice("Fetched the provider's keys.", context)
                return DashboardResponse.redirect(to: "/dashboard/providers/\(providerID.lowercased)")
            }, orShow: { try await providerPage(context, id: providerID, error: $0) })
    }

    private func bind(_ request: Request, _ context: DashboardContext, bound: Bool) async throws -> Response {
        let providerID = try Self.uuid(context, "provider", what: "Provider")
        return try await attempt(
            {
                let form = try await DashboardForm.read(request)
                let appID = try Self.uuid(form["app"], what: "App")
                try await operations.setBinding(provider: providerID, app: appID, bound: bound)
                await notice(bound ? "Bound \(LayerID.app(appID))." : "Unbound \(LayerID.app(appID)).", context)
                return DashboardResponse.redirect(to: "/dashboard/providers/\(providerID.lowercased)")
            }, orShow: { try await providerPage(context, id: providerID, error: $0) })
    }

    /// A PEM public key, from the upload form or from the in-browser generator (which asks for
    /// JSON, so it can show the private key beside the new key's id without leaving the page).
    private func uploadKey(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let providerID = try Self.uuid(context, "provider", what: "Provider")
        let wantsJSON = request.headers[.accept]?.contains("application/json") ?? false
        do {
            let form = try await DashboardForm.read(request)
            guard try await store.provider(id: providerID) != nil else { throw DashboardError(.notFound, "Provider not found.") }
            let key = try await operations.addKey(try AdminOperations.publicKey(fromPEM: form["public_key"] ?? ""), to: providerID)
            if wantsJSON { return DashboardResponse.json(key.response, status: .created) }
            await notice("Added key \(LayerID.key(key.id)).", context)
            return DashboardResponse.redirect(to: "/dashboard/providers/\(providerID.lowercased)")
        } catch {
            let failure = DashboardError.from(error)
            guard failure.status.code < 500 else { throw error }
            if wantsJSON { return DashboardResponse.json(["message": failure.message], status: failure.status) }
            return try await providerPage(context, id: providerID, error: failure)
        }
    }

    private func setKeyStatus(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let form = try await DashboardForm.read(request)
        let providerID = try Self.uuid(form["provider"], what: "Provider")
        return try await attempt(
            {
                let key = try await existingKey(context)
                guard let status = KeyStatus(rawValue: form["status"] ?? ""), status != .deleted else {
                    throw DashboardError(.unprocessableContent, "A key's status is `active` or `disabled`.")
                }
                guard key.status != .deleted else { throw DashboardError(.conflict, "The key was deleted and cannot be changed.") }
                _ = try await store.setKeyStatus(id: key.id, to: status)
                AuditNote.action(status == .active ? "key.enable" : "key.disable")
                await notice("Key \(LayerID.key(key.id)) is now \(status.rawValue).", context)
                return DashboardResponse.redirect(to: "/dashboard/providers/\(key.providerID.lowercased)")
            }, orShow: { try await providerPage(context, id: providerID, error: $0) })
    }

    private func deleteKey(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let form = try await DashboardForm.read(request)
        let providerID = try Self.uuid(form["provider"], what: "Provider")
        return try await attempt(
            {
                let key = try await existingKey(context)
                guard form["confirm"] == "yes" else {
                    throw DashboardError(.unprocessableContent, "Tick “I am sure” to delete a key: deletion cannot be undone.")
                }
                if key.status != .deleted { _ = try await store.setKeyStatus(id: key.id, to: .deleted) }
                await notice("Deleted key \(LayerID.key(key.id)); tokens it signed are refused from now on.", context)
                return DashboardResponse.redirect(to: "/dashboard/providers/\(key.providerID.lowercased)")
            }, orShow: { try await providerPage(context, id: providerID, error: $0) })
    }

    private func existingKey(_ context: DashboardContext) async throws -> KeyRecord {
        guard let key = try await store.key(id: try Self.uuid(context, "key", what: "Key")) else {
            throw DashboardError(.notFound, "Key not found.")
        }
        return key
    }
}
