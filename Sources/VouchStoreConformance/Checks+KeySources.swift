import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Key sources (PROTOCOL §8.18)

extension StoreConformance {
    static let keySourceChecks: [Check] = [
        Check(name: "key source: kept with its provider, changed by updateProvider, an issuer chooses one provider") {
            try await $0.keySourceOnProviders()
        },
        Check(name: "key source: a sign-in's facts find its provider by id or by exact issuer, with its binding") {
            try await $0.keySourceSignInFacts()
        },
        Check(name: "key source: one instance takes the turn to fetch; the set, its keys and its health are shared") {
            try await $0.keySetFetchTurns()
        },
        Check(name: "key source: failing and recovering are each told once to every app the provider serves") {
            try await $0.keySetHealthEvents()
        },
        Check(name: "key source: sign-ins per key are added up by hour, a day is shown, older counts are purged") {
            try await $0.sourceKeyUses()
        },
    ]

    func keySourceOnProviders() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let source = ProviderKeySource(
                issuer: "https://issuer.example", clientID: "client-1", federated: true, algorithm: .es256)
            let provider = ProviderRecord(id: UUID(), name: "Federated", appIDs: [app.id], createdAt: t0, keySource: source)
            try await store.createProvider(provider)
            #expect(try await store.provider(id: provider.id) == provider)

            // Another provider cannot take the issuer, on creation or by a change.
            let clash = ProviderRecord(id: UUID(), name: "Clash", appIDs: [], createdAt: t0, keySource: ProviderKeySource(issuer: source.issuer))
            await #expect(throws: StoreError.alreadyExists) { try await store.createProvider(clash) }
            #expect(try await store.provider(id: clash.id) == nil, "nothing of the refused provider stays")
            let plain = try await store.addProvider()
            #expect(plain.keySource == nil)
            await #expect(throws: StoreError.alreadyExists) {
                _ = try await store.updateProvider(id: plain.id, change: ProviderChange(keySource: .some(ProviderKeySource(issuer: source.issuer))))
            }
            #expect(try await store.provider(id: plain.id)?.keySource == nil)

            // A changed source forgets what was fetched from the old one; a rename keeps it.
            #expect(try await store.beginKeySetFetch(providerID: provider.id, source: source.identity, now: t0, unlessBegunAfter: t0 - 60))
            let renamed = try await store.updateProvider(id: provider.id, change: ProviderChange(name: "Renamed"))
            #expect(renamed.name == "Renamed" && renamed.keySource == source && renamed.appIDs == [app.id])
            #expect(try await store.keySetState(providerID: provider.id, usesSince: t0) != nil)
            let jwks = ProviderKeySource(jwksURI: "https://keys.example/jwks.json")
            #expect(try await store.updateProvider(id: provider.id, change: ProviderChange(keySource: .some(jwks))).keySource == jwks)
            #expect(try await store.keySetState(providerID: provider.id, usesSince: t0) == nil)
            // The issuer is free again; removing the source clears every part of it.
            _ = try await store.updateProvider(id: plain.id, change: ProviderChange(keySource: .some(source)))
            let cleared = try await store.updateProvider(id: plain.id, change: ProviderChange(keySource: .some(nil)))
            #expect(cleared.keySource == nil)
            await #expect(throws: StoreError.notFound) {
                _ = try await store.updateProvider(id: UUID(), change: ProviderChange(name: "Nobody"))
            }
        }
    }

    func keySourceSignInFacts() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            let source = ProviderKeySource(issuer: "https://issuer.example/tenant", clientID: "c", federated: true)
            let provider = ProviderRecord(id: UUID(), name: "P", appIDs: [app.id], createdAt: t0, keySource: source)
            try await store.createProvider(provider)

            func fact(_ selector: ProviderSelector, appID: UUID) async throws -> SourceProviderFact? {
                var query = SignInFactsQuery(appID: appID, now: t0)
                query.sourceProvider = selector
                #expect(query.asksAnything)
                return try await store.signInFacts(query).sourceProvider
            }
            #expect(try await fact(.issuer("https://issuer.example/tenant"), appID: app.id) == SourceProviderFact(provider: provider, boundToApp: true))
            #expect(try await fact(.id(provider.id), appID: app.id)?.provider.keySource == source)
            #expect(try await fact(.issuer("https://issuer.example/tenant"), appID: other.id)?.boundToApp == false)
            // Exact: no normalisation of case, slashes or a trailing slash.
            for near in ["https://issuer.example/tenant/", "https://ISSUER.example/tenant", "https://issuer.example"] {
                #expect(try await fact(.issuer(near), appID: app.id) == nil, "\(near)")
            }
            #expect(try await fact(.id(UUID()), appID: app.id) == nil)
            // Not asked, not answered.
            #expect(try await store.signInFacts(SignInFactsQuery(appID: app.id, now: t0, includesApp: true)).sourceProvider == nil)
        }
    }

    func keySetFetchTurns() async throws {
        try await withStores(2) { stores in
            let (first, second) = (stores[0], stores[1])
            let provider = try await first.addProvider()
            let source = "jwks=https://keys.example/jwks.json;issuer="
            #expect(try await first.keySetState(providerID: provider.id, usesSince: t0) == nil)
            #expect(try await first.beginKeySetFetch(providerID: provider.id, source: source, now: t0, unlessBegunAfter: t0 - 60))
            // The other instance finds the turn taken within the minute, and may take it after.
            #expect(try await !second.beginKeySetFetch(providerID: provider.id, source: source, now: t0 + 30, unlessBegunAfter: t0 + 30 - 60))
            #expect(try await !first.beginKeySetFetch(providerID: provider.id, source: source, now: t0 + 59, unlessBegunAfter: t0 + 59 - 60))
            await #expect(throws: Never.self) {
                _ = try await second.beginKeySetFetch(providerID: UUID(), source: source, now: t0, unlessBegunAfter: t0)
            }

            let keys = [
                KeySetFetch.FetchedKey(keyID: "k1", keyType: "RSA", fingerprint: "sha256:01"),
                KeySetFetch.FetchedKey(keyID: "k2", keyType: "EC", fingerprint: "sha256:02"),
            ]
            let fetched = KeySetFetch(
                providerID: provider.id, source: source,
                outcome: .fetched(document: #"{"keys":[]}"#, jwksURL: "https://keys.example/jwks.json", freshUntil: t0 + 300, keys: keys),
                at: t0 + 1)
            #expect(try await first.finishKeySetFetch(fetched) == .unchanged)
            let state = try #require(try await second.keySetState(providerID: provider.id, usesSince: t0))
            #expect(state.document == #"{"keys":[]}"# && state.fetchedAt == t0 + 1 && state.freshUntil == t0 + 300)
            #expect(state.jwksURL == "https://keys.example/jwks.json" && state.failingSince == nil && state.attemptedAt == t0)
            #expect(Set(state.keys.map(\.keyID)) == ["k1", "k2"] && state.keys.allSatisfy { $0.present && $0.firstSeenAt == t0 + 1 })

            // A later set without k1: k1 stays listed, no longer present, first seen unchanged.
            #expect(try await second.beginKeySetFetch(providerID: provider.id, source: source, now: t0 + 90, unlessBegunAfter: t0 + 30))
            let rotated = KeySetFetch(
                providerID: provider.id, source: source,
                outcome: .fetched(document: "{}", jwksURL: "https://keys.example/jwks.json", freshUntil: t0 + 400, keys: [keys[1]]),
                at: t0 + 91)
            #expect(try await second.finishKeySetFetch(rotated) == .unchanged)
            let after = try #require(try await first.keySetState(providerID: provider.id, usesSince: t0))
            let byID = Dictionary(uniqueKeysWithValues: after.keys.map { ($0.keyID, $0) })
            #expect(byID["k1"]?.present == false && byID["k1"]?.lastSeenAt == t0 + 1)
            #expect(byID["k2"]?.present == true && byID["k2"]?.firstSeenAt == t0 + 1 && byID["k2"]?.lastSeenAt == t0 + 91)

            // A fetch for a source the provider moved away from is dropped, and a new source takes
            // the turn at once and starts empty.
            let moved = "jwks=https://elsewhere.example/jwks.json;issuer="
            #expect(try await first.beginKeySetFetch(providerID: provider.id, source: moved, now: t0 + 92, unlessBegunAfter: t0 + 32))
            #expect(try await first.finishKeySetFetch(rotated) == .unchanged)
            let fresh = try #require(try await first.keySetState(providerID: provider.id, usesSince: t0))
            #expect(fresh.source == moved && fresh.document == nil && fresh.fetchedAt == nil)
        }
    }

    func keySetHealthEvents() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            let provider = try await store.addProvider(apps: [app.id, other.id])
            let source = "jwks=https://keys.example/jwks.json;issuer="
            #expect(try await store.beginKeySetFetch(providerID: provider.id, source: source, now: t0, unlessBegunAfter: t0))
            let good = KeySetFetch(
                providerID: provider.id, source: source,
                outcome: .fetched(document: "{}", jwksURL: "https://keys.example/jwks.json", freshUntil: t0 + 60, keys: []), at: t0)
            #expect(try await store.finishKeySetFetch(good) == .unchanged, "a first success is no recovery")
            let failed = KeySetFetch(providerID: provider.id, source: source, outcome: .failed(reason: "HTTP 503"), at: t0 + 70)
            #expect(try await store.finishKeySetFetch(failed) == .startedFailing)
            var again = failed
            again.at = t0 + 140
            again.outcome = .failed(reason: "timed out")
            #expect(try await store.finishKeySetFetch(again) == .unchanged, "told once")
            let state = try #require(try await store.keySetState(providerID: provider.id, usesSince: t0))
            #expect(state.failingSince == t0 + 70 && state.lastError == "timed out" && state.document == "{}", "the last good set stays")
            var back = good
            back.at = t0 + 200
            #expect(try await store.finishKeySetFetch(back) == .recovered)
            #expect(try await store.keySetState(providerID: provider.id, usesSince: t0)?.failingSince == nil)

            for appID in [app.id, other.id] {
                let events = try await store.settledSecurityEvents(appID: appID, count: 2).filter { $0.kind != .keyCreated }
                #expect(events.map(\.kind) == [.keySourceFailing, .keySourceRecovered])
                let fields = try JSONDecoder().decode(JSONValue.self, from: Data(events[0].data.utf8)).objectValue
                #expect(fields?["provider_id"] == .string(provider.id.uuidString.lowercased()))
                #expect(fields?["reason"] == .string("HTTP 503"))
                #expect(events.allSatisfy { $0.userID == nil })
            }
        }
    }

    func sourceKeyUses() async throws {
        try await withStore { store in
            let provider = try await store.addProvider()
            let source = "jwks=https://keys.example/jwks.json;issuer="
            #expect(try await store.beginKeySetFetch(providerID: provider.id, source: source, now: t0, unlessBegunAfter: t0))
            let keys = [KeySetFetch.FetchedKey(keyID: "k1", keyType: "RSA", fingerprint: "sha256:01")]
            try await store.finishKeySetFetch(
                KeySetFetch(
                    providerID: provider.id, source: source,
                    outcome: .fetched(document: "{}", jwksURL: "https://keys.example/jwks.json", freshUntil: t0 + 60, keys: keys), at: t0))
            let now = SourceKeyUse.hour(of: t0) + 3 * 86_400
            let hour = SourceKeyUse.hour(of: now)
            try await store.addSourceKeyUses([
                SourceKeyUse(providerID: provider.id, keyID: "k1", hour: hour, count: 3),
                SourceKeyUse(providerID: provider.id, keyID: "k1", hour: hour - 3_600, count: 4),
                SourceKeyUse(providerID: provider.id, keyID: "k1", hour: hour - 25 * 3_600, count: 100),
                SourceKeyUse(providerID: UUID(), keyID: "k1", hour: hour, count: 1),
            ])
            try await store.addSourceKeyUses([SourceKeyUse(providerID: provider.id, keyID: "k1", hour: hour, count: 2)])
            try await store.addSourceKeyUses([])
            let day = try await store.keySetState(providerID: provider.id, usesSince: now - 86_400 + 1)
            #expect(day?.keys.first?.tokensVerified == 9, "the last 24 hours, to the hour")
            #expect(SourceKeyUse.hour(of: now - 86_400 + 1) == hour - 24 * 3_600)
            let all = try await store.keySetState(providerID: provider.id, usesSince: 0)
            #expect(all?.keys.first?.tokensVerified == 109)
            _ = try await store.purgeExpired(now: now, sessionGraceSeconds: 0)
            #expect(try await store.keySetState(providerID: provider.id, usesSince: 0)?.keys.first?.tokensVerified == 109, "two days are kept")
            _ = try await store.purgeExpired(now: now + 3 * 86_400, sessionGraceSeconds: 0)
            #expect(try await store.keySetState(providerID: provider.id, usesSince: 0)?.keys.first?.tokensVerified == 0)
        }
    }
}
