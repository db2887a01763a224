import Foundation
import Testing
import VouchStore

// MARK: - An app's access-token lifetime and audiences

extension StoreConformance {
    static let accessTokenSettingChecks: [Check] = [
        Check(name: "apps: the access-token lifetime and audiences, defaulted, updated alone or together, the lifetime's range held by the database") {
            try await $0.accessTokenSettings()
        },
        Check(name: "race: concurrent updates of the access-token lifetime, the audiences and the name, none lost") {
            try await $0.raceAccessTokenSettingUpdates()
        },
    ]

    func accessTokenSettings() async throws {
        try await withStore { store in
            let plain = try await store.addApp()
            #expect(try await store.app(id: plain.id)?.accessTokenTTLSeconds == AppRecord.defaultAccessTokenTTLSeconds)
            #expect(try await store.app(id: plain.id)?.audiences == [])
            var custom = makeApp(name: "Custom")
            custom.accessTokenTTLSeconds = 60
            // Any printable ASCII but the space, kept in its order.
            custom.audiences = ["https://chat.example.com/api?x=1&y='2'", "media-relay", #""quoted"\back~slash!"#]
            #expect(custom.audiences.allSatisfy(AppRecord.isValidAudience))
            try await store.createApp(custom)
            #expect(try await store.app(id: custom.id) == custom)
            #expect(try await store.apps() == [plain, custom])

            // Alone, with the other fields, and untouched by the updates that do not name them.
            var expected = plain
            expected.accessTokenTTLSeconds = AppRecord.accessTokenTTLRange.lowerBound
            #expect(try await store.updateApp(id: plain.id, changes: AppChanges(accessTokenTTLSeconds: 1)) == expected)
            expected.audiences = ["b", "a", "c"]
            #expect(try await store.updateApp(id: plain.id, changes: AppChanges(audiences: ["b", "a", "c"])) == expected)
            expected.name = "All"
            expected.sessionTTLSeconds = 600
            expected.challengeMarginSeconds = 60
            expected.accessTokenTTLSeconds = AppRecord.accessTokenTTLRange.upperBound
            expected.audiences = ["https://media.example.com"]
            #expect(
                try await store.updateApp(
                    id: plain.id,
                    changes: AppChanges(
                        name: "All", sessionTTLSeconds: 600, challengeMarginSeconds: 60, accessTokenTTLSeconds: 300,
                        audiences: ["https://media.example.com"])) == expected, "the new list replaces the old one")
            expected.name = "Renamed"
            #expect(try await store.updateApp(id: plain.id, name: "Renamed", sessionTTLSeconds: nil) == expected)
            expected.challengeMarginSeconds = 90
            #expect(try await store.updateApp(id: plain.id, changes: AppChanges(challengeMarginSeconds: 90)) == expected)
            #expect(try await store.updateApp(id: plain.id, changes: AppChanges()) == expected)

            // The longest list of the longest audiences, then an empty list, which clears it.
            let longest = (0..<AppRecord.maximumAudiences).map { index in
                let prefix = "https://service-\(index).example/"
                return prefix + String(repeating: "p", count: 200 - prefix.utf8.count)
            }
            #expect(longest.allSatisfy(AppRecord.isValidAudience))
            expected.audiences = longest
            #expect(try await store.updateApp(id: plain.id, changes: AppChanges(audiences: longest)) == expected)
            #expect(try await store.app(id: plain.id) == expected)
            expected.audiences = []
            #expect(try await store.updateApp(id: plain.id, changes: AppChanges(audiences: [])) == expected)
            #expect(try await store.app(id: custom.id) == custom, "another app's settings are untouched")

            // Out of range: refused, nothing changed (the other fields of the update neither).
            for ttl in [AppRecord.accessTokenTTLRange.lowerBound - 1, AppRecord.accessTokenTTLRange.upperBound + 1, -1] {
                await #expect(throws: StoreError.self, "\(ttl)") {
                    try await store.updateApp(
                        id: plain.id, changes: AppChanges(name: "Lost", accessTokenTTLSeconds: ttl, audiences: ["lost"]))
                }
                var refused = makeApp(name: "Refused")
                refused.accessTokenTTLSeconds = ttl
                await #expect(throws: StoreError.self, "\(ttl)") { try await store.createApp(refused) }
                #expect(try await store.app(id: refused.id) == nil)
            }
            #expect(try await store.app(id: plain.id) == expected)
            #expect(try await store.apps() == [expected, custom])
            await #expect(throws: StoreError.notFound) {
                try await store.updateApp(id: UUID(), changes: AppChanges(accessTokenTTLSeconds: 10, audiences: ["x"]))
            }
        }
    }

    /// Three fields, each updated alone by its own caller on alternating instances at once: one
    /// statement each, so every update keeps the others'.
    func raceAccessTokenSettingUpdates() async throws {
        try await withStores(2) { stores in
            let app = try await stores[0].addApp(makeApp(name: "Start"))
            for round in 0..<16 {
                let (name, ttl, audiences) = ("Name \(round)", Int64(100 + round), ["https://service-\(round).example"])
                let outcomes = await race([
                    { @Sendable in try await stores[round % 2].updateApp(id: app.id, changes: AppChanges(name: name)) },
                    { @Sendable in try await stores[(round + 1) % 2].updateApp(id: app.id, changes: AppChanges(accessTokenTTLSeconds: ttl)) },
                    { @Sendable in try await stores[round % 2].updateApp(id: app.id, changes: AppChanges(audiences: audiences)) },
                ])
                #expect(outcomes.allSatisfy { $0.value != nil })
                var expected = app
                expected.name = name
                expected.accessTokenTTLSeconds = ttl
                expected.audiences = audiences
                for store in stores {
                    #expect(try await store.app(id: app.id) == expected, "round \(round): an update was lost")
                }
            }
        }
    }
}
